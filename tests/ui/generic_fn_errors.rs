#![allow(unused)]

use ptx_runtime::{device_fn, kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

#[device_fn]
pub trait Area {
    fn area(&self) -> f32;
}

#[device_fn]
impl Area for V {
    fn area(&self) -> f32 {
        self.x
    }
}

#[device_fn]
pub fn make<T: From<u8>>() -> T {
    T::from(1)
}

#[device_fn]
pub fn first<T: Copy>(xs: &[T]) -> T {
    xs[0]
}

#[device_fn]
pub fn total<S: Area>(s: &[S]) -> f32 {
    s[0].area()
}

#[kernel]
pub fn k(vs: &[V], pairs: &[[f32; 2]], xs: &[u32], out: &mut [f32]) {
    // The return type alone does not fix `T` here: write it.
    let a: f32 = make();
    // Arrays are not template arguments yet.
    let p = first(pairs);
    // `u32` does not implement `Area`: rustc says so.
    let t = total(xs);
}

fn main() {}
