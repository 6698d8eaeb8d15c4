//! 2-D 5-point stencil on a `width × height` grid; the border is copied.

use super::{assert_bits_eq, Rng};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig, Result, Stream};

#[kernel]
pub fn stencil(input: &[f32], output: &mut [f32], width: u32, height: u32, c0: f32, c1: f32) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x >= width || y >= height {
        return;
    }
    let w = width as usize;
    let i = y as usize * w + x as usize;
    if x == 0 || y == 0 || x == width - 1 || y == height - 1 {
        output[i] = input[i];
    } else {
        output[i] = c0 * input[i] + c1 * (input[i - 1] + input[i + 1] + input[i - w] + input[i + w]);
    }
}

pub const PTX: &[(&str, &str)] = &[("stencil", stencil::PTX)];
const W: usize = 45;
const H: usize = 29;
const C0: f32 = 0.5;
const C1: f32 = 0.125;

fn input() -> Vec<f32> {
    Rng::new(5).f32s(W * H, 0.0, 10.0)
}

fn on_host() -> Vec<f32> {
    let inp = input();
    let mut out = vec![0.0; W * H];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([3, 4, 1], [16, 8, 1], 0, || stencil(&inp, unsafe { o.get() }, W as u32, H as u32, C0, C1));
    out
}

pub fn check_host() {
    let inp = input();
    let mut want = inp.clone();
    for y in 1..H - 1 {
        for x in 1..W - 1 {
            let i = y * W + x;
            want[i] = C0 * inp[i] + C1 * (inp[i - 1] + inp[i + 1] + inp[i - W] + inp[i + W]);
        }
    }
    assert_bits_eq("stencil", &on_host(), &want);
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let inp = DeviceBuffer::from_slice(stream, &input())?;
    let mut out = DeviceBuffer::<f32>::zeroed(stream, W * H)?;
    stencil::launch(stream, LaunchConfig::new((3, 4, 1), (16, 8, 1)), &inp, &mut out, W as u32, H as u32, C0, C1)?;
    assert_bits_eq("stencil on the device", &out.to_vec()?, &on_host());
    Ok(())
}
