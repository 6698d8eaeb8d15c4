#![allow(unused)]

use ptx_runtime::{bitfields, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Point {
    x: f32,
    y: f32,
}

#[bitfields]
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Tagged {
    #[bits(3)]
    pub kind: u32,
    pub at: Point,
}

fn main() {}
