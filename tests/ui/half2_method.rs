#![allow(unused)]

use ptx_runtime::device::*;
use ptx_runtime::half::f16;
use ptx_runtime::kernel;
use ptx_runtime::vector::f16x2;

// f16x2 has mul_add, abs, min, max, the lane-wise comparisons and `+ - *`, unary `-`; not
// the scalar methods: one error naming what to write.
#[kernel]
pub fn sqrt2(x: &[f16x2], y: &mut [f16x2]) {
    y[0] = x[0].sqrt();
}

fn main() {}
