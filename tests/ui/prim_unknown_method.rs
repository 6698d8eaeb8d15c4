#![allow(unused)]

use ptx_runtime::kernel;

// A method no primitive has and no `#[device_fn]` trait gives `f32` here: one error says how to
// add one; rustc's E0599 is the host build's.
#[kernel]
pub fn k(xs: &[f32], out: &mut [f32]) {
    out[0] = xs[0].frobnicate() + xs[1].sqrt();
}

fn main() {}
