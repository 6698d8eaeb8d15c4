#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair<T: Copy> {
    pub a: T,
    pub b: T,
}

#[device_fn]
impl<T: Copy> Pair<T> {
    pub fn first(self) -> T {
        self.a
    }
}

fn main() {}
