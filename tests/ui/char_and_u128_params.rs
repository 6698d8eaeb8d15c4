#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn k(c: char, wide: u128) {}

fn main() {}
