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
pub fn by_dyn(s: &dyn Area) -> f32 {
    s.area()
}

#[kernel]
pub fn k(vs: &[V], out: &mut [f32]) {
    let s: &dyn Area = &vs[0];
    out[0] = s.area();
}

fn main() {}
