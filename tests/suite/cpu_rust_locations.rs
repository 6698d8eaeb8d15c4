//! Issue 16's end-to-end property: with the macros writing `.loc` for every instruction and the
//! CPU backend reading it, a fault or failed check in a Rust kernel names the Rust
//! `file:line:column` first, before the kernel, block, thread and PTX line. The expected lines
//! are this file's own, found by their `// AT:` markers, not taken from our emitter.

use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn index_past_the_end(x: &[f32], y: &mut [f32]) {
    let i = thread_idx_x() as usize;
    y[i] = x[i + 1]; // AT: index
}

#[kernel]
pub fn write_through_a_wild_pointer(p: *mut f32) {
    let i = thread_idx_x() as usize;
    unsafe { *p.add(i + 4096) = 1.0 }; // AT: wild
}

#[kernel]
pub fn stop(y: &mut [u32]) {
    y[0] = 1;
    if thread_idx_x() == 1 {
        trap(); // AT: trap
    }
}

#[kernel]
pub fn split_barrier(y: &mut [u32]) {
    let t = thread_idx_x() as usize;
    if t % 2 == 0 {
        sync_threads(); // AT: even
    } else {
        sync_threads(); // AT: odd
    }
    y[t] = 1;
}

#[kernel]
pub fn wait_for_nobody(flag: &[u32], y: &mut [u32]) {
    let t = thread_idx_x() as usize;
    if t == 0 {
        while unsafe { flag.as_ptr().read_volatile() } == 0 {} // AT: spin
    }
    y[t] = 1;
}

#[kernel]
pub fn insist(x: &[f32]) {
    let i = thread_idx_x() as usize;
    assert!(x[i] > 0.0, "x must be positive"); // AT: assert
}

/// The 1-based line of this file that carries `// AT: <what>`.
fn line_of(what: &str) -> u32 {
    let marker = format!("// AT: {what}");
    let src = include_str!("cpu_rust_locations.rs");
    src.lines().position(|l| l.trim_end().ends_with(&marker)).expect("marker in this file") as u32 + 1
}

/// `message` begins with this file's name and `line` (then a column), and goes on to name the
/// kernel and the PTX line as before.
fn starts_at(message: &str, line: u32) {
    let head = message.split(": ").next().unwrap_or_default();
    let want = format!("cpu_rust_locations.rs:{line}:");
    assert!(head.contains(&want) && message.starts_with(head), "expected the report to begin at `{want}<column>`:\n{message}");
    assert!(message.contains("PTX line"), "the PTX line is still named:\n{message}");
}

#[test]
fn a_failed_bounds_check_names_its_rust_line_first() {
    let stream = Device::cpu().stream();
    let x = DeviceBuffer::from_slice(&stream, &[1.0f32; 4]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 4).unwrap();
    let e = index_past_the_end::launch(&stream, LaunchConfig::new(1u32, 4u32), &x, &mut y).unwrap_err();
    starts_at(&e.to_string(), line_of("index"));
    assert!(e.to_string().contains("index out of bounds"), "{e}");
}

#[test]
fn a_memcheck_fault_names_its_rust_line_first() {
    let stream = Device::cpu().stream();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 4).unwrap();
    let e = unsafe { write_through_a_wild_pointer::launch(&stream, LaunchConfig::new(1u32, 2u32), &mut y) }.unwrap_err();
    starts_at(&e.to_string(), line_of("wild"));
}

#[test]
fn a_trap_names_its_rust_line_first() {
    let stream = Device::cpu().stream();
    let mut y = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let e = stop::launch(&stream, LaunchConfig::new(1u32, 2u32), &mut y).unwrap_err();
    starts_at(&e.to_string(), line_of("trap"));
}

#[test]
fn a_divergent_barrier_names_its_rust_line_first() {
    let stream = Device::cpu().stream();
    let mut y = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    let e = split_barrier::launch(&stream, LaunchConfig::new(1u32, 32u32), &mut y).unwrap_err();
    let m = e.to_string();
    // Whichever half arrives second is the one reported.
    let at = if m.starts_with(&format!("tests/suite/cpu_rust_locations.rs:{}:", line_of("even"))) { line_of("even") } else { line_of("odd") };
    starts_at(&m, at);
    assert!(m.contains("barrier"), "{m}");
}

