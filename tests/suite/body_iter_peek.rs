//! `peekable()` over slices and ranges with `next()`, `peek()`, `next_if` and `next_if_eq` in
//! `while let` loops (issue 15): a cursor in registers. Each kernel runs on the host and on the
//! CPU backend, compared bit for bit; every module goes through ptxas.

use crate::body_iter::{agree, ROW};
use ptx_runtime::device::*;
use ptx_runtime::kernel;

#[kernel]
pub fn peek_runs(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 5..t * 5 + 5];
    // Runs of items of one sign.
    let mut it = row.iter().peekable();
    let (mut runs, mut longest) = (0.0f32, 0.0f32);
    while let Some(v) = it.next() {
        let pos = *v > 0.0;
        let mut len = 1.0f32;
        while let Some(w) = it.next_if(|w| (**w > 0.0) == pos) {
            len += 1.0 + *w * 0.0;
        }
        runs += 1.0;
        longest = longest.max(len);
    }
    o[0] = runs;
    o[1] = longest;
    // A range's items, and the next one by `peek`.
    let mut r = (t % 3..ys.len()).peekable();
    let mut acc = 0.0f32;
    while let Some(j) = r.next() {
        if let Some(k) = r.peek() {
            acc += (ys[j] % 7) as f32 * (ys[*k] % 5) as f32;
        }
    }
    o[2] = acc;
    // `peek` before taking, and `next_if_eq`.
    let mut q = row.iter().peekable();
    let mut s = 0.0f32;
    while let Some(v) = q.peek() {
        if **v > 1.0 {
            break;
        }
        s += **v;
        q.next();
    }
    let first = row[0];
    o[3] = s + if q.next_if_eq(&&first).is_some() { 100.0 } else { 0.0 };
    let arr = [ys[0] % 4, ys[1] % 4, ys[2] % 4, 3];
    let mut a = arr.iter().peekable();
    let mut same = 0u32;
    while let Some(v) = a.next() {
        if a.next_if_eq(&v).is_some() {
            same += 1;
        }
    }
    let mut n = (0u32..5).peekable();
    while n.next_if(|k| *k < ys[3] % 4).is_some() {}
    o[4] = same as f32 + 10.0 * n.next().unwrap_or(99) as f32;
}

#[test]
fn peekable_cursors_agree_with_the_host() {
    let out = agree("peek_runs", peek_runs::PTX, 5, peek_runs, |s, c, x, y, o| peek_runs::launch(s, c, x, y, o));
    assert!(out.chunks(5).any(|r| r[0] > 1.0) && out.chunks(5).any(|r| r[3] >= 100.0));
}
