//! Device functions of another module (and file), for `body_inline`: this module takes the
//! device API with a glob of its own, and the kernels name the functions through `use`.

use ptx_runtime::device::*;
use ptx_runtime::device_fn;

/// The thread's index in the grid.
#[device_fn]
pub fn gid() -> usize {
    (block_idx_x() * block_dim_x() + thread_idx_x()) as usize
}

/// `x[i]`, checked here: a failure is reported at this line, as Rust reports it.
#[device_fn]
pub fn at(x: &[f32], i: usize) -> f32 {
    x[i] // MARK: helper index
}

/// A constant of this module: the function stays a call (the kernel's scope may not have it).
pub const SCALE: f32 = 3.0;

#[device_fn]
pub fn scaled(v: f32) -> f32 {
    v * SCALE
}
