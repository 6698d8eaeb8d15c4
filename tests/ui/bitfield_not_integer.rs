#![allow(unused)]

use ptx_runtime::{bitfields, DeviceRepr};

#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Flags {
    #[bits(3)]
    pub kind: u32,
    #[bits(4)]
    pub scale: f32,
}

fn main() {}
