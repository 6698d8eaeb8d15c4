#![allow(unused)]

use ptx_runtime::device::mma::*;
use ptx_runtime::device::*;
use ptx_runtime::half::f16;
use ptx_runtime::kernel;

// mma.sync needs sm_80: one error for the function, naming the attribute to write
// (ldmatrix, sm_75, is fine at the default target).
#[kernel]
pub fn product(c: &mut [f32]) {
    let s = unsafe { shared_array::<f16, 256>() };
    let l = lane_id() as usize;
    let a = FragmentA::<M16N8K16, f16>::from_regs(unsafe { ldmatrix_x4(s.as_ptr().add(l * 8)) });
    let b = FragmentB::<M16N8K16, f16>::from_regs(unsafe { ldmatrix_x2(s.as_ptr().add(l * 8)) });
    let d = mma_sync(a, b, FragmentC::<f32>::zero());
    let e = mma_sync(a, b, d);
    c[l] = e.regs[0];
}

// stmatrix needs sm_90.
#[kernel(sm = 80)]
pub fn store(r: &[u32]) {
    let mut s = unsafe { shared_array::<u16, 256>() };
    let l = lane_id() as usize;
    unsafe { stmatrix_x4(s.as_mut_ptr().add(l * 8), [r[0], r[1], r[2], r[3]]) };
}

// ldmatrix reads shared memory, not a kernel's slice.
#[kernel(sm = 80)]
pub fn load(x: &[u16], r: &mut [u32]) {
    let l = lane_id() as usize;
    r[l] = unsafe { ldmatrix_x1(x.as_ptr().add(l * 8)) }[0];
}

fn main() {}
