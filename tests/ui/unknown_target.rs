#![allow(unused)]

use ptx_runtime::kernel;

#[kernel(sm = 91)]
pub fn k() {}

fn main() {}
