//! The CPU backend's sanitizers (racecheck, initcheck, synccheck, leakcheck): each planted
//! bug is caught — with the CUDA source line where the PTX has line information — only when
//! its sanitizer is on; each correct twin, and every corpus kernel, passes all of them.

use crate::cpu_harness::{arg, fault, Harness};
use crate::tools::{assemble, nvcc_ptx_with};
use ptx_runtime::cpu::Sanitizers;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, Error, FaultKind, LaunchConfig};

const SRC: &str = include_str!("../cuda/sanitize.cu");
const FILE: &str = "sanitize_cu.cu";

fn module() -> Option<Harness> {
    let ptx = nvcc_ptx_with("sanitize_cu", SRC, &["-lineinfo"])?;
    assemble("sanitize_cu", &ptx);
    Some(Harness::new(&ptx))
}

/// The 1-based line where the only occurrence of `needle` (which may span lines) in the
/// CUDA source starts.
fn line(needle: &str) -> u32 {
    assert_eq!(SRC.matches(needle).count(), 1, "`{needle}`");
    SRC[..SRC.find(needle).unwrap()].matches('\n').count() as u32 + 1
}

const RACE: Sanitizers = Sanitizers { race: true, ..Sanitizers::NONE };
const INIT: Sanitizers = Sanitizers { init: true, ..Sanitizers::NONE };
const SYNC: Sanitizers = Sanitizers { sync: true, ..Sanitizers::NONE };
const LEAK: Sanitizers = Sanitizers { leak: true, ..Sanitizers::NONE };

