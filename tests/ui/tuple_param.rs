#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn add(pair: (f32, f32), out: &mut [f32]) {}

fn main() {}
