use ptx_runtime::kernel;
use ptx_runtime::texture::*;
use ptx_runtime::vector::{f32x3, f64x2, u8x4};

// A texture's element is a scalar or a vector of 2 or 4 lanes of f32/i32/u32 (8-bit vectors
// read as u32x4 or, normalized, f32x4); a surface's vector moves at most 16 bytes and has 2 or
// 4 lanes. Each is one error at the type.
#[kernel]
pub fn three_lanes(_t: Texture2d<f32x3>) {}

#[kernel]
pub fn bytes_read_widened(_t: Texture2d<u8x4>) {}

#[kernel]
pub fn fine(_s: Surface2d<u8x4>, _v: Surface2dLayered<f64x2>) {}

#[kernel]
pub fn odd_surface(_s: Surface1dLayered<f32x3>) {}

fn main() {}
