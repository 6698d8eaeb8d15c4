//! SAXPY: `y = a·x + y` with a grid-stride loop. `a * x + y` is a multiply and an add, each
//! rounded (`mul.rn`, `add.rn`): no fused multiply-add unless written as `mul_add`.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    while i < y.len() {
        y[i] = a * x[i] + y[i];
        i += stride;
    }
}

/// The fused variant: one rounding per element.
#[kernel]
pub fn saxpy_fma(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        y[i] = a.mul_add(x[i], y[i]);
    }
}

pub const PTX: &[(&str, &str)] = &[("saxpy", saxpy::PTX), ("saxpy_fma", saxpy_fma::PTX)];
const N: usize = 3000;
const A: f32 = 1.7;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(2);
    (r.f32s(N, -10.0, 10.0), r.f32s(N, -10.0, 10.0))
}

fn on_host() -> (Vec<f32>, Vec<f32>) {
    let (x, y0) = inputs();
    let mut y = y0.clone();
    let out = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes elements i, i + stride, ... of its own.
    host::run([4, 1, 1], [64, 1, 1], 0, || saxpy(A, &x, unsafe { out.get() }));
    let mut z = y0;
    let out = host::Disjoint::new(&mut z);
    // SAFETY: one element per thread.
    host::run([12, 1, 1], [256, 1, 1], 0, || saxpy_fma(A, &x, unsafe { out.get() }));
    (y, z)
}

pub fn check_host() {
    let (x, y0) = inputs();
    let (y, z) = on_host();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| A * x + y).collect();
    assert_bits_eq("saxpy", &y, &want);
    let fused: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| A.mul_add(*x, *y)).collect();
    assert_bits_eq("saxpy_fma", &z, &fused);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (x, y0) = inputs();
    let xb = DeviceBuffer::from_slice(stream, &x)?;
    let mut y = DeviceBuffer::from_slice(stream, &y0)?;
    saxpy::launch(stream, LaunchConfig::new(4, 64), A, &xb, &mut y)?;
    let mut z = DeviceBuffer::from_slice(stream, &y0)?;
    saxpy_fma::launch(stream, LaunchConfig::new(12, 256), A, &xb, &mut z)?;
    let (hy, hz) = on_host();
    assert_bits_eq("saxpy on the device", &y.to_vec()?, &hy);
    assert_bits_eq("saxpy_fma on the device", &z.to_vec()?, &hz);
    Ok(())
}
