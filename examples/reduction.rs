//! Sum of 2^20 floats: each block reduces its grid-stride partial sums in shared memory, then
//! finishes with warp shuffles; the host adds the per-block partials.
//!
//! ```sh
//! cargo run --release --example reduction
//! ```

use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

const BLOCK: usize = 256;

#[kernel]
pub fn block_sum(x: &[f32], partial: &mut [f32]) {
    let mut cache = unsafe { shared_array::<f32, BLOCK>() };
    let tid = thread_idx_x() as usize;
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let mut sum = 0.0f32;
    while i < x.len() {
        sum += x[i];
        i += stride;
    }
    cache[tid] = sum;
    sync_threads();
    // Tree in shared memory down to one warp...
    let mut s = BLOCK / 2;
    while s >= 32 {
        if tid < s {
            cache[tid] += cache[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    // ...then the last 32 values with shuffles, inside the first warp.
    if tid < 32 {
        let mut v = cache[tid];
        let mut offset = 16;
        while offset > 0 {
            v += shfl_down_sync(0xffff_ffff, v, offset);
            offset /= 2;
        }
        if tid == 0 {
            partial[block_idx_x() as usize] = v;
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> ptx_runtime::Result<()> {
    let device = Device::select()?;
    println!("backend: {} ({})", device.kind(), device.name());
    let stream = device.stream();

    let n: usize = 1 << 20;
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
    let blocks = 120;
    let xd = DeviceBuffer::from_slice(&stream, &x)?;
    let mut partial = DeviceBuffer::<f32>::zeroed(&stream, blocks)?;
    block_sum::launch(&stream, LaunchConfig::new(blocks as u32, BLOCK as u32), &xd, &mut partial)?;
    let got: f64 = partial.to_vec()?.iter().map(|&p| p as f64).sum();

    // The summation order is fixed (grid-stride, then the shared-memory tree, then the
    // shuffle tree), so the host replays it exactly and the partials agree bit for bit.
    let want = host_partials(&x, blocks);
    let got_partials = partial.to_vec()?;
    let wrong = got_partials.iter().zip(&want).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    println!("sum of {n} floats: {got:.6} (f64 sum of the inputs: {exact:.6}); {wrong} of {blocks} block partials differ from the host");
    if wrong != 0 {
        eprintln!("FAILED");
        std::process::exit(1);
    }
    println!("verified: every block's partial equals the host's, bit for bit");
    Ok(())
}

/// The kernel's arithmetic, in the kernel's order.
fn host_partials(x: &[f32], blocks: usize) -> Vec<f32> {
    let stride = blocks * BLOCK;
    (0..blocks)
        .map(|b| {
            let mut cache: Vec<f32> = (0..BLOCK).map(|t| x.iter().skip(b * BLOCK + t).step_by(stride).fold(0.0f32, |s, v| s + v)).collect();
            let mut s = BLOCK / 2;
            while s >= 32 {
                for t in 0..s {
                    cache[t] += cache[t + s];
                }
                s /= 2;
            }
            let mut v: Vec<f32> = cache[..32].to_vec();
            let mut offset = 16;
            while offset > 0 {
                // shfl_down: lane t reads lane t + offset, or keeps its own value past lane 31.
                v = (0..32).map(|t| v[t] + if t + offset < 32 { v[t + offset] } else { v[t] }).collect();
                offset /= 2;
            }
            v[0]
        })
        .collect()
}
