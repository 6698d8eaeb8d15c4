//! The device heap (guide §3, `malloc`/`free`): allocation from many threads, a heap too small,
//! the heap size set through the runtime, and the host definitions.

use crate::cpu_harness::{arg, Harness};
use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device};

/// Each thread allocates `n` elements, fills them, sums them into `out`, and frees them; a
/// null block (the heap is full) is reported as -1.
#[kernel]
pub fn scratch(n: u32, out: &mut [i64]) {
    let t = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let p = malloc::<i64>(n as usize);
    if p.is_null() {
        out[t] = -1;
        return;
    }
    for k in 0..n as usize {
        unsafe { *p.add(k) = (t * 1000 + k) as i64 };
    }
    let mut sum = 0i64;
    for k in 0..n as usize {
        sum += unsafe { *p.add(k) };
    }
    out[t] = sum;
    unsafe { free(p) };
}

fn want(t: usize, n: usize) -> i64 {
    (0..n).map(|k| (t * 1000 + k) as i64).sum()
}

#[test]
fn every_thread_allocates_and_frees() {
    assemble("scratch", scratch::PTX);
    for (decl, name) in [(ptx_runtime::abi::syscall::MALLOC, "malloc"), (ptx_runtime::abi::syscall::FREE, "free")] {
        assert_eq!(scratch::PTX.matches(decl).count(), 1, "{name}: {}", scratch::PTX);
    }
    let mut k = Harness::new(scratch::PTX);
    let out = k.zeroed::<i64>(128);
    k.launch(scratch::ENTRY, [2, 1, 1], [64, 1, 1], 0, &[arg(50u32), out.slice()]).unwrap();
    let got: Vec<i64> = k.download(out);
    assert!(got.iter().enumerate().all(|(t, &s)| s == want(t, 50)), "{got:?}");
    // Everything was freed: the heap can be resized (it cannot while blocks are live).
    k.dev.set_heap_size(2048).unwrap();
    k.launch(scratch::ENTRY, [2, 1, 1], [64, 1, 1], 0, &[arg(50u32), out.slice()]).unwrap();
    let got: Vec<i64> = k.download(out);
    assert!(got.contains(&-1), "a 2 KiB heap cannot hold 128 blocks of 400 bytes at once: {got:?}");
    assert!(got.iter().enumerate().all(|(t, &s)| s == -1 || s == want(t, 50)));
}

#[test]
fn the_host_definitions_allocate_host_memory() {
    let mut out = vec![0i64; 64];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([2, 1, 1], [32, 1, 1], 0, || scratch(20, unsafe { o.get() }));
    assert!(out.iter().enumerate().all(|(t, &s)| s == want(t, 20)), "{out:?}");
    let p = malloc::<u8>(0);
    assert!(!p.is_null() && (p as usize).is_multiple_of(16));
    unsafe { free(p) };
    assert!(malloc::<u64>(usize::MAX / 4).is_null(), "an impossible size is null, not a panic");
}

#[test]
fn the_runtime_sets_the_heap_size() {
    let d = Device::cpu();
    let before = d.heap_size().unwrap();
    d.set_heap_size(16 << 20).unwrap();
    assert_eq!(d.heap_size().unwrap(), 16 << 20);
    d.set_heap_size(before).unwrap();
    assert_eq!(d.heap_size().unwrap(), before);
}

const NVCC_HEAP: &str = r#"
#include <cstdlib>
extern "C" __global__ void k(long long **out, unsigned long n) {
    long long *p = (long long *)malloc(n * 8);
    out[0] = p;
    free(p);
}
"#;

#[kernel]
pub fn k(out: &mut [*mut i64], n: usize) {
    let p = malloc::<i64>(n);
    out[0] = p;
    unsafe { free(p) };
}

#[test]
fn the_calls_are_nvccs() {
    assemble("heap_k", k::PTX);
    let Some(theirs) = nvcc_ptx("heap_shape", NVCC_HEAP) else { return };
    let calls = |p: &str| -> Vec<String> {
        let s: String = p.chars().filter(|c| !c.is_whitespace()).collect();
        // The heap's calls (ours also has the bounds check's `__assertfail`).
        s.split("call.uni").skip(1).map(|c| c.split(';').next().unwrap().to_owned()).filter(|c| !c.starts_with("__assertfail")).collect()
    };
    assert_eq!(calls(k::PTX), calls(&theirs));
    assert_eq!(calls(k::PTX), ["(retval0),malloc,(param0)", "free,(param0)"]);
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    for decl in [ptx_runtime::abi::syscall::MALLOC, ptx_runtime::abi::syscall::FREE] {
        assert!(squeeze(&theirs).contains(&squeeze(decl)) && k::PTX.contains(decl));
    }
}