#[test]
fn a_deadlock_names_its_rust_line_first() {
    let dev = Device::new_cpu();
    let stream = dev.stream();
    let flag = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    let e = wait_for_nobody::launch(&stream, LaunchConfig::new(1u32, 32u32), &flag, &mut y).unwrap_err();
    starts_at(&e.to_string(), line_of("spin"));
}

#[test]
fn a_failed_assertion_names_its_rust_line_first() {
    let stream = Device::cpu().stream();
    let x = DeviceBuffer::from_slice(&stream, &[1.0f32, 2.0, -3.0, 4.0]).unwrap();
    let e = insist::launch(&stream, LaunchConfig::new(1u32, 4u32), &x).unwrap_err();
    starts_at(&e.to_string(), line_of("assert"));
    assert!(e.to_string().contains("x must be positive"), "{e}");
}

/// The sanitizers' reports on the suite's Rust kernels (`cpu_sanitize.rs`,
/// `cpu_sanitize_blocks.rs`) begin at the Rust line of the access, call or barrier.
#[test]
fn every_sanitizer_report_names_its_rust_line_first() {
    use crate::cpu_sanitize::{broadcast, racy_reverse, scratch};
    use crate::cpu_sanitize_blocks::{half_barrier, half_written};
    use ptx_runtime::Sanitizers;
    let line_in = |src: &str, needle: &str| -> u32 {
        assert_eq!(src.matches(needle).count(), 1, "`{needle}`");
        src[..src.find(needle).unwrap()].matches('\n').count() as u32 + 1
    };
    let begins = |m: String, file: &str, line: u32| {
        assert!(m.starts_with(&format!("tests/suite/{file}:{line}:")), "expected the report to begin at {file}:{line}:\n{m}");
        assert!(m.contains("PTX line"), "{m}");
    };
    let (san, blocks) = (include_str!("cpu_sanitize.rs"), include_str!("cpu_sanitize_blocks.rs"));
    let dev = Device::new_cpu();
    let stream = dev.stream();
    let x = DeviceBuffer::from_slice(&stream, &[1.0f32; 64]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    dev.set_sanitizers(Sanitizers { race: true, ..Sanitizers::NONE }).unwrap();
    let e = racy_reverse::launch(&stream, LaunchConfig::new(1u32, 64u32), &x, &mut y).unwrap_err();
    begins(e.to_string(), "cpu_sanitize.rs", line_in(san, "s[t] = x[t];\n    y[t] = s[63 - t];"));
    dev.set_sanitizers(Sanitizers { init: true, ..Sanitizers::NONE }).unwrap();
    let e = scratch::launch(&stream, LaunchConfig::new(1u32, 32u32), 1u32, &mut out).unwrap_err();
    begins(e.to_string(), "cpu_sanitize.rs", line_in(san, "out[t] = *p + *p.add(keep as usize);"));
    let e = half_written::launch(&stream, LaunchConfig::new(1u32, 64u32), &mut y).unwrap_err();
    begins(e.to_string(), "cpu_sanitize_blocks.rs", line_in(blocks, "y[t] = s[63 - t]; // LINE: unwritten"));
    dev.set_sanitizers(Sanitizers { leak: true, ..Sanitizers::NONE }).unwrap();
    let e = scratch::launch(&stream, LaunchConfig::new(1u32, 32u32), 1u32, &mut out).unwrap_err();
    begins(e.to_string(), "cpu_sanitize.rs", line_in(san, "let p = malloc::<u32>(2);"));
    dev.set_sanitizers(Sanitizers { sync: true, ..Sanitizers::NONE }).unwrap();
    let e = broadcast::launch(&stream, LaunchConfig::new(1u32, 16u32), &mut out).unwrap_err();
    begins(e.to_string(), "cpu_sanitize.rs", line_in(san, "out[t as usize] = shfl_sync(0xffff_ffff, t, 0);"));
    let e = half_barrier::launch(&stream, LaunchConfig::new(1u32, 32u32), &x, &mut y).unwrap_err();
    begins(e.to_string(), "cpu_sanitize_blocks.rs", line_in(blocks, "sync_threads(); // LINE: half"));
}

#[test]
fn the_modules_assemble() {
    for (name, ptx) in [("index_past_the_end", index_past_the_end::PTX), ("write_through_a_wild_pointer", write_through_a_wild_pointer::PTX), ("stop", stop::PTX), ("split_barrier", split_barrier::PTX), ("wait_for_nobody", wait_for_nobody::PTX), ("insist", insist::PTX)] {
        crate::tools::assemble(name, ptx);
    }
}
