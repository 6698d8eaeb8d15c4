#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Nothing {}

fn main() {}
