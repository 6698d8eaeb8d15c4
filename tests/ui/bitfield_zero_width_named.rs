#![allow(unused)]

use ptx_runtime::{bitfields, DeviceRepr};

#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Flags {
    pub c: u8,
    #[bits(0)]
    pub boundary: u32,
    pub d: u8,
}

fn main() {}
