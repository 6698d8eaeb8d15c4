#![allow(unused)]

use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

// `#[inline(always)]` inlines the body at each call: a parameter must be a plain name...
#[device_fn]
#[inline(always)]
fn swap_sum((a, b): (u32, u32)) -> u32 {
    a + b
}

// ...and the function cannot call itself.
#[device_fn]
#[inline(always)]
fn countdown(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        countdown(n - 1) + 1
    }
}

#[kernel]
pub fn k(out: &mut [u32]) {
    out[0] = swap_sum((1, 2));
    out[1] = countdown(3);
}

fn main() {}
