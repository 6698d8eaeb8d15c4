// A `#[device_fn] impl` of a trait defined without `#[device_fn]`; a call through such a trait's
// path; method syntax reaching only a trait's impl without the attribute, on a `DeviceRepr` type
// and on a primitive: one error each, naming the item to annotate. A kernel calling the failed
// impl's method adds none (the impl leaves replays that end the kernel's fetch silently).
use ptx_runtime::{device_fn, kernel, DeviceRepr};

pub trait Area {
    fn area(&self) -> f32;
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Sq {
    pub s: f32,
}

#[device_fn]
impl Area for Sq {
    fn area(&self) -> f32 {
        self.s * self.s
    }
}

pub trait Perimeter {
    fn perimeter(&self) -> f32;
}

impl Perimeter for Sq {
    fn perimeter(&self) -> f32 {
        4.0 * self.s
    }
}

mod num {
    pub trait Halve {
        fn halve(self) -> Self;
    }

    impl Halve for f32 {
        fn halve(self) -> f32 {
            self * 0.5
        }
    }
}

use num::*;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    out[0] = x[0].halve();
    let s = Sq { s: x[1] };
    out[1] = Perimeter::perimeter(&s);
}

#[kernel]
pub fn k2(s: &[Sq], out: &mut [f32]) {
    out[0] = s[0].perimeter();
}

#[kernel]
pub fn k3(s: &[Sq], out: &mut [f32]) {
    out[0] = s[0].area();
}

fn main() {}
