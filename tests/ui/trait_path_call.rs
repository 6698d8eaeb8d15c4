#![allow(unused)]

use ptx_runtime::{device_fn, kernel};

pub mod num {
    use ptx_runtime::device_fn;

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
}

mod far {
    use super::num::Halve;
    use ptx_runtime::kernel;

    // Method syntax on a primitive finds the impl through its module's names: importing the
    // trait alone lets rustc see it, not the body compiler.
    #[kernel]
    pub fn k(xs: &[f32], out: &mut [f32]) {
        out[0] = xs[0].halve();
    }
}

use num::*;

// An associated function names the implementing type.
#[kernel]
pub fn assoc(xs: &[f32], out: &mut [f32]) {
    let z: f32 = Halve::zero();
    out[0] = Halve::halve(xs[0]) + <f32 as Halve>::zero() + z + xs[0].halve();
}

fn main() {}
