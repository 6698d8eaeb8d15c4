#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

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
    pub fn first<U>(self, u: U) -> T {
        self.a
    }
}

fn main() {}