#[test]
fn racecheck_finds_shared_and_global_hazards_with_both_lines() {
    let Some(mut k) = module() else { return };
    let out = k.zeroed::<i32>(64);
    let run = |k: &Harness, e: &str| k.launch(e, [1, 1, 1], [64, 1, 1], 0, &[out.ptr()]);
    run(&k, "race_shared").expect("off by default");
    k.dev.set_sanitizers(RACE);
    run(&k, "race_shared_fixed").expect("a barrier orders the accesses");
    let f = fault(run(&k, "race_shared"));
    assert_eq!(f.kind, FaultKind::Race, "{f}");
    // Thread 0 reads s[1], which thread 1 of its warp wrote with no __syncwarp or barrier
    // between: this access is the load, the other the store.
    let (store, load) = (line("s[threadIdx.x] = threadIdx.x;\n  out"), line("out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}\n\nextern \"C\" __global__ void race_shared_fixed"));
    let src = f.source.as_ref().expect("source line");
    assert!(src.file.ends_with(FILE), "{f}");
    assert_eq!(f.thread, [0, 0, 0], "{f}");
    assert_eq!(src.line, load, "{f}");
    assert!(f.detail.contains("read-after-write") && f.detail.contains("offset 0x4") && f.detail.contains("thread (1, 0, 0)"), "{f}");
    assert!(f.detail.contains(&format!("{FILE}:{store}:")), "the other access's source line: {f}");

    let f = fault(k.launch("race_global", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!((f.kind, f.address), (FaultKind::Race, Some(out.addr)), "{f}");
    assert!(f.detail.contains("write-after-write") && f.detail.contains("global memory"), "{f}");
    assert_eq!(f.source.as_ref().unwrap().line, line("if (threadIdx.x < 2) out[0]"));
}

#[test]
fn initcheck_finds_reads_of_memory_never_written() {
    let Some(k) = module() else { return };
    let input = k.dev.alloc_uninit(64 * 4).unwrap();
    k.dev.write(input, &[1u8; 40 * 4]).unwrap();
    let out = k.dev.alloc(64 * 4).unwrap();
    let p = |a: u64| a.to_le_bytes().to_vec();
    k.launch("read_all", [1, 1, 1], [64, 1, 1], 0, &[p(input), p(out)]).expect("off by default");
    k.dev.set_sanitizers(INIT);
    k.launch("read_all", [1, 1, 1], [40, 1, 1], 0, &[p(input), p(out)]).expect("the written part");
    let f = fault(k.launch("read_all", [1, 1, 1], [64, 1, 1], 0, &[p(input), p(out)]));
    assert_eq!((f.kind, f.thread, f.address), (FaultKind::Uninitialized, [40, 0, 0], Some(input + 160)), "{f}");
    assert_eq!(f.source.as_ref().unwrap().line, line("out[threadIdx.x] = in[threadIdx.x] + 1;"));
    // Once a kernel (or the host) writes it, it is initialised.
    k.dev.write(input + 160, &[0u8; 24 * 4]).unwrap();
    k.launch("read_all", [1, 1, 1], [64, 1, 1], 0, &[p(input), p(out)]).unwrap();
    // A zeroed allocation is initialised.
    k.launch("read_all", [1, 1, 1], [64, 1, 1], 0, &[p(out), p(out)]).unwrap();

    let f = fault(k.launch("heap_uninit", [1, 1, 1], [32, 1, 1], 0, &[p(out)]));
    assert_eq!((f.kind, f.thread), (FaultKind::Uninitialized, [1, 0, 0]), "{f}");
    assert!(f.detail.contains("device-malloc'd"), "{f}");
}

#[test]
fn synccheck_finds_masks_naming_absent_lanes_and_bad_counts() {
    let Some(mut k) = module() else { return };
    let out = k.zeroed::<i32>(64);
    // Lanes 0..20 wait in the shuffle for lanes that exit: reported always (memcheck).
    let f = fault(k.launch("shfl_after_return", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::InvalidWarpSync, "{f}");
    assert!(f.detail.contains("0xfff00000") && f.detail.contains("exited"), "{f}");
    let src = f.source.as_ref().unwrap();
    assert_eq!(src.inlined_at.as_ref().map_or(src.line, |a| a.line), line("__shfl_sync(0xffffffff"));
    // A block of 16 threads has no lanes 16..32: not waited for, unless synccheck is on.
    k.launch("shfl_after_return", [1, 1, 1], [16, 1, 1], 0, &[out.ptr()]).expect("off by default");
    k.launch("odd_barrier_count", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(48i32)]).expect("off by default");
    k.dev.set_sanitizers(SYNC);
    let f = fault(k.launch("shfl_after_return", [1, 1, 1], [16, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::InvalidWarpSync, "{f}");
    assert!(f.detail.starts_with("synccheck") && f.detail.contains("0xffff0000") && f.detail.contains("does not have"), "{f}");
    let f = fault(k.launch("odd_barrier_count", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(48i32)]));
    assert_eq!(f.kind, FaultKind::BarrierDivergence, "{f}");
    assert!(f.detail.contains("thread count 48"), "{f}");
    k.launch("odd_barrier_count", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(64i32)]).unwrap();
}

#[test]
fn leakcheck_finds_malloc_without_free() {
    let Some(mut k) = module() else { return };
    let out = k.zeroed::<i32>(32);
    k.launch("leak", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]).expect("off by default");
    k.dev.set_sanitizers(LEAK);
    k.launch("no_leak", [2, 1, 1], [32, 1, 1], 0, &[out.ptr()]).unwrap();
    let f = fault(k.launch("leak", [2, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::Leak, "{f}");
    assert!(f.detail.starts_with("16 bytes") && f.detail.contains("64 block(s), 1024 bytes"), "{f}");
    assert!(f.address.is_some());
    assert_eq!(f.source.as_ref().unwrap().line, line("int* p = (int*)malloc(16);\n  p[0] = threadIdx.x;\n  out[threadIdx.x] = p[0];\n}"));
    assert!(f.to_string().contains("device memory leak in kernel `leak`"), "{f}");
}

#[kernel]
pub fn racy_reverse(x: &[f32], y: &mut [f32]) {
    let mut s = unsafe { shared_array::<f32, 64>() };
    let t = thread_idx_x() as usize;
    s[t] = x[t];
    y[t] = s[63 - t];
}

#[kernel]
pub fn reverse(x: &[f32], y: &mut [f32]) {
    let mut s = unsafe { shared_array::<f32, 64>() };
    let t = thread_idx_x() as usize;
    s[t] = x[t];
    sync_threads();
    y[t] = s[63 - t];
}

/// Rust kernels through the runtime: sanitizers per device and per stream, a buffer made with
/// `DeviceBuffer::uninit`.
#[test]
fn rust_kernels_under_the_runtime_api() {
    assemble("san_racy_reverse", racy_reverse::PTX);
    let dev = Device::new_cpu();
    let stream = dev.stream();
    let x = DeviceBuffer::from_slice(&stream, &[1.0f32; 64]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    let cfg = LaunchConfig::new(1, 64);
    racy_reverse::launch(&stream, cfg, &x, &mut y).expect("off by default");
    let checked = dev.new_stream().unwrap();
    checked.set_sanitizers(Some(RACE)).unwrap();
    reverse::launch(&checked, cfg, &x, &mut y).unwrap();
    match racy_reverse::launch(&checked, cfg, &x, &mut y) {
        Err(Error::Fault(f)) => {
            // As docs/debugging.md shows it: thread 32 stores to s[32], which thread 31 loaded.
            eprintln!("{f}");
            assert_eq!((f.kind, f.thread), (FaultKind::Race, [32, 0, 0]), "{f}");
            assert!(f.detail.contains("write-after-read hazard on 4 byte(s) of shared memory at offset 0x80"), "{f}");
            // Both places by their Rust lines (the macros write `.loc`), then their PTX lines.
            let src = include_str!("cpu_sanitize.rs");
            let start = src.lines().position(|l| l.starts_with("pub fn racy_reverse")).unwrap();
            let line = |text: &str| start + src.lines().skip(start).position(|l| l.trim() == text).unwrap() + 1;
            let (store, load) = (line("s[t] = x[t];"), line("y[t] = s[63 - t];"));
            assert!(f.detail.contains(&format!("read by thread (31, 0, 0) at tests/suite/cpu_sanitize.rs:{load}:")), "{f}");
            assert!(f.to_string().starts_with(&format!("tests/suite/cpu_sanitize.rs:{store}:")), "{f}");
            assert!(f.detail.contains("(PTX line"), "{f}");
        }
        other => panic!("expected a race, got {other:?}"),
    }
    racy_reverse::launch(&stream, cfg, &x, &mut y).expect("other streams are unaffected");
    checked.set_sanitizers(None).unwrap();
    racy_reverse::launch(&checked, cfg, &x, &mut y).expect("back to the device's (none)");

    dev.set_sanitizers(INIT).unwrap();
    let mut u = DeviceBuffer::<f32>::uninit(&stream, 64).unwrap();
    match reverse::launch(&stream, cfg, &u, &mut y) {
        Err(Error::Fault(f)) => assert_eq!((f.kind, f.address), (FaultKind::Uninitialized, Some(u.device_address())), "{f}"),
        other => panic!("expected an initcheck report, got {other:?}"),
    }
    u.copy_from_slice(&[2.0; 64]).unwrap();
    reverse::launch(&stream, cfg, &u, &mut y).unwrap();
    assert_eq!(y.to_vec().unwrap(), [2.0; 64]);
}

#[kernel]
pub fn scratch(keep: u32, out: &mut [u32]) {
    let t = thread_idx_x() as usize;
    let p = malloc::<u32>(2);
    if !p.is_null() {
        unsafe {
            *p = t as u32;
            out[t] = *p + *p.add(keep as usize); // keep = 1 reads the element never written
            if keep == 0 {
                free(p);
            }
        }
    }
}

#[kernel]
pub fn broadcast(out: &mut [u32]) {
    let t = thread_idx_x();
    out[t as usize] = shfl_sync(0xffff_ffff, t, 0);
}

/// Leakcheck, initcheck of device `malloc` and synccheck on `#[kernel]` Rust kernels.
#[test]
fn rust_kernels_leak_read_fresh_malloc_and_shuffle_with_absent_lanes() {
    assemble("san_scratch", scratch::PTX);
    assemble("san_broadcast", broadcast::PTX);
    let dev = Device::new_cpu();
    let stream = dev.stream();
    let mut out = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    dev.set_sanitizers(Sanitizers { leak: true, init: true, ..Sanitizers::NONE }).unwrap();
    scratch::launch(&stream, LaunchConfig::new(1, 32), 0u32, &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), (0..32).map(|t| 2 * t).collect::<Vec<u32>>());
    match scratch::launch(&stream, LaunchConfig::new(1, 32), 1u32, &mut out) {
        Err(Error::Fault(f)) => assert_eq!((f.kind, f.thread), (FaultKind::Uninitialized, [0, 0, 0]), "{f}"),
        other => panic!("expected an initcheck report, got {other:?}"),
    }
    dev.set_sanitizers(Sanitizers { leak: true, ..Sanitizers::NONE }).unwrap();
    match scratch::launch(&stream, LaunchConfig::new(1, 32), 1u32, &mut out) {
        Err(Error::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::Leak, "{f}");
            assert!(f.detail.contains("32 block(s), 256 bytes in all"), "{f}");
        }
        other => panic!("expected a leak report, got {other:?}"),
    }
    broadcast::launch(&stream, LaunchConfig::new(1, 16), &mut out).expect("off by default");
    dev.set_sanitizers(SYNC).unwrap();
    broadcast::launch(&stream, LaunchConfig::new(1, 32), &mut out).unwrap();
    match broadcast::launch(&stream, LaunchConfig::new(1, 16), &mut out) {
        Err(Error::Fault(f)) => assert!(f.kind == FaultKind::InvalidWarpSync && f.detail.contains("0xffff0000"), "{f}"),
        other => panic!("expected a synccheck report, got {other:?}"),
    }
}

/// Every corpus kernel, under every sanitizer, with no report (and still the right results).
#[test]
fn the_corpus_passes_every_sanitizer() {
    let dev = Device::new_cpu();
    dev.set_sanitizers(Sanitizers::ALL).unwrap();
    let stream = dev.stream();
    let mut failures = Vec::new();
    for case in crate::corpus::CASES {
        if let Err(e) = (case.check_device)(&stream) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `PTX_SANITIZE` sets the sanitizers of new devices: checked in a child process of this test
/// binary (the variable is read when a device is made, and tests share the process).
#[test]
fn the_environment_variable_switches_them_on_for_a_run() {
    let run = |value: &str| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["cpu_sanitize::env_child", "--exact", "--include-ignored", "--nocapture", "--test-threads=1"])
            .env(ptx_runtime::SANITIZE_ENV, value)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && text.contains("1 passed"), "PTX_SANITIZE={value}:\n{text}");
    };
    run("race,leak");
    run("race, bogus");
}

#[test]
#[ignore = "run by the_environment_variable_switches_them_on_for_a_run, with PTX_SANITIZE set"]
fn env_child() {
    let Ok(value) = std::env::var(ptx_runtime::SANITIZE_ENV) else { return };
    let dev = Device::new_cpu();
    let stream = dev.stream();
    let x = DeviceBuffer::from_slice(&stream, &[1.0f32; 64]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    let r = racy_reverse::launch(&stream, LaunchConfig::new(1, 64), &x, &mut y);
    match value.as_str() {
        "race,leak" => {
            assert_eq!(ptx_runtime::cpu::CpuDevice::new().sanitizers(), Sanitizers { race: true, leak: true, ..Sanitizers::NONE });
            assert!(matches!(&r, Err(Error::Fault(f)) if f.kind == FaultKind::Race), "{r:?}");
            dev.set_sanitizers(Sanitizers::NONE).unwrap();
            racy_reverse::launch(&stream, LaunchConfig::new(1, 64), &x, &mut y).expect("switched off again");
        }
        _ => {
            let Err(Error::InvalidConfig { reason }) = &r else { panic!("{r:?}") };
            assert!(reason.contains("PTX_SANITIZE") && reason.contains("`bogus`"), "{reason}");
            dev.set_sanitizers(Sanitizers::NONE).unwrap();
            racy_reverse::launch(&stream, LaunchConfig::new(1, 64), &x, &mut y).expect("set_sanitizers clears the error");
        }
    }
}

#[test]
fn sanitizer_lists_parse() {
    assert_eq!(Sanitizers::parse("race,init,sync,leak"), Ok(Sanitizers::ALL));
    assert!(Sanitizers::parse("racecheck,initcheck").is_ok());
    assert!(Sanitizers::parse("memcheck").is_err());
}
