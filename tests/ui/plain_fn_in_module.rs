// Plain functions reached through an inline module, a `use`, a glob and a `crate::` path: each
// call gets one error naming the function and where it is defined.
use ptx_runtime::kernel;

mod math {
    pub fn twice(x: f32) -> f32 {
        x * 2.0
    }

    pub fn thrice(x: f32) -> f32 {
        x * 3.0
    }

    #[ptx_runtime::device_fn]
    pub fn half(x: f32) -> f32 {
        x * 0.5
    }
}

use math::thrice;

#[kernel]
pub fn k(out: &mut [f32]) {
    out[0] = math::twice(out[0]);
    out[1] = thrice(out[1]);
    out[2] = math::half(out[2]);
}

mod inner {
    use super::*;

    #[kernel]
    pub fn k2(out: &mut [f32]) {
        out[0] = math::half(thrice(out[0]));
        out[1] = crate::math::twice(out[1]);
    }
}

fn main() {}
