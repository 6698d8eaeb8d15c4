#![allow(unused)]

use ptx_runtime::kernel;

#[kernel(sm = 70)]
pub async fn everything_wrong(a: (u8, u8), b: Vec<u8>, c: char, d: u128) -> u32 {
    0
}

fn main() {}
