//! Two kernels a build script assembles (tests/crates/cubin_app): one calling a device
//! function, one targeting sm_80 (so it has no sm_75 cubin); and a third it leaves out, to
//! time a first launch that JIT-compiles.

use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

#[device_fn]
pub fn halve(v: f32) -> f32 {
    v * 0.5
}

#[kernel]
pub fn halve_all(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = halve(x[i]);
    }
}

#[kernel(sm = 80)]
pub fn count_up(x: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] += i as u32;
    }
}

/// `halve_all` again, with no cubin: its first launch on a GPU JIT-compiles the PTX.
#[kernel]
pub fn halve_all_jit(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = halve(x[i]);
    }
}
