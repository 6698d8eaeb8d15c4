#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

// A trait without `#[device_fn]` has no replay: its impl cannot find its default methods.
pub trait Shape {
    fn area(&self) -> f32;
}

#[device_fn]
impl Shape for V {
    fn area(&self) -> f32 {
        self.x
    }
}

fn main() {}
