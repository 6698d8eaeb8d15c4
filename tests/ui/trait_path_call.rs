#![allow(unused)]

use ptx_runtime::{device_fn, kernel};

#[device_fn]
pub trait Halve: Copy {
    fn zero() -> Self;
    fn halve(self) -> Self;
}

#[device_fn]
impl Halve for f32 {
    fn zero() -> f32 {
        0.0
    }
    fn halve(self) -> f32 {
        self * 0.5
    }
}

// Outside a generic instance a primitive's trait methods are called through the trait.
#[kernel]
pub fn k(xs: &[f32], out: &mut [f32]) {
    out[0] = xs[0].halve();
}

// An associated function names the implementing type.
#[kernel]
pub fn assoc(xs: &[f32], out: &mut [f32]) {
    let z: f32 = Halve::zero();
    out[0] = Halve::halve(xs[0]) + <f32 as Halve>::zero() + z;
}

fn main() {}
