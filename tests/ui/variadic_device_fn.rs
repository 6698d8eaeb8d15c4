#![allow(unused)]

use ptx_runtime::device_fn;

#[device_fn]
pub unsafe extern "C" fn log(format: *const u8, _: ...) {}

fn main() {}
