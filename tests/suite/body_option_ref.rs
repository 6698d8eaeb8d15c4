//! `Option<&T>` and `Option<&mut T>` kept in locals and returned from device functions (issue 15).

use crate::body_iter::{agree, ROW};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

/// The element after `i`, else the first: a reference to the slice's element.
#[device_fn]
pub fn after(s: &[f32], i: usize) -> Option<&f32> {
    let next = s.get(i + 1);
    if next.is_some() { next } else { s.first() }
}

/// The element `i` of `s`, to be changed by the caller.
#[device_fn]
pub fn slot(s: &mut [f32], i: usize) -> Option<&mut f32> {
    s.get_mut(i)
}

#[kernel]
pub fn option_ref(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 6..t * 6 + 6];
    let best = row.iter().max_by(|a, b| a.total_cmp(b));
    if let Some(b) = best {
        o[0] = *b;
    }
    let m = row.get(y[t] as usize % 10);
    if let Some(v) = m {
        o[1] = *v + 1.0;
    } else {
        o[1] = -1.0;
    }
    let f = row.iter().find(|v| **v > 0.5);
    o[2] = match f { Some(v) => *v, None => -2.0 };
    o[3] = if m.is_some() { 1.0 } else { 0.0 };
    if let Some(l) = after(&row[..t % 4], y[t] as usize % 4) {
        o[4] = *l;
    }
    let neg = row.iter().filter(|v| **v < 0.0).min_by(|a, b| a.partial_cmp(b).unwrap());
    o[5] = neg.map_or(7.0, |v| *v * 2.0) + best.map_or(0.0, |v| *v);
    // `Option<&mut T>` kept and returned: writes reach the slice.
    let g = o.get_mut(y[t] as usize % 8);
    if let Some(v) = g {
        *v -= 1.0;
    }
    if let Some(v) = slot(o, t % 7) {
        *v += 0.25;
    }
}

#[test]
fn stored_option_refs_agree_with_the_host() {
    let out = agree("option_ref", option_ref::PTX, 6, option_ref, |s, c, x, y, o| option_ref::launch(s, c, x, y, o));
    assert!(out.chunks(6).any(|r| r[1] == -1.0) && out.chunks(6).any(|r| r[1] != -1.0));
}
