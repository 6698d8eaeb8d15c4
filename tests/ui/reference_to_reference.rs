#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn k(data: &&f32) {}

fn main() {}
