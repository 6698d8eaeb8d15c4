//! `chain`, `flat_map` / `flatten` and `min_by` / `max_by` (issue 15): `chain` over two slices
//! or arrays is one counted loop over both lengths, `flat_map` a loop inside the chain's loop
//! whose `break`s leave both, the comparators of `min_by` / `max_by` compiled to `>`. Each
//! kernel runs on the host and on the CPU backend, compared bit for bit; every module goes
//! through ptxas; twins compare the SASS of the iterator form with the hand-written loops.

use crate::body_iter::{agree, instructions, ROW};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::kernel;

#[kernel]
pub fn it_chain(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 6..t * 6 + 6];
    let arr = [0.5f32, -1.5, 2.0];
    // Two sub-slices, then a slice and an array, with adapters after the `chain`.
    o[0] = row[..3].iter().chain(row[5..].iter()).sum();
    o[1] = row.iter().chain(&arr).enumerate().map(|(i, v)| v * i as f32).sum();
    // A `for` loop with a `break`, starting in the array and going on in the row.
    let mut a = 0.0f32;
    for &v in arr.iter().chain(row) {
        if v > 4.0 {
            break;
        }
        a = a * 0.5 + v;
    }
    o[2] = a;
    o[3] = row.iter().chain(&arr).position(|v| *v < -1.0).map_or(-1.0, |p| p as f32);
    o[4] = ys[..4].iter().chain(ys[6..].iter()).skip(1).step_by(2).filter(|k| **k % 2 == 1).count() as f32;
    // `zip` with a chain as its first side.
    o[5] = ys[..2].iter().chain(&ys[4..]).zip(row).map(|(k, v)| *k as f32 * v).sum();
}

#[test]
fn chain_agrees_with_the_host() {
    let out = agree("it_chain", it_chain::PTX, 6, it_chain, |s, c, x, y, o| it_chain::launch(s, c, x, y, o));
    // Rows find a negative element in the row.
    assert!(out.chunks(6).any(|r| r[3] >= 0.0 && r[3] < 8.0));
}

#[kernel]
pub fn it_flat_map(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 8..t * 8 + 8];
    // Over chunks (the last one short), the inner iterator with an adapter; `enumerate` after.
    o[0] = row.chunks(3).flat_map(|c| c.iter().rev()).enumerate().map(|(i, v)| v * (i + 1) as f32).sum();
    // Over ranges, the inner range depending on the outer item, a `filter` after.
    o[1] = (0..3u32).flat_map(|i| (0..i + t as u32 % 3 + 1).map(move |j| i * 10 + j)).filter(|k| k % 3 != 0).sum::<u32>() as f32;
    // `take` and `find` after `flat_map` leave both loops.
    o[2] = row.chunks_exact(2).flat_map(|c| c.iter()).take(5).sum();
    o[3] = ys.chunks(3).flat_map(|c| c.iter()).find(|k| **k > 20).copied().map_or(-1.0, |k| k as f32);
    o[4] = if ys.chunks(2).flat_map(|c| c.iter().skip(1)).any(|k| *k == 0) { 1.0 } else { 0.0 };
    // A `for` loop: `continue` goes to the next item, `break 'rows` and `break` leave the loop;
    // a loop of the body's own keeps its `break`.
    let mut b = 0.0f32;
    'rows: for v in row.chunks(4).flat_map(|c| c.iter()) {
        if *v == 0.0 {
            continue;
        }
        if *v > 5.0 {
            break 'rows;
        }
        for _ in 0..3 {
            if b > 6.0 {
                break;
            }
            b += 0.25;
        }
        if b < -20.0 {
            break;
        }
        b += v;
    }
    o[5] = b;
    // `flatten` over an array of arrays.
    let grid = [[1.0f32, 2.0], [3.0, row[0]], [row[1], row[2]]];
    o[6] = grid.iter().flatten().map(|v| v * 2.0).fold(0.0, |s, v| s * 0.5 + v);
    o[7] = grid.iter().flat_map(|r| r.iter()).position(|v| *v < 0.0).map_or(-1.0, |p| p as f32);
}

#[test]
fn flat_map_agrees_with_the_host() {
    let out = agree("it_flat_map", it_flat_map::PTX, 8, it_flat_map, |s, c, x, y, o| it_flat_map::launch(s, c, x, y, o));
    // `find` finds.
    assert!(out.chunks(8).any(|r| r[3] > 20.0));
}

#[kernel]
pub fn it_min_max_by(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let ys = &y[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 6..t * 6 + 6];
    o[0] = row.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).copied().unwrap_or(0.0);
    o[1] = row.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap_or(0.0);
    // The last greatest and the first least, on a key with ties.
    if let Some((i, _)) = ys.iter().enumerate().max_by(|a, b| (a.1 % 7).cmp(&(b.1 % 7))) {
        o[2] = i as f32;
    }
    o[3] = match ys.iter().copied().enumerate().min_by(|a, b| (a.1 % 5).cmp(&(b.1 % 5))) {
        Some((i, k)) => (i * 100) as f32 + k as f32,
        None => -1.0,
    };
    // The sides of the comparison are any expressions of the two items.
    o[4] = row.iter().map(|v| v * 3.0).max_by(|a, b| (a - 1.0).abs().total_cmp(&(b - 1.0).abs())).unwrap_or(0.0);
    o[5] = (0..t as u32 % 4).min_by(|a, b| b.cmp(a)).map_or(-1.0, |v| v as f32);
}

