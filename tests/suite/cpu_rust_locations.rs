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
fn the_modules_assemble() {
    for (name, ptx) in [("index_past_the_end", index_past_the_end::PTX), ("write_through_a_wild_pointer", write_through_a_wild_pointer::PTX), ("stop", stop::PTX)] {
        crate::tools::assemble(name, ptx);
    }
}
