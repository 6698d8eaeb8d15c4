//! Tiled matrix multiply: `C = A·B` for `n × n` row-major matrices, 16 × 16 tiles staged in
//! shared memory (sized by a constant expression rustc evaluates).

use super::{assert_bits_eq, assert_close, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

pub const TILE: usize = 16;

// Written for blocks of `TILE × TILE` threads, and declared so: a launch with another shape
// is an `Err` before it runs, and the tile indices need no checks.
#[kernel(block = (16, 16))]
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
    let mut ta = unsafe { shared_array::<f32, { TILE * TILE }>() };
    let mut tb = unsafe { shared_array::<f32, { TILE * TILE }>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let row = block_idx_y() as usize * TILE + ty;
    let col = block_idx_x() as usize * TILE + tx;
    let n = n as usize;
    let mut acc = 0.0f32;
    let tiles = (n + TILE - 1) / TILE;
    for t in 0..tiles {
        let ac = t * TILE + tx;
        let br = t * TILE + ty;
        ta[ty * TILE + tx] = if row < n && ac < n { a[row * n + ac] } else { 0.0 };
        tb[ty * TILE + tx] = if br < n && col < n { b[br * n + col] } else { 0.0 };
        sync_threads();
        for k in 0..TILE {
            acc += ta[ty * TILE + k] * tb[k * TILE + tx];
        }
        sync_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

pub const PTX: &[(&str, &str)] = &[("matmul", matmul::PTX)];
const N: usize = 37;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng::new(4);
    (r.f32s(N * N, -1.0, 1.0), r.f32s(N * N, -1.0, 1.0))
}

fn grid() -> [u32; 3] {
    let g = N.div_ceil(TILE) as u32;
    [g, g, 1]
}

fn on_host() -> Vec<f32> {
    let (a, b) = inputs();
    let mut c = vec![0.0; N * N];
    let out = host::Disjoint::new(&mut c);
    // SAFETY: each thread writes its own element.
    host::run(grid(), [TILE as u32, TILE as u32, 1], 0, || matmul(&a, &b, unsafe { out.get() }, N as u32));
    c
}

pub fn check_host() {
    let (a, b) = inputs();
    let mut want = vec![0.0f32; N * N];
    for i in 0..N {
        for j in 0..N {
            want[i * N + j] = (0..N).map(|k| a[i * N + k] as f64 * b[k * N + j] as f64).sum::<f64>() as f32;
        }
    }
    assert_close("matmul", &on_host(), &want, 1e-5);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (a, b) = inputs();
    let (a, b) = (DeviceBuffer::from_slice(stream, &a)?, DeviceBuffer::from_slice(stream, &b)?);
    let mut c = DeviceBuffer::<f32>::zeroed(stream, N * N)?;
    let g = grid();
    matmul::launch(stream, LaunchConfig::new((g[0], g[1], 1), (TILE as u32, TILE as u32, 1)), &a, &b, &mut c, N as u32)?;
    assert_bits_eq("matmul on the device", &c.to_vec()?, &on_host());
    Ok(())
}
