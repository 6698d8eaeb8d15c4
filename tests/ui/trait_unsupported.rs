#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

#[device_fn]
pub trait Convert<T> {
    fn convert(&self) -> T;
}

pub trait Pick<T> {
    fn pick(&self) -> T;
}

#[device_fn]
impl Pick<f32> for V {
    fn pick(&self) -> f32 {
        self.x
    }
}

#[device_fn]
impl Default for V {
    fn default() -> V {
        V { x: 0.0 }
    }
}

fn main() {}
