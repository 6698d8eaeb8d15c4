//! A 5-tap smoothing filter over rows, one thread per row, written with `windows` and `zip`:
//! each output is the window zipped with the taps (a local array), multiplied and summed;
//! each row's peak is a `max_by` over the outputs and its energy a `chain` of the two row
//! ends (the samples the filter does not reach). The host result equals an index-loop
//! reference in the same order, bit for bit, and the device equals the host.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn window_filter(x: &[f32], y: &mut [f32], edge: &mut [f32], rows: u32, cols: u32) {
    let row = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = cols as usize;
    let m = n - 4;
    if row < rows as usize {
        let taps = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
        let xs = &x[row * n..row * n + n];
        let ys = &mut y[row * m..row * m + m];
        for (o, w) in ys.iter_mut().zip(xs.windows(5)) {
            *o = w.iter().zip(&taps).map(|(a, b)| a * b).sum();
        }
        let peak = ys.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).copied().unwrap_or(0.0);
        let ends: f32 = xs[..2].iter().chain(xs[n - 2..].iter()).map(|v| v * v).sum();
        edge[row * 2] = peak;
        edge[row * 2 + 1] = ends;
    }
}

pub const PTX: &[(&str, &str)] = &[("window_filter", window_filter::PTX)];
const ROWS: usize = 50;
const COLS: usize = 29;

fn input() -> Vec<f32> {
    Rng::new(91).f32s(ROWS * COLS, -2.0, 2.0)
}

fn on_host() -> (Vec<f32>, Vec<f32>) {
    let x = input();
    let (mut y, mut e) = (vec![0.0; ROWS * (COLS - 4)], vec![0.0; ROWS * 2]);
    let (o, oe) = (host::Disjoint::new(&mut y), host::Disjoint::new(&mut e));
    // SAFETY: each thread writes its own row and its own two edge values.
    host::run([2, 1, 1], [32, 1, 1], 0, || window_filter(&x, unsafe { o.get() }, unsafe { oe.get() }, ROWS as u32, COLS as u32));
    (y, e)
}

pub fn check_host() {
    let x = input();
    let (y, e) = on_host();
    let taps = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
    let m = COLS - 4;
    let (mut want, mut want_e) = (vec![0.0f32; ROWS * m], vec![0.0f32; ROWS * 2]);
    for r in 0..ROWS {
        let mut peak = f32::NEG_INFINITY;
        for j in 0..m {
            let mut s = -0.0f32;
            for k in 0..5 {
                s += x[r * COLS + j + k] * taps[k];
            }
            want[r * m + j] = s;
            peak = peak.max(s);
        }
        let mut ends = -0.0f32;
        for j in [0, 1, COLS - 2, COLS - 1] {
            ends += x[r * COLS + j] * x[r * COLS + j];
        }
        want_e[r * 2] = peak;
        want_e[r * 2 + 1] = ends;
    }
    assert_bits_eq("window_filter on the host", &y, &want);
    assert_bits_eq("window_filter edges on the host", &e, &want_e);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut y = DeviceBuffer::<f32>::zeroed(stream, ROWS * (COLS - 4))?;
    let mut e = DeviceBuffer::<f32>::zeroed(stream, ROWS * 2)?;
    window_filter::launch(stream, LaunchConfig::new(2, 32), &x, &mut y, &mut e, ROWS as u32, COLS as u32)?;
    let (hy, he) = on_host();
    assert_bits_eq("window_filter on the device", &y.to_vec()?, &hy);
    assert_bits_eq("window_filter edges on the device", &e.to_vec()?, &he);
    Ok(())
}
