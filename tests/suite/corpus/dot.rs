//! Dot product: each block reduces its grid-stride partial sums in shared memory (a tree of
//! `sync_threads` steps) and writes one partial; the host adds the partials.

use super::{assert_bits_eq, assert_close, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

// Written for blocks of at most 256 threads (the `cache` tile), and declared so, as CUDA's
// `__launch_bounds__(256)` (the twin has it too): a larger block is an `Err` before launch.
#[kernel(launch_bounds(max_threads = 256))]
pub fn dot(x: &[f32], y: &[f32], partial: &mut [f32]) {
    let mut cache = unsafe { shared_array::<f32, 256>() };
    let tid = thread_idx_x() as usize;
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let mut sum = 0.0f32;
    while i < x.len() {
        sum += x[i] * y[i];
        i += stride;
    }
    cache[tid] = sum;
    sync_threads();
    let mut s = block_dim_x() as usize / 2;
    while s > 0 {
        if tid < s {
            cache[tid] = cache[tid] + cache[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_idx_x() as usize] = cache[0];
    }
}

pub const PTX: &[(&str, &str)] = &[("dot", dot::PTX)];
const N: usize = 5000;
const BLOCKS: usize = 6;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(3);
    (r.f32s(N, -1.0, 1.0), r.f32s(N, -1.0, 1.0))
}

fn on_host() -> Vec<f32> {
    let (x, y) = inputs();
    let mut partial = vec![0.0; BLOCKS];
    let out = host::Disjoint::new(&mut partial);
    // SAFETY: thread 0 of each block writes its block's element.
    host::run([BLOCKS as u32, 1, 1], [256, 1, 1], 0, || dot(&x, &y, unsafe { out.get() }));
    partial
}

pub fn check_host() {
    let (x, y) = inputs();
    let want: f64 = x.iter().zip(&y).map(|(a, b)| *a as f64 * *b as f64).sum();
    let got: f32 = on_host().iter().sum();
    assert_close("dot", &[got], &[want as f32], 1e-4);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (x, y) = inputs();
    let (x, y) = (DeviceBuffer::from_slice(stream, &x)?, DeviceBuffer::from_slice(stream, &y)?);
    let mut partial = DeviceBuffer::<f32>::zeroed(stream, BLOCKS)?;
    dot::launch(stream, LaunchConfig::new(BLOCKS as u32, 256), &x, &y, &mut partial)?;
    assert_bits_eq("dot partials on the device", &partial.to_vec()?, &on_host());
    Ok(())
}
