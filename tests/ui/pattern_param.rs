#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn k([a, b]: [f32; 2]) {}

fn main() {}
