#![allow(unused)]

use ptx_runtime::{cpp_header, device_fn};

#[device_fn]
pub fn total(xs: &[f32]) -> f32 {
    let mut s = 0.0;
    for x in xs {
        s += *x;
    }
    s
}

// A slice has no C++ spelling: the header says to pass a pointer and a length.
cpp_header!(pub H: total);

// The const's name and a colon come first.
cpp_header!(total);

fn main() {}
