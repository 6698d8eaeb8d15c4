// A device function that fails to compile: its errors are all that is reported, not another
// one at each kernel that calls it (the function leaves a stub module in place of its own).
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

#[device_fn]
fn helper(v: f32) -> f32 {
    let s: Vec<f32> = Vec::new();
    v + s[0]
}

#[kernel]
pub fn k(x: &[f32], y: &mut [f32]) {
    let i = thread_idx_x() as usize;
    y[i] = helper(x[i]);
}

fn main() {}
