#![allow(unused)]

use ptx_runtime::kernel;

#[kernel(fmad = true)]
pub fn k(x: &mut [f32]) {}

fn main() {}
