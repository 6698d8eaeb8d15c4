#![allow(unused)]

use ptx_runtime::{bitfields, DeviceRepr};

#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Flags {
    #[bits(3)]
    pub kind: u8,
    #[bits(9)]
    pub level: u8,
}

fn main() {}
