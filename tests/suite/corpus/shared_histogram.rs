//! Histogram of bytes into 256 bins with shared-memory atomics: each block clears its shared
//! bins, counts its grid-stride share into them (block scope), then adds them to the global
//! bins (device scope). The counts are exact whatever the order of the atomics. (The paths are
//! spelled out so that `cargo xtask bench-compile` can copy the kernel on its own.)

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn shared_histogram(data: &[u32], bins: &mut [u32]) {
    let mut local = unsafe { shared_array::<u32, 256>() };
    let t = thread_idx_x() as usize;
    let threads = block_dim_x() as usize;
    let mut b = t;
    while b < 256 {
        local[b] = 0;
        b += threads;
    }
    sync_threads();
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = (block_idx_x() * block_dim_x()) as usize + t;
    while i < data.len() {
        let bin = (data[i] & 255) as usize;
        unsafe { atomic::fetch_add(&mut local[bin], 1, core::sync::atomic::Ordering::Relaxed, atomic::Scope::Block) };
        i += stride;
    }
    sync_threads();
    let mut b = t;
    while b < 256 {
        unsafe { atomic::fetch_add(&mut bins[b], local[b], core::sync::atomic::Ordering::Relaxed, atomic::Scope::Device) };
        b += threads;
    }
}

pub const PTX: &[(&str, &str)] = &[("shared_histogram", shared_histogram::PTX)];
const N: usize = 20_000;
const BINS: usize = 256;

fn input() -> Vec<u32> {
    let mut r = Rng::new(23);
    // Skewed towards low bins, so that threads of a warp collide on the same bin.
    (0..N).map(|_| { let v = r.u32(); if v & 3 == 0 { v >> 28 } else { v >> 8 } }).collect()
}

fn on_host() -> Vec<u32> {
    let d = input();
    let mut out = vec![0; BINS];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: the bins are only updated atomically.
    host::run([4, 1, 1], [128, 1, 1], 0, || shared_histogram(&d, unsafe { o.get() }));
    out
}

pub fn check_host() {
    let mut want = vec![0u32; BINS];
    for v in input() {
        want[(v & 255) as usize] += 1;
    }
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let d = DeviceBuffer::from_slice(stream, &input())?;
    let mut bins = DeviceBuffer::<u32>::zeroed(stream, BINS)?;
    shared_histogram::launch(stream, LaunchConfig::new(6, 96), &d, &mut bins)?;
    assert_eq!(bins.to_vec()?, on_host());
    Ok(())
}
