#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair<T> {
    pub a: T,
    pub b: T,
}

#[device_fn]
pub trait Mix<T: Copy> {
    fn mix<U: Into<f32>>(&self, u: U) -> T;
}

// A generic method of a generic trait: one error at its parameters, saying what to write.
#[device_fn]
impl Mix<f32> for V {
    fn mix<U: Into<f32>>(&self, u: U) -> f32 {
        self.x * u.into()
    }
}

#[device_fn]
pub trait Scale<T: Copy>: Copy {
    fn scale(self, by: T) -> Self;
}

// An impl for one instance of a generic type: one error naming the generic impl to write.
#[device_fn]
impl Scale<f32> for Pair<f32> {
    fn scale(self, by: f32) -> Self {
        Pair { a: self.a * by, b: self.b }
    }
}

fn main() {}
