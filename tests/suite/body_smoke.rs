//! Smoke tests while building the body compiler.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

#[kernel]
pub fn vadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

#[device_fn]
pub fn foo(i: i32, j: i32) -> i32 {
    i + j
}

#[kernel]
pub fn test(p: *mut i32) {
    unsafe { *p = foo(1, 2) };
}

#[test]
fn smoke() {
    println!("{}", vadd::PTX);
    assemble("vadd", vadd::PTX);
    println!("{}", test::PTX);
    assemble("test", test::PTX);
}
#[test]
fn show_corpus() {
    if std::env::var_os("SHOW").is_none() { return; }
    let want = std::env::var("SHOW").unwrap();
    for c in crate::corpus::CASES { for (n, p) in c.ptx { if *n == want { println!("{p}"); } } }
}
