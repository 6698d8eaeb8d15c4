//! Row-wise layer normalisation written with iterators and closures: the twin of
//! `layernorm.rs` (same arithmetic in the same order, so the same bits). The row is a
//! sub-slice; its mean is a `sum`, its variance a `map` + `sum` over a closure that captures
//! the mean, and the output row is written through `iter_mut().zip(..).zip(..).zip(..)`. No
//! element access in the loops is checked: an iterator's indices are in bounds by construction
//! (`body_iter::iterator_loops_compile_to_the_index_loops` compares its SASS with the index
//! form's).

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn layernorm_iter(x: &[f32], gamma: &[f32], beta: &[f32], y: &mut [f32], rows: u32, cols: u32) {
    let row = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = cols as usize;
    if row < rows as usize {
        let xs = &x[row * n..row * n + n];
        let mean = xs.iter().sum::<f32>() / n as f32;
        let dev = |v: &f32| v - mean;
        let sq: f32 = xs.iter().map(|v| {
            let d = dev(v);
            d * d
        }).sum();
        let inv = 1.0 / (sq / n as f32 + 1e-5).sqrt();
        let ys = &mut y[row * n..row * n + n];
        for (((o, v), g), b) in ys.iter_mut().zip(xs).zip(gamma).zip(beta) {
            *o = (v - mean) * inv * g + b;
        }
    }
}

pub const PTX: &[(&str, &str)] = &[("layernorm_iter", layernorm_iter::PTX)];
const ROWS: usize = 100;
const COLS: usize = 48;

fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(41);
    (r.f32s(ROWS * COLS, -3.0, 3.0), r.f32s(COLS, 0.5, 1.5), r.f32s(COLS, -0.5, 0.5))
}

fn on_host() -> Vec<f32> {
    let (x, g, b) = inputs();
    let mut y = vec![0.0; ROWS * COLS];
    let o = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes its own row.
    host::run([2, 1, 1], [64, 1, 1], 0, || layernorm_iter(&x, &g, &b, unsafe { o.get() }, ROWS as u32, COLS as u32));
    y
}

pub fn check_host() {
    let (x, g, b) = inputs();
    let y = on_host();
    // Independently, in f64 (as for `layernorm`).
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
    // The index-loop twin computes the same bits.
    let mut twin = vec![0.0; ROWS * COLS];
    let o = host::Disjoint::new(&mut twin);
    // SAFETY: each thread writes its own row.
    host::run([2, 1, 1], [64, 1, 1], 0, || super::layernorm::layernorm(&x, &g, &b, unsafe { o.get() }, ROWS as u32, COLS as u32));
    assert_bits_eq("layernorm_iter against layernorm", &y, &twin);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (x, g, b) = inputs();
    let xb = DeviceBuffer::from_slice(stream, &x)?;
    let gb = DeviceBuffer::from_slice(stream, &g)?;
    let bb = DeviceBuffer::from_slice(stream, &b)?;
    let mut yb = DeviceBuffer::<f32>::zeroed(stream, ROWS * COLS)?;
    layernorm_iter::launch(stream, LaunchConfig::new(2, 64), &xb, &gb, &bb, &mut yb, ROWS as u32, COLS as u32)?;
    assert_bits_eq("layernorm_iter on the device", &yb.to_vec()?, &on_host());
    Ok(())
}
