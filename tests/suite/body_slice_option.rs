//! `get_mut`, `split_first` and `split_last` on slices (issue 15): `Option`s of references to
//! the element and the rest, without a trap. Each kernel runs on the host and on the CPU
//! backend, compared bit for bit; every module goes through ptxas.

use crate::body_iter::{agree, ROW};
use ptx_runtime::device::*;
use ptx_runtime::kernel;

#[kernel]
pub fn slice_option(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 6..t * 6 + 6];
    for j in 0..6 {
        o[j] = row[j];
    }
    // Indices 6 and 7 are past the end: `None`, nothing written.
    if let Some(v) = o.get_mut(y[t] as usize % 8) {
        *v += 100.0;
    }
    match o.get_mut(2) {
        Some(v) => *v *= 2.0,
        None => o[0] = -5.0,
    }
    if let Some((first, rest)) = row.split_first() {
        o[3] = *first + rest.iter().sum::<f32>();
    }
    // Empty for a third of the threads.
    let head = &row[..t % 3];
    if let Some((last, rest)) = head.split_last() {
        o[4] = *last * 10.0 + rest.len() as f32;
    } else {
        o[4] = -1.0;
    }
    let short = &row[..t % 2];
    o[5] += if short.split_first().is_none() { 1000.0 } else { 0.0 };
}

#[test]
fn get_mut_and_split_agree_with_the_host() {
    let out = agree("slice_option", slice_option::PTX, 6, slice_option, |s, c, x, y, o| slice_option::launch(s, c, x, y, o));
    assert!(out.chunks(6).any(|r| r[4] == -1.0) && out.chunks(6).any(|r| r[4] != -1.0));
    assert!(out.chunks(6).any(|r| r.iter().any(|v| *v > 50.0)));
}
