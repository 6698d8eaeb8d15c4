//! Row softmax: one block per row; the row maximum and the sum of exponentials are reduced in
//! shared memory. `exp` is nvcc's inline `expf` (2 ulp; see docs/body-compiler.md); the host
//! run of the body uses `std`'s `exp`, so device and host agree within the documented ulp
//! bound rather than bit for bit.

use super::{assert_close, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

// Written for blocks of at most 128 threads (the `red` tile), and declared so, as CUDA's
// `__launch_bounds__(128)` (the twin has it too): a larger block is an `Err` before launch.
#[kernel(launch_bounds(max_threads = 128))]
pub fn softmax(x: &[f32], y: &mut [f32], cols: u32) {
    let mut red = unsafe { shared_array::<f32, 128>() };
    let row = block_idx_x() as usize;
    let tid = thread_idx_x() as usize;
    let n = cols as usize;
    let threads = block_dim_x() as usize;
    let base = row * n;
    let mut m = f32::NEG_INFINITY;
    let mut j = tid;
    while j < n {
        m = m.max(x[base + j]);
        j += threads;
    }
    red[tid] = m;
    sync_threads();
    let mut s = threads / 2;
    while s > 0 {
        if tid < s {
            red[tid] = red[tid].max(red[tid + s]);
        }
        sync_threads();
        s /= 2;
    }
    let row_max = red[0];
    sync_threads();
    let mut sum = 0.0f32;
    j = tid;
    while j < n {
        let e = (x[base + j] - row_max).exp();
        y[base + j] = e;
        sum += e;
        j += threads;
    }
    red[tid] = sum;
    sync_threads();
    s = threads / 2;
    while s > 0 {
        if tid < s {
            red[tid] = red[tid] + red[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    let total = red[0];
    j = tid;
    while j < n {
        y[base + j] = y[base + j] / total;
        j += threads;
    }
}

pub const PTX: &[(&str, &str)] = &[("softmax", softmax::PTX)];
const ROWS: usize = 5;
const COLS: usize = 300;

fn input() -> Vec<f32> {
    Rng::new(12).f32s(ROWS * COLS, -8.0, 8.0)
}

fn on_host() -> Vec<f32> {
    let x = input();
    let mut y = vec![0.0; ROWS * COLS];
    let o = host::Disjoint::new(&mut y);
    // SAFETY: each element is written by one thread (between barriers).
    host::run([ROWS as u32, 1, 1], [128, 1, 1], 0, || softmax(&x, unsafe { o.get() }, COLS as u32));
    y
}

pub fn check_host() {
    let x = input();
    let mut want = vec![0.0f32; ROWS * COLS];
    for r in 0..ROWS {
        let row = &x[r * COLS..(r + 1) * COLS];
        let m = row.iter().copied().fold(f64::NEG_INFINITY, |a, b| a.max(b as f64));
        let s: f64 = row.iter().map(|v| (*v as f64 - m).exp()).sum();
        for c in 0..COLS {
            want[r * COLS + c] = ((row[c] as f64 - m).exp() / s) as f32;
        }
    }
    let got = on_host();
    assert_close("softmax", &got, &want, 1e-6);
    for r in 0..ROWS {
        let s: f32 = got[r * COLS..(r + 1) * COLS].iter().sum();
        assert!((s - 1.0).abs() < 1e-5, "row {r} sums to {s}");
    }
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let x = DeviceBuffer::from_slice(stream, &input())?;
    let mut y = DeviceBuffer::<f32>::zeroed(stream, ROWS * COLS)?;
    softmax::launch(stream, LaunchConfig::new(ROWS as u32, 128), &x, &mut y, COLS as u32)?;
    // The device's exp is within 2 ulp of the exact result (see docs/body-compiler.md); the host's
    // `exp` is within 1: a few ulp of relative difference after the normalisation.
    assert_close("softmax on the device", &y.to_vec()?, &on_host(), 4e-7);
    Ok(())
}
