#![allow(unused)]

use ptx_runtime::kernel;

#[kernel]
pub struct NotAFunction;

fn main() {}
