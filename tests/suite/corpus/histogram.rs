//! Per-thread histogram: each thread counts 16 bins of its grid-stride share in a local
//! array indexed at run time (`.local` memory) and writes them out; the host adds them up.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn histogram(data: &[u8], counts: &mut [u32]) {
    let t = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let threads = (grid_dim_x() * block_dim_x()) as usize;
    let mut bins = [0u32; 16];
    let mut i = t;
    while i < data.len() {
        bins[(data[i] >> 4) as usize] += 1;
        i += threads;
    }
    for b in 0..16 {
        counts[t * 16 + b] = bins[b];
    }
}

pub const PTX: &[(&str, &str)] = &[("histogram", histogram::PTX)];
const N: usize = 10_000;
const THREADS: usize = 128;

fn input() -> Vec<u8> {
    let mut r = Rng::new(7);
    (0..N).map(|_| (r.u32() >> 5) as u8).collect()
}

fn on_host() -> Vec<u32> {
    let d = input();
    let mut out = vec![0; THREADS * 16];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each thread writes its own 16 counts.
    host::run([2, 1, 1], [64, 1, 1], 0, || histogram(&d, unsafe { o.get() }));
    out
}

pub fn check_host() {
    let mut want = [0u32; 16];
    for v in input() {
        want[(v >> 4) as usize] += 1;
    }
    let per_thread = on_host();
    let mut got = [0u32; 16];
    for t in 0..THREADS {
        for b in 0..16 {
            got[b] += per_thread[t * 16 + b];
        }
    }
    assert_eq!(got, want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let d = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<u32>::zeroed(stream, THREADS * 16)?;
    histogram::launch(stream, LaunchConfig::new(2, 64), &d, &mut out)?;
    assert_eq!(out.to_vec()?, on_host());
    Ok(())
}
