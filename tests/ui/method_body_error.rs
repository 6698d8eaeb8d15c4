#![allow(unused)]

use ptx_runtime::{device_fn, kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

#[device_fn]
impl V {
    /// One error in a method: its callers report nothing more.
    pub fn twice(self) -> f32 {
        let f = |a: f32| a * 2.0;
        let g = f;
        g(self.x)
    }
}

#[kernel]
pub fn k(v: &[V], out: &mut [f32]) {
    out[0] = v[0].twice();
}

fn main() {}
