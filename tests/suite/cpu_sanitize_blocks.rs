//! Synccheck's divergent barrier and initcheck of shared memory, on `#[kernel]` Rust kernels:
//! each planted bug is reported at its Rust line only with its sanitizer on, and each correct
//! twin (the barrier outside the branch, the early return before it, every slot written)
//! passes.

use crate::tools::assemble;
use ptx_runtime::cpu::Sanitizers;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, Error, FaultKind, LaunchConfig, Stream};

const INIT: Sanitizers = Sanitizers { init: true, ..Sanitizers::NONE };
const SYNC: Sanitizers = Sanitizers { sync: true, ..Sanitizers::NONE };

fn line_of(what: &str) -> u32 {
    let marker = format!("// LINE: {what}");
    include_str!("cpu_sanitize_blocks.rs").lines().position(|l| l.trim_end().ends_with(&marker)).expect("marker") as u32 + 1
}

const FILE: &str = "tests/suite/cpu_sanitize_blocks.rs";

/// A barrier inside a branch only the first half-warp takes: threads 16.. skip it, run on to
/// the store and exit while 0..15 wait.
#[kernel]
pub fn half_barrier(x: &[f32], y: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let mut s = unsafe { shared_array::<f32, 64>() };
    s[t] = x[t];
    if t < 16 {
        sync_threads(); // LINE: half
    }
    y[t] = s[t] * 2.0; // LINE: after
}

/// The twin: every thread reaches the barrier.
#[kernel]
pub fn whole_barrier(x: &[f32], y: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let mut s = unsafe { shared_array::<f32, 64>() };
    s[t] = x[t];
    sync_threads();
    y[t] = s[t] * 2.0;
}

/// The common early return: threads past `n` exit before the barrier, as on a GPU.
#[kernel]
pub fn early_return(x: &[f32], y: &mut [f32], n: u32) {
    let t = thread_idx_x() as usize;
    if t >= n as usize {
        return;
    }
    let mut s = unsafe { shared_array::<f32, 64>() };
    s[t] = x[t];
    sync_threads();
    y[t] = s[n as usize - 1 - t];
}

/// Reads a slot of shared memory no thread wrote: only the first 32 of 64 write.
#[kernel]
pub fn half_written(y: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let mut s = unsafe { shared_array::<f32, 64>() };
    if t < 32 {
        s[t] = t as f32;
    }
    sync_threads();
    y[t] = s[63 - t]; // LINE: unwritten
}

/// The twin: every slot written before the barrier.
#[kernel]
pub fn all_written(y: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let mut s = unsafe { shared_array::<f32, 64>() };
    s[t] = t as f32;
    sync_threads();
    y[t] = s[63 - t];
}

fn setup() -> (Device, Stream, DeviceBuffer<f32>, DeviceBuffer<f32>) {
    let dev = Device::new_cpu();
    let stream = dev.new_stream().unwrap();
    let x = DeviceBuffer::from_slice(&stream, &(0..64).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let y = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    (dev, stream, x, y)
}

#[test]
fn synccheck_finds_a_barrier_in_divergent_code_at_its_rust_line() {
    for (name, ptx) in [("half_barrier", half_barrier::PTX), ("whole_barrier", whole_barrier::PTX), ("early_return", early_return::PTX)] {
        assemble(name, ptx);
    }
    let (dev, stream, x, mut y) = setup();
    let cfg = LaunchConfig::new(1, 32);
    half_barrier::launch(&stream, cfg, &x, &mut y).expect("off by default: exited threads do not hold a barrier up");
    dev.set_sanitizers(SYNC).unwrap();
    whole_barrier::launch(&stream, cfg, &x, &mut y).expect("every thread reaches the barrier");
    early_return::launch(&stream, LaunchConfig::new(1, 64), &x, &mut y, 40).expect("threads exit before the barrier");
    assert_eq!(y.to_vec().unwrap()[..40], (0..40).rev().map(|i| i as f32).collect::<Vec<_>>()[..]);
    match half_barrier::launch(&stream, cfg, &x, &mut y) {
        Err(Error::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::BarrierDivergence, "{f}");
            let src = f.source.as_ref().expect("a Rust location");
            assert_eq!((src.file.as_str(), src.line), (FILE, line_of("half")), "the barrier's line: {f}");
            assert!(f.detail.starts_with("synccheck: divergent barrier"), "{f}");
            // The thread that skipped it, and where it went instead.
            assert!(f.detail.contains(&format!("{FILE}:{}:", line_of("after"))), "{f}");
            assert!(f.to_string().starts_with(&format!("{FILE}:{}:", line_of("half"))), "{f}");
        }
        other => panic!("expected a synccheck report, got {other:?}"),
    }
}

#[test]
fn initcheck_finds_reads_of_shared_memory_never_written() {
    assemble("half_written", half_written::PTX);
    assemble("all_written", all_written::PTX);
    let (dev, stream, _x, mut y) = setup();
    let cfg = LaunchConfig::new(2, 64);
    half_written::launch(&stream, cfg, &mut y).expect("off by default");
    dev.set_sanitizers(INIT).unwrap();
    // Every block's shared memory starts unwritten: two blocks, each writes all of it.
    all_written::launch(&stream, cfg, &mut y).expect("every slot written before it is read");
    assert_eq!(y.to_vec().unwrap(), (0..64).rev().map(|i| i as f32).collect::<Vec<_>>());
    match half_written::launch(&stream, cfg, &mut y) {
        Err(Error::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::Uninitialized, "{f}");
            assert_eq!(f.thread, [0, 0, 0], "thread 0 reads s[63] first: {f}");
            let src = f.source.as_ref().expect("a Rust location");
            assert_eq!((src.file.as_str(), src.line), (FILE, line_of("unwritten")), "{f}");
            assert!(f.detail.contains("shared memory at offset 0xfc"), "{f}");
        }
        other => panic!("expected an initcheck report, got {other:?}"),
    }
}
