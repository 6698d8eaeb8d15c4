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
    pub fn get<const I: usize>(self) -> T {
        if I == 0 {
            self.a
        } else {
            self.b
        }
    }
}

// A const parameter of a method is written at the call.
#[kernel]
pub fn k(p: Pair<f32>, out: &mut [f32]) {
    out[0] = p.get();
}

fn main() {}
