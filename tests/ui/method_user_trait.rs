#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

pub trait Shape {
    fn area(&self) -> f32;
}

#[device_fn]
impl Shape for V {
    fn area(&self) -> f32 {
        self.x
    }
}

#[device_fn]
pub trait Scaled {
    fn scaled(&self) -> f32;
}

fn main() {}
