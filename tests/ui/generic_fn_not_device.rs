#![allow(unused)]

use ptx_runtime::kernel;

// Not `#[device_fn]`: there is no replay to instantiate.
pub fn plain<T: Copy>(x: T) -> T {
    x
}

#[kernel]
pub fn k(out: &mut [f32]) {
    out[0] = plain(1.0f32);
}

fn main() {}
