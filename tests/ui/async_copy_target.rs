#![allow(unused)]

use ptx_runtime::device::*;
use ptx_runtime::kernel;

// cp.async needs sm_80: one error, naming the attribute to write.
#[kernel]
pub fn stage(x: &[f32], y: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 32>() };
    let t = thread_idx_x() as usize;
    unsafe { memcpy_async(&mut tile[t], &x[t]) };
    pipeline_wait_all();
    y[t] = tile[t];
}

// try_wait needs sm_90.
#[kernel(sm = 80)]
pub fn wait(y: &mut [u32]) {
    let mut bar = unsafe { shared_array::<u64, 1>() };
    let tok = unsafe { mbarrier_arrive_expect_tx(&mut bar[0], 16) };
    while !unsafe { mbarrier_try_wait(&mut bar[0], tok) } {}
    y[0] = 1;
}

// cp.async copies 4, 8 or 16 bytes.
#[kernel(sm = 80)]
pub fn odd(x: &[u16]) {
    let mut tile = unsafe { shared_array::<u16, 32>() };
    let t = thread_idx_x() as usize;
    unsafe { memcpy_async(&mut tile[t], &x[t]) };
}

fn main() {}
