#![allow(unused)]

use ptx_runtime::{bitfields, DeviceRepr};

#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, align(2))]
pub struct Flags {
    #[bits(40)]
    pub wide: u64,
}

fn main() {}
