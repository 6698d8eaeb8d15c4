//! Matrix transpose through a padded 32 × 33 shared tile (the padding keeps the column reads
//! free of bank conflicts); blocks of 32 × 8 threads each move 32 × 32 elements.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

pub const T: usize = 32;

// Written for blocks of 32 × 8 threads, and declared so: a launch with another shape is an
// `Err` before it runs, and the tile indices need no checks (`%tid.y < 8`, `j <= 24`).
#[kernel(block = (32, 8))]
pub fn transpose(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let bx = block_idx_x() as usize * T;
    let by = block_idx_y() as usize * T;
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let w = width as usize;
    let h = height as usize;
    for j in (0..T).step_by(8) {
        let x = bx + tx;
        let y = by + ty + j;
        if x < w && y < h {
            tile[(ty + j) * (T + 1) + tx] = input[y * w + x];
        }
    }
    sync_threads();
    for j in (0..T).step_by(8) {
        let x = by + tx;
        let y = bx + ty + j;
        if x < h && y < w {
            output[y * h + x] = tile[tx * (T + 1) + ty + j];
        }
    }
}

// The same kernel with no block declared, as CUDA C declares none: the tile indices are then
// checked (`%tid.y` is not known below 8). `benches/gpu_timing.rs` times it against the same
// twin.
#[kernel]
pub fn transpose_any_block(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let bx = block_idx_x() as usize * T;
    let by = block_idx_y() as usize * T;
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let w = width as usize;
    let h = height as usize;
    for j in (0..T).step_by(8) {
        let x = bx + tx;
        let y = by + ty + j;
        if x < w && y < h {
            tile[(ty + j) * (T + 1) + tx] = input[y * w + x];
        }
    }
    sync_threads();
    for j in (0..T).step_by(8) {
        let x = by + tx;
        let y = bx + ty + j;
        if x < h && y < w {
            output[y * h + x] = tile[tx * (T + 1) + ty + j];
        }
    }
}

pub const PTX: &[(&str, &str)] = &[("transpose", transpose::PTX), ("transpose_any_block", transpose_any_block::PTX)];
const W: usize = 70;
const H: usize = 45;

fn input() -> Vec<f32> {
    Rng::new(8).f32s(W * H, -5.0, 5.0)
}

fn grid() -> [u32; 3] {
    [W.div_ceil(T) as u32, H.div_ceil(T) as u32, 1]
}

/// One of the two kernels run on the host, as the GPU would run it.
fn on_host_with(kernel: fn(&[f32], &mut [f32], u32, u32)) -> Vec<f32> {
    let inp = input();
    let mut out = vec![0.0; W * H];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each element is written by one thread.
    host::run(grid(), [32, 8, 1], 0, || kernel(&inp, unsafe { o.get() }, W as u32, H as u32));
    out
}

fn on_host() -> Vec<f32> {
    on_host_with(transpose)
}

pub fn check_host() {
    let inp = input();
    let mut want = vec![0.0; W * H];
    for y in 0..H {
        for x in 0..W {
            want[x * H + y] = inp[y * W + x];
        }
    }
    assert_bits_eq("transpose", &on_host(), &want);
    assert_bits_eq("transpose_any_block", &on_host_with(transpose_any_block), &want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let inp = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<f32>::zeroed(stream, W * H)?;
    transpose::launch(stream, LaunchConfig::new(super::dim(grid()), (32, 8, 1)), &inp, &mut out, W as u32, H as u32)?;
    assert_bits_eq("transpose on the device", &out.to_vec()?, &on_host());
    let mut out = DeviceBuffer::<f32>::zeroed(stream, W * H)?;
    transpose_any_block::launch(stream, LaunchConfig::new(super::dim(grid()), (32, 8, 1)), &inp, &mut out, W as u32, H as u32)?;
    assert_bits_eq("transpose_any_block on the device", &out.to_vec()?, &on_host());
    Ok(())
}