#[test]
fn min_by_and_max_by_agree_with_the_host() {
    let out = agree("it_min_max_by", it_min_max_by::PTX, 6, it_min_max_by, |s, c, x, y, o| it_min_max_by::launch(s, c, x, y, o));
    assert!(out.chunks(6).any(|r| r[5] == -1.0) && out.chunks(6).any(|r| r[5] == 2.0));
}

/// The best item held as an `Option<(usize, &f32)>` whose reference points into a row of
/// global memory, and a reference local assigned after its `let`: their registers take the
/// pointer's space on the first lowering (the fuzzer found the first looping, 20261128:90135).
#[kernel]
pub fn it_best_ref(x: &[f32], y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let row = &x[t * ROW..t * ROW + ROW];
    let o = &mut out[t * 3..t * 3 + 3];
    let c = (y[t * ROW] % 3) as usize;
    if let Some((i, v)) = row.chunks_exact(3).map(|p| &p[c]).enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
        o[0] = i as f32;
        o[1] = *v;
    }
    let pick: &f32;
    if t % 2 == 0 {
        pick = &row[1];
    } else {
        pick = &row[ROW - 1];
    }
    o[2] = *pick;
}

#[test]
fn a_reference_held_in_an_option_agrees_with_the_host() {
    let out = agree("it_best_ref", it_best_ref::PTX, 3, it_best_ref, |s, c, x, y, o| it_best_ref::launch(s, c, x, y, o));
    assert!(out.chunks(3).any(|r| r[0] > 0.0));
}

/// `total_cmp` orders `-0.0` below `0.0` and NaNs at the ends, where `<` cannot.
#[kernel]
pub fn it_total_cmp(x: &[f32], _y: &[u32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let v = [0.0f32, -0.0, x[t], f32::NAN, -f32::NAN];
    let o = &mut out[t * 2..t * 2 + 2];
    let w = [0.0f32, -0.0, x[t]];
    o[0] = w.iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap_or(1.0);
    o[1] = v.iter().copied().min_by(|a, b| a.total_cmp(b)).map_or(0.0, |m| if m.is_nan() { 7.0 } else { m });
}

#[test]
fn total_cmp_orders_as_rust() {
    let out = agree("it_total_cmp", it_total_cmp::PTX, 2, it_total_cmp, |s, c, x, y, o| it_total_cmp::launch(s, c, x, y, o));
    // Where the row's value is negative, `0.0` wins over `-0.0`: its bits are positive.
    assert!(out.chunks(2).any(|r| r[0].to_bits() == 0));
}

// Twins: the iterator form and the loops written by hand.

#[kernel]
pub fn chain_iter(a: &[f32], b: &[f32], out: *mut f32) {
    let s: f32 = a.iter().chain(b).map(|v| v * v).sum();
    unsafe { out.write(s) }
}

#[kernel]
pub fn chain_index(a: &[f32], b: &[f32], out: *mut f32) {
    let mut s = -0.0f32;
    for i in 0..a.len() {
        s += a[i] * a[i];
    }
    for i in 0..b.len() {
        s += b[i] * b[i];
    }
    unsafe { out.write(s) }
}

#[kernel]
pub fn flat_iter(x: &[f32], w: usize, out: *mut f32) {
    let s: f32 = x.chunks_exact(w).flat_map(|r| r.iter()).map(|v| v * v).sum();
    unsafe { out.write(s) }
}

#[kernel]
pub fn flat_index(x: &[f32], w: usize, out: *mut f32) {
    let mut s = -0.0f32;
    for r in 0..x.len() / w {
        for c in 0..w {
            s += x[r * w + c] * x[r * w + c];
        }
    }
    unsafe { out.write(s) }
}

#[test]
fn chain_and_flat_map_compile_to_the_hand_written_loops() {
    for (name, iter, index) in [("chain", chain_iter::PTX, chain_index::PTX), ("flat_map", flat_iter::PTX, flat_index::PTX)] {
        assemble(&format!("{name}_iter"), iter);
        assemble(&format!("{name}_index"), index);
        let (i, j) = (instructions(iter), instructions(index));
        for sm in [80, 90] {
            let (Some(a), Some(b)) = (crate::body_quality::measure(&format!("{name}_iter"), iter, sm), crate::body_quality::measure(&format!("{name}_index"), index, sm)) else { continue };
            let (a, b) = (a[0].2, b[0].2);
            eprintln!("{name} sm_{sm}: SASS {a} with iterators, {b} by hand; PTX {i} / {j}");
            assert!(a as f64 <= b as f64 * 1.02, "{name} sm_{sm}: {a} SASS instructions with iterators, {b} by hand");
        }
    }
}
