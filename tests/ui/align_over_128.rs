#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, align(256))]
pub struct Page {
    first: u8,
}

fn main() {}
