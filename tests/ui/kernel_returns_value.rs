#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn sum(x: &[f32]) -> f32 {
    0.0
}

fn main() {}
