//! Block-wide inclusive prefix sum (Hillis–Steele, double-buffered in shared memory): each
//! block scans its 256 elements.

use super::Rng;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn scan(data: &[u32], out: &mut [u32]) {
    let mut buf = unsafe { shared_array::<u32, 512>() };
    let tid = thread_idx_x() as usize;
    let n = block_dim_x() as usize;
    let base = block_idx_x() as usize * n;
    let mut pout = 0usize;
    buf[tid] = if base + tid < data.len() { data[base + tid] } else { 0 };
    sync_threads();
    let mut offset = 1;
    while offset < n {
        pout = 1 - pout;
        let pin = 1 - pout;
        let v = if tid >= offset { buf[pin * n + tid] + buf[pin * n + tid - offset] } else { buf[pin * n + tid] };
        buf[pout * n + tid] = v;
        sync_threads();
        offset *= 2;
    }
    if base + tid < out.len() {
        out[base + tid] = buf[pout * n + tid];
    }
}

pub const PTX: &[(&str, &str)] = &[("scan", scan::PTX)];
const N: usize = 1000;

fn input() -> Vec<u32> {
    let mut r = Rng::new(6);
    (0..N).map(|_| r.u32() % 1000).collect()
}

fn on_host() -> Vec<u32> {
    let d = input();
    let mut out = vec![0; N];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([4, 1, 1], [256, 1, 1], 0, || scan(&d, unsafe { o.get() }));
    out
}

pub fn check_host() {
    let d = input();
    let mut want = vec![0; N];
    for (b, chunk) in d.chunks(256).enumerate() {
        let mut acc = 0;
        for (i, v) in chunk.iter().enumerate() {
            acc += v;
            want[b * 256 + i] = acc;
        }
    }
    assert_eq!(on_host(), want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let d = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<u32>::zeroed(stream, N)?;
    scan::launch(stream, LaunchConfig::new(4, 256), &d, &mut out)?;
    assert_eq!(out.to_vec()?, on_host());
    Ok(())
}
