#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Flags {
    #[bits(3)]
    pub kind: u32,
    pub c: u8,
}

fn main() {}
