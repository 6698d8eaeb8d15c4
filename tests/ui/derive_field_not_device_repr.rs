#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, Copy)]
pub struct Plain {
    x: f32,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Outer {
    id: u32,
    inner: Plain,
}

fn main() {}
