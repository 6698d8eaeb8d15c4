#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
    pub y: f32,
}

impl V {
    #[device_fn]
    pub fn dot(&self, o: V) -> f32 {
        self.x * o.x + self.y * o.y
    }

    #[device_fn]
    pub fn new(x: f32, y: f32) -> Self {
        V { x, y }
    }
}

fn main() {}
