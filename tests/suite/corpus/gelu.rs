//! GELU activation, the tanh form (`0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`), one element
//! per thread: a kernel whose cost is one `f32` transcendental function. `x.tanh()` is CUDA's
//! `tanhf` as nvcc compiles it (`device::math::cuda`), so the device and the host (`std`'s
//! `tanh`) agree within a few ulp, not bit for bit.

use super::{assert_close, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn gelu(x: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        let v = x[i];
        let inner = 0.797_884_6 * (v + 0.044_715 * v * v * v);
        y[i] = 0.5 * v * (1.0 + inner.tanh());
    }
}

pub const PTX: &[(&str, &str)] = &[("gelu", gelu::PTX)];
const N: usize = 3000;

fn input() -> Vec<f32> {
    Rng::new(41).f32s(N, -6.0, 6.0)
}

fn on_host() -> Vec<f32> {
    let x = input();
    let mut y = vec![0.0; N];
    let o = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes its own element.
    host::run([12, 1, 1], [256, 1, 1], 0, || gelu(&x, unsafe { o.get() }));
    y
}

pub fn check_host() {
    let want: Vec<f32> = input()
        .iter()
        .map(|&v| {
            let v = v as f64;
            (0.5 * v * (1.0 + (0.797_884_560_802_865_4 * (v + 0.044_715 * v * v * v)).tanh())) as f32
        })
        .collect();
    assert_close("gelu", &on_host(), &want, 1e-6);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut y = DeviceBuffer::<f32>::zeroed(stream, N)?;
    gelu::launch(stream, LaunchConfig::new(12, 256), &x, &mut y)?;
    // tanhf is within 2 ulp of the exact result, the host's tanh within 1.
    assert_close("gelu on the device", &y.to_vec()?, &on_host(), 1e-6);
    Ok(())
}
