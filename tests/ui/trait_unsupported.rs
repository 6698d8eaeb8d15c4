#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

// A generic device trait has type parameters only.
#[device_fn]
pub trait Convert<const N: usize> {
    fn convert(&self) -> f32;
}

// An impl of a trait that is not `#[device_fn]`.
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
