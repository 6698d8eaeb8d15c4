//! Row softmax written with iterators, one thread per row: the maximum is a `max_by` over
//! `total_cmp`, the sum of exponentials a `map` + `sum` over a closure that captures it, and
//! the output row is written through `iter_mut().zip(..)`. `exp` on the device is the accurate
//! device function, the host's `std`'s: they agree within a few ulp, not bit for bit (as for
//! `softmax`).

use super::{assert_close, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn softmax_iter(x: &[f32], y: &mut [f32], rows: u32, cols: u32) {
    let row = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = cols as usize;
    if row < rows as usize {
        let xs = &x[row * n..row * n + n];
        let m = xs.iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap_or(0.0);
        let e = |v: &f32| (v - m).exp();
        let total: f32 = xs.iter().map(e).sum();
        for (o, v) in y[row * n..row * n + n].iter_mut().zip(xs) {
            *o = e(v) / total;
        }
    }
}

pub const PTX: &[(&str, &str)] = &[("softmax_iter", softmax_iter::PTX)];
const ROWS: usize = 70;
const COLS: usize = 37;

fn input() -> Vec<f32> {
    Rng::new(57).f32s(ROWS * COLS, -8.0, 8.0)
}

fn on_host() -> Vec<f32> {
    let x = input();
    let mut y = vec![0.0; ROWS * COLS];
    let o = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes its own row.
    host::run([3, 1, 1], [32, 1, 1], 0, || softmax_iter(&x, unsafe { o.get() }, ROWS as u32, COLS as u32));
    y
}

pub fn check_host() {
    let x = input();
    let y = on_host();
    // Independently, in f64.
    let mut want = vec![0.0f32; ROWS * COLS];
    for r in 0..ROWS {
        let row = &x[r * COLS..(r + 1) * COLS];
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for j in 0..COLS {
            want[r * COLS + j] = ((row[j] as f64 - m).exp() / s) as f32;
        }
    }
    assert_close("softmax_iter on the host", &y, &want, 1e-5);
    for r in 0..ROWS {
        let s: f32 = y[r * COLS..(r + 1) * COLS].iter().sum();
        assert!((s - 1.0).abs() < 1e-5, "row {r} sums to {s}");
    }
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut y = DeviceBuffer::<f32>::zeroed(stream, ROWS * COLS)?;
    softmax_iter::launch(stream, LaunchConfig::new(3, 32), &x, &mut y, ROWS as u32, COLS as u32)?;
    // The device's `exp` is within 2 ulp, the host's within 1 (see `softmax`).
    assert_close("softmax_iter on the device", &y.to_vec()?, &on_host(), 4e-7);
    Ok(())
}
