#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub enum Mode {
    Fast,
    Exact,
}

fn main() {}
