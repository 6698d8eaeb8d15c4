#![allow(unused)]

use core::ops::Add;
use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair<T: Copy> {
    pub a: T,
    pub b: T,
}

// Inherent generic impls work; trait impls for a generic type do not yet.
#[device_fn]
impl<T: Copy + Add<Output = T>> Add for Pair<T> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Pair { a: self.a + o.a, b: self.b + o.b }
    }
}

#[device_fn]
impl<T: Copy> Pair<T> {
    pub fn first<U>(self, u: U) -> T {
        self.a
    }
}

fn main() {}
