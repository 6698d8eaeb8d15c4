#![allow(unused)]

use ptx_runtime::{device_fn, kernel, DeviceRepr};

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
pub trait Dims<const N: usize> {
    fn pick<U: Into<f32>>(&self, u: U) -> f32;
}

// A generic method of a trait with const parameters: one error at its parameters.
#[device_fn]
impl Dims<3> for V {
    fn pick<U: Into<f32>>(&self, u: U) -> f32 {
        self.x * u.into()
    }
}

// An impl for one instance of a generic type works, its generic methods too...
#[device_fn]
impl Pair<f32> {
    pub fn total(self) -> f32 {
        self.a + self.b
    }
    pub fn weighted<U: Into<f32>>(self, u: U) -> f32 {
        self.a * u.into()
    }
}

#[device_fn]
pub trait Weigh {
    fn weigh<U: Into<f32>>(self, u: U) -> f32;
}

// ... but not a generic method of a trait's impl for one instance: one error at its parameters.
#[device_fn]
impl Weigh for Pair<f32> {
    fn weigh<U: Into<f32>>(self, u: U) -> f32 {
        self.b * u.into()
    }
}

// ... nor a conversion impl for one instance: one error naming the generic impl to write.
#[device_fn]
impl From<f32> for Pair<f64> {
    fn from(x: f32) -> Self {
        Pair { a: x as f64, b: 0.0 }
    }
}

// A call on an instance with no impl: one error naming the instances that have it (and rustc's
// own error for the host).
#[kernel]
pub fn k(p: Pair<u32>, out: &mut [f32]) {
    out[0] = p.total();
}

fn main() {}
