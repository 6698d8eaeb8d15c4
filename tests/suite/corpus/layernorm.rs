//! Row-wise layer normalisation, one thread per row: the row's mean, its variance, then
//! `(x - mean) / sqrt(var + eps) · gamma + beta` per element. Three passes over the row, each
//! index checked against its slice.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn layernorm(x: &[f32], gamma: &[f32], beta: &[f32], y: &mut [f32], rows: u32, cols: u32) {
    let row = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = cols as usize;
    if row < rows as usize {
        let base = row * n;
        let mut sum = 0.0f32;
        for j in 0..n {
            sum += x[base + j];
        }
        let mean = sum / n as f32;
        let mut sq = 0.0f32;
        for j in 0..n {
            let d = x[base + j] - mean;
            sq += d * d;
        }
        let inv = 1.0 / (sq / n as f32 + 1e-5).sqrt();
        for j in 0..n {
            y[base + j] = (x[base + j] - mean) * inv * gamma[j] + beta[j];
        }
    }
}

pub const PTX: &[(&str, &str)] = &[("layernorm", layernorm::PTX)];
pub(super) const ROWS: usize = 100;
pub(super) const COLS: usize = 48;

/// The kernels' signature: this one's and `layernorm_iter`'s.
pub(super) type Layernorm = fn(&[f32], &[f32], &[f32], &mut [f32], u32, u32);

pub(super) fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(41);
    (r.f32s(ROWS * COLS, -3.0, 3.0), r.f32s(COLS, 0.5, 1.5), r.f32s(COLS, -0.5, 0.5))
}

/// `kernel` run on the host over the inputs, two blocks of 64 threads.
pub(super) fn on_host(kernel: Layernorm) -> Vec<f32> {
    let (x, g, b) = inputs();
    let mut y = vec![0.0; ROWS * COLS];
    let o = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes its own row.
    host::run([2, 1, 1], [64, 1, 1], 0, || kernel(&x, &g, &b, unsafe { o.get() }, ROWS as u32, COLS as u32));
    y
}

/// Checks `y` against the inputs independently, in f64: every row has mean ≈ beta-weighted 0
/// and unit variance before the affine step, so the f32 results agree to a few ulps of their
/// size.
pub(super) fn check_rows(y: &[f32]) {
    let (x, g, b) = inputs();
    for r in 0..ROWS {
        let row = &x[r * COLS..(r + 1) * COLS];
        let mean = row.iter().map(|&v| v as f64).sum::<f64>() / COLS as f64;
        let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / COLS as f64;
        for j in 0..COLS {
            let want = (row[j] as f64 - mean) / (var + 1e-5).sqrt() * g[j] as f64 + b[j] as f64;
            let got = y[r * COLS + j] as f64;
            assert!((got - want).abs() <= 1e-5 * (1.0 + want.abs()), "row {r} col {j}: {got} != {want}");
        }
    }
}

pub fn check_host() {
    check_rows(&on_host(layernorm));
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (x, g, b) = inputs();
    let xb = DeviceBuffer::from_slice(stream, &x)?;
    let gb = DeviceBuffer::from_slice(stream, &g)?;
    let bb = DeviceBuffer::from_slice(stream, &b)?;
    let mut yb = DeviceBuffer::<f32>::zeroed(stream, ROWS * COLS)?;
    layernorm::launch(stream, LaunchConfig::new(2, 64), &xb, &gb, &bb, &mut yb, ROWS as u32, COLS as u32)?;
    assert_bits_eq("layernorm on the device", &yb.to_vec()?, &on_host(layernorm));
    Ok(())
}
