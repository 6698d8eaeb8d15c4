//! `filter_map` and `map_while` (issue 15): the closure's `Option` decides per item whether the
//! loop skips it (`filter_map`), ends (`map_while`) or goes on with the value inside. Each kernel
//! runs on the host and on the CPU backend, compared bit for bit; every module goes through ptxas.

use crate::body_iter::{agree, ROW};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel};

#[device_fn]
fn halve_even(k: u32) -> Option<u32> {
    if k % 2 == 0 {
        Some(k / 2)
    } else {
        None
    }
}

#[kernel]
pub fn it_filter_map(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 9..t * 9 + 9];
    // A closure giving `Option`: the `None` items are skipped.
    o[0] = row.iter().filter_map(|v| if *v > 0.0 { Some(v * 2.0) } else { None }).sum();
    // A device function as the closure, then more adapters after it.
    o[1] = ys.iter().copied().filter_map(halve_even).enumerate().map(|(i, h)| (i as u32 + 1) * h).sum::<u32>() as f32;
    // Over a range, with `checked_sub` as the `Option`.
    o[2] = (0..ROW as u32).filter_map(|k| (t as u32).checked_sub(k)).fold(0u32, |s, d| s + d) as f32;
    // In a `for` loop, with a `take` after the filter.
    let mut a = 0.0f32;
    for (i, v) in row.iter().filter_map(|&v| if v != 0.0 { Some(1.0 / v) } else { None }).take(3).enumerate() {
        a += v * (i + 1) as f32;
    }
    o[3] = a;
    // `map_while`: the loop ends at the first `None`.
    o[4] = row.iter().map_while(|&v| if v > -4.0 { Some(v + 1.0) } else { None }).count() as f32;
    // Rows whose first `k` is below 3 sum nothing: `-0.0`, Rust's empty float sum.
    o[5] = ys.iter().map_while(|&k| k.checked_sub(3)).map(|d| d as f32).sum();
    // An `Option` consumer after them.
    o[6] = row.iter().filter_map(|&v| if v < 0.0 { Some(-v) } else { None }).max_by_key(|v| (*v * 4.0) as i32).unwrap_or(-1.0);
    // `min_by_key` / `max_by_key`: the first least key, the last greatest.
    o[7] = ys.iter().copied().min_by_key(|k| k % 5).unwrap_or(99) as f32 + row.iter().max_by_key(|v| **v as i32).copied().unwrap_or(0.0) * 100.0;
    o[8] = ys.iter().filter_map(|&k| halve_even(k)).position(|h| h > 12).map_or(-1.0, |p| p as f32);
}

#[test]
fn filter_map_and_map_while_agree_with_the_host() {
    let out = agree("it_filter_map", it_filter_map::PTX, 9, it_filter_map, |s, c, x, y, o| it_filter_map::launch(s, c, x, y, o));
    // `map_while` stops at different places in different rows (at once in some, late in others).
    let stops: Vec<f32> = out.chunks(9).map(|r| r[4]).collect();
    assert!(stops.contains(&0.0) && stops.contains(&7.0), "{stops:?}");
    // Some `halve_even` results pass `position`'s test, in some rows none do.
    assert!(out.chunks(9).any(|r| r[8] == -1.0) && out.chunks(9).any(|r| r[8] >= 2.0));
}
