#![allow(unused)]

use ptx_runtime::kernel;

#[kernel(arch = "sm_90")]
pub fn k() {}

fn main() {}
