#![allow(unused)]

use ptx_runtime::device::*;
use ptx_runtime::kernel;

// The destination of a bulk store is a mutable slice of global memory.
#[kernel(sm = 90)]
pub fn not_a_slice(y: &mut [f32]) {
    let tile = unsafe { shared_array::<f32, 16>() };
    unsafe { memcpy_async_bulk_store(&mut y[0], &tile[0]) };
}

// bulk_wait_prior takes a literal.
#[kernel(sm = 90)]
pub fn wait_n(n: u32) {
    bulk_wait_prior(n);
}

// Bulk copies need sm_90.
#[kernel(sm = 80)]
pub fn old(y: &mut [f32]) {
    let tile = unsafe { shared_array::<f32, 16>() };
    unsafe { memcpy_async_bulk_store(&mut y[0..16], &tile[0]) };
}

fn main() {}
