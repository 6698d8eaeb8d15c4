#![allow(unused)]

use ptx_runtime::device_fn;
use ptx_runtime::half::bf16;

#[device_fn]
pub fn to_bf16(x: f32) -> bf16 {
    bf16::from_f32(x)
}

fn main() {}
