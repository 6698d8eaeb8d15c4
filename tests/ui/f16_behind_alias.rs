#![allow(unused)]

use ptx_runtime::kernel;

type Half = ptx_runtime::half::f16;

#[kernel]
pub fn scale(x: Half) {}

fn main() {}
