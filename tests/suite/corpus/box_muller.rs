//! Normal samples from uniform ones by the Box–Muller transform (`r = √(−2·ln u₁)`,
//! `θ = 2π·u₂`, `(r·cos θ, r·sin θ)`), one pair per thread: `ln`, `sqrt` and `sin_cos` on
//! `f32`, CUDA's `logf` and `sincosf` as nvcc compiles them (`device::math::cuda`: one
//! reduction for both, as nvcc shares it between the twin's `sinf` and `cosf`), so the device
//! and the host (`std`'s functions) agree within a few ulp.

use super::{assert_close, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn box_muller(u: &[f32], z: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if 2 * i + 1 < z.len() {
        let (u1, u2) = (u[2 * i], u[2 * i + 1]);
        let r = (-2.0 * u1.ln()).sqrt();
        let (sin, cos) = (6.283_185_5 * u2).sin_cos();
        z[2 * i] = r * cos;
        z[2 * i + 1] = r * sin;
    }
}

pub const PTX: &[(&str, &str)] = &[("box_muller", box_muller::PTX)];
const N: usize = 4000;

fn input() -> Vec<f32> {
    // u₁ in (0, 1]: ln 0 would be −∞.
    Rng::new(43).f32s(N, 1e-7, 1.0)
}

fn on_host() -> Vec<f32> {
    let u = input();
    let mut z = vec![0.0; N];
    let o = host::Disjoint::new(&mut z);
    // SAFETY: each thread writes its own pair.
    host::run([8, 1, 1], [256, 1, 1], 0, || box_muller(&u, unsafe { o.get() }));
    z
}

pub fn check_host() {
    let u = input();
    let mut want = vec![0.0f32; N];
    for i in 0..N / 2 {
        let r = (-2.0 * (u[2 * i] as f64).ln()).sqrt();
        let theta = (6.283_185_5f32 * u[2 * i + 1]) as f64;
        want[2 * i] = (r * theta.cos()) as f32;
        want[2 * i + 1] = (r * theta.sin()) as f32;
    }
    assert_close("box_muller", &on_host(), &want, 1e-6);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let u = DeviceBuffer::from_slice(stream, &input())?;
    let mut z = DeviceBuffer::<f32>::zeroed(stream, N)?;
    box_muller::launch(stream, LaunchConfig::new(8, 256), &u, &mut z)?;
    // logf, sinf and cosf are within 1–2 ulp of the exact results, std's within 1.
    assert_close("box_muller on the device", &z.to_vec()?, &on_host(), 2e-6);
    Ok(())
}
