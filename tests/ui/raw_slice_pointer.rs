#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn k(data: *const [f32]) {}

fn main() {}
