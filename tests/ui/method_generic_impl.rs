#![allow(unused)]

use ptx_runtime::{device_fn, kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair<T: Copy> {
    pub a: T,
    pub b: T,
}

#[device_fn]
pub trait Halve {
    fn halve(self) -> Self;
}

// Trait impls for a generic type work; a blanket impl has no type to hang its methods on.
#[device_fn]
impl<T: Copy> Halve for T {
    fn halve(self) -> T {
        self
    }
}

#[device_fn]
impl<T: Copy> Pair<T> {
    pub fn first<U: Copy + From<T>>(self) -> U {
        U::from(self.a)
    }
}

// rustc infers `U` from the annotation; the device compiler infers from the arguments only.
#[kernel]
pub fn k(p: Pair<f32>, out: &mut [f64]) {
    let x: f64 = p.first();
    out[0] = x;
}

fn main() {}
