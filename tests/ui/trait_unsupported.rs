#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

// A device trait's const parameters are integers or `bool`.
#[device_fn]
pub trait Convert<const N: char> {
    fn convert(&self) -> f32;
}

// A const argument at an impl is a literal.
#[device_fn]
pub trait Dims<const N: usize> {
    fn dims(&self) -> [f32; N];
}

#[device_fn]
impl Dims<{ 1 + 2 }> for V {
    fn dims(&self) -> [f32; 3] {
        [self.x; 3]
    }
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
