#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub async fn wait(x: &mut [f32]) {}

fn main() {}
