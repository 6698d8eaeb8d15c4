#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn consume(values: Vec<f32>, label: String, boxed: Box<u32>) {}

fn main() {}
