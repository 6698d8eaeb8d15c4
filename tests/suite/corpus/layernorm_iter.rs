//! Row-wise layer normalisation written with iterators and closures: the twin of
//! `layernorm.rs` (same arithmetic in the same order, so the same bits). The row is a
//! sub-slice; its mean is a `sum`, its variance a `map` + `sum` over a closure that captures
//! the mean, and the output row is written through `iter_mut().zip(..).zip(..).zip(..)`. No
//! element access in the loops is checked: an iterator's indices are in bounds by construction
//! (`body_iter::iterator_loops_compile_to_the_index_loops` compares its SASS with the index
//! form's).

use super::assert_bits_eq;
use super::layernorm::{check_rows, inputs, on_host, COLS, ROWS};
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
pub fn check_host() {
    let y = on_host(layernorm_iter);
    check_rows(&y);
    // The index-loop twin computes the same bits.
    assert_bits_eq("layernorm_iter against layernorm", &y, &on_host(super::layernorm::layernorm));
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (x, g, b) = inputs();
    let xb = DeviceBuffer::from_slice(stream, &x)?;
    let gb = DeviceBuffer::from_slice(stream, &g)?;
    let bb = DeviceBuffer::from_slice(stream, &b)?;
    let mut yb = DeviceBuffer::<f32>::zeroed(stream, ROWS * COLS)?;
    layernorm_iter::launch(stream, LaunchConfig::new(2, 64), &xb, &gb, &bb, &mut yb, ROWS as u32, COLS as u32)?;
    assert_bits_eq("layernorm_iter on the device", &yb.to_vec()?, &on_host(layernorm_iter));
    Ok(())
}
