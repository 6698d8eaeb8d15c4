#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub fn greet(name: &str) {}

fn main() {}
