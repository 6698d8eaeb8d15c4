#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn fill<T: Copy>(out: &mut [T], value: T) {}

fn main() {}
