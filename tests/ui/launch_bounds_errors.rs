#![allow(unused)]

use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

const N: u32 = 16;

// CUDA's positional spelling: the arguments are named here.
#[kernel(launch_bounds(256, 2))]
pub fn positional(x: &mut [f32]) {}

#[kernel(launch_bounds = 256)]
pub fn not_a_list(x: &mut [f32]) {}

#[kernel(launch_bounds(max_threads = 256, warps = 2))]
pub fn unknown_bound(x: &mut [f32]) {}

#[kernel(launch_bounds(max_threads = 2048))]
pub fn too_many_threads(x: &mut [f32]) {}

#[kernel(launch_bounds(min_blocks = 2))]
pub fn min_blocks_alone(x: &mut [f32]) {}

#[kernel(block = (16, 16), launch_bounds(max_threads = 256))]
pub fn block_and_max_threads(x: &mut [f32]) {}

#[kernel(block = (64, 32))]
pub fn block_too_big(x: &mut [f32]) {}

#[kernel(block = (0, 16))]
pub fn block_zero(x: &mut [f32]) {}

#[kernel(block = (N, N))]
pub fn block_not_literal(x: &mut [f32]) {}

#[kernel(block = (1, 1, 128))]
pub fn block_z_too_deep(x: &mut [f32]) {}

#[device_fn(block = 256)]
pub fn helper(x: f32) -> f32 {
    x
}

fn main() {}
