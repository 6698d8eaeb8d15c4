//! 1-D convolution with a 9-tap filter ("valid": `y[i] = Σ w[k]·x[i + k]`, so
//! `x.len() = y.len() + 8`), one output per thread; the filter's length is the loop's constant
//! trip count.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn conv1d(x: &[f32], w: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        let mut acc = 0.0f32;
        for k in 0..9 {
            acc += w[k] * x[i + k];
        }
        y[i] = acc;
    }
}

pub const PTX: &[(&str, &str)] = &[("conv1d", conv1d::PTX)];
const N: usize = 1000;
const TAPS: usize = 9;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(31);
    (r.f32s(N + TAPS - 1, -1.0, 1.0), r.f32s(TAPS, -0.5, 0.5))
}

fn on_host() -> Vec<f32> {
    let (x, w) = inputs();
    let mut y = vec![0.0; N];
    let o = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes its own element.
    host::run([4, 1, 1], [256, 1, 1], 0, || conv1d(&x, &w, unsafe { o.get() }));
    y
}

pub fn check_host() {
    let (x, w) = inputs();
    // The same sum in the same order, each product and sum rounded to f32 as the kernel does.
    let want: Vec<f32> = (0..N).map(|i| (0..TAPS).fold(0.0f32, |acc, k| acc + w[k] * x[i + k])).collect();
    assert_bits_eq("conv1d on the host", &on_host(), &want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (x, w) = inputs();
    let xb = DeviceBuffer::from_slice(stream, &x)?;
    let wb = DeviceBuffer::from_slice(stream, &w)?;
    let mut yb = DeviceBuffer::<f32>::zeroed(stream, N)?;
    conv1d::launch(stream, LaunchConfig::for_num_elems(N as u32), &xb, &wb, &mut yb)?;
    assert_bits_eq("conv1d on the device", &yb.to_vec()?, &on_host());
    Ok(())
}
