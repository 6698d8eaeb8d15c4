use ptx_runtime::device::*;
use ptx_runtime::texture::{Boundary, Surface2d};

#[ptx_runtime::kernel]
pub fn store(s: Surface2d<f32>, mode: Boundary, v: f32) {
    surf2d_write(v, s, 0, 0, mode);
}

#[ptx_runtime::device_fn]
pub fn load(s: Surface2d<f32>, mode: Boundary) -> f32 {
    surf2d_read(s, 0, 0, mode)
}

fn main() {}
