#![allow(unused)]

use ptx_runtime::DeviceRepr;

#[derive(Clone, DeviceRepr)]
#[repr(C)]
pub struct Bad<'a> {
    samples: Vec<f32>,
    name: &'a u8,
    pair: (u32, u32),
}

fn main() {}
