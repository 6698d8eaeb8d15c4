#![allow(unused)]

use ptx_runtime::half::f16;
use ptx_runtime::kernel;

#[kernel]
pub fn scale(x: f16, out: &mut [f32]) {}

fn main() {}
