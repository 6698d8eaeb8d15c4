#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn k(limit: Option<u32>, out: &mut [u32]) {}

fn main() {}
