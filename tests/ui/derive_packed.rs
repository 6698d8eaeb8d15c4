#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, packed)]
pub struct Header {
    tag: u8,
    len: u32,
}

fn main() {}
