//! Bounds checks hoisted out of `for` loops (`ptx-macros/src/ir/hoist.rs`): the PTX keeps no
//! check inside the loop (ptxas accepts it), the results are the host's, and an index that does
//! go out of bounds still stops the kernel with the message and line of its expression; a loop
//! that makes no trip, a check that does not run on every trip, a loop left by `break`, and a
//! loop whose checks report different lines keep their checks where they were.

#![allow(clippy::needless_range_loop)]

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

const TAPS: usize = 9;

/// conv1d's shape: two checks per tap, both on one line, both growing with `k` (and proved not
/// to wrap: `i < 2^32`, `k < 9`).
#[kernel]
pub fn taps(x: &[f32], w: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        let mut acc = 0.0f32;
        for k in 0..9 {
            acc += w[k] * x[i + k];
        }
        y[i] = acc;
    }
}

/// A window whose length and start the caller gives: the check before the loop must not run
/// when the loop makes no trip, and must see an index that wraps.
#[kernel]
pub fn window(x: &[u32], out: &mut [u32], start: usize, n: usize) {
    let t = thread_idx_x() as usize;
    let mut s = 0u32;
    for k in 0..n {
        s = s.wrapping_add(x[start + k]);
    }
    if t < out.len() {
        out[t] = s;
    }
}

/// `k * m + c` with `m` unknown: exact on every trip unless the product overflows, which the
/// code before the loop tests; where it does, the check stays in the loop and decides.
#[kernel]
pub fn strided(x: &[u32], out: &mut [u32], m: usize, c: usize, n: usize) {
    let mut s = 0u32;
    for k in 0..n {
        s = s.wrapping_add(x[k.wrapping_mul(m).wrapping_add(c)]);
    }
    out[0] = s;
}

pub const M3: usize = 3;
pub const M_MAX: usize = usize::MAX;

/// `k * M + c` with `M` a `const` item (a piece rustc writes): the product's overflow test is
/// `n - 1 > usize::MAX / M`, the quotient a piece too, which ptxas folds with the rest where
/// the operands are constants; no `mul.hi`.
macro_rules! strided_by {
    ($($name:ident: $m:ident);*) => {$(
        #[kernel]
        pub fn $name(x: &[u32], out: &mut [u32], c: usize, n: usize) {
            let mut s = 0u32;
            for k in 0..n {
                s = s.wrapping_add(x[k.wrapping_mul($m).wrapping_add(c)]);
            }
            out[0] = s;
        }
    )*};
}

strided_by!(strided_by_3: M3; strided_by_max: M_MAX);

/// A `u32` index widened after a 32-bit addition that may wrap: tested before the loop at the
/// last trip (no carry), and where it carries the check stays in the loop and decides.
#[kernel]
pub fn window32(x: &[u32], out: &mut [u32], start: u32, n: u32) {
    let mut s = 0u32;
    for k in 0..n {
        s = s.wrapping_add(x[start.wrapping_add(k) as usize]);
    }
    out[0] = s;
}

/// The check of `x[k]` runs only on some trips: it stays in the loop.
#[kernel]
pub fn conditional(x: &[u32], out: &mut [u32], n: usize, m: usize) {
    let mut s = 0u32;
    for k in 0..n {
        if k < m {
            s += x[k]; // some trips
        }
    }
    out[0] = s;
}

/// Left by `break` before the index goes out of bounds: the check stays in the loop.
#[kernel]
pub fn until_zero(x: &[u32], out: &mut [u32], n: usize) {
    let mut s = 0u32;
    for k in 0..n {
        if x[k] == 0 {
            break;
        }
        s += x[k];
    }
    out[0] = s;
}

/// Two lines that can fail: Rust reports whichever fails first, so neither is hoisted before
/// the loop. Both fold into the loop's bound instead (`ir/fold.rs`): the loop runs while both
/// would pass, and the code after it reports the first that fails.
#[kernel]
pub fn two_lines(x: &[u32], y: &[u32], out: &mut [u32], n: usize) {
    let mut s = 0u32;
    for k in 0..n {
        s += x[k]; // first
        s += y[k]; // second
    }
    out[0] = s;
}

/// Two loops over the same row, as layernorm's first two: the check hoisted before the second
/// is the one hoisted before the first, which every path to it passed, so `ir/bce.rs` decides it
/// by that test's key (`ir/test_key.rs`).
#[kernel]
pub fn two_passes(x: &[f32], out: &mut [f32], n: u32) {
    let row = thread_idx_x() as usize;
    let n = n as usize;
    let base = row * n;
    let mut sum = 0.0f32;
    for j in 0..n {
        sum += x[base + j]; // the first pass
    }
    let mean = sum / n as f32;
    let mut sq = 0.0f32;
    for j in 0..n {
        let d = x[base + j] - mean;
        sq += d * d;
    }
    if row < out.len() {
        out[row] = sq;
    }
}

/// The `setp.ge.u64` (bounds checks) between a label and a later branch back to it.
fn checks_in_loops(ptx: &str) -> usize {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let mut count = 0;
    for (i, l) in lines.iter().enumerate() {
        let Some(label) = l.strip_suffix(':') else { continue };
        let back = lines[i..].iter().position(|b| b.contains("bra") && b.ends_with(&format!("{label};")));
        if let Some(end) = back {
            count += lines[i..i + end].iter().filter(|b| b.starts_with("setp.ge.u64")).count();
        }
    }
    count
}

fn line_of(text: &str) -> u32 {
    include_str!("body_hoist.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_hoist.rs"), "{file}");
            assert_eq!(line, line_of(at));
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

#[test]
fn checks_of_indices_growing_with_a_for_counter_leave_the_loop() {
    assert!(assemble("taps", taps::PTX));
    let ptx = taps::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    // Before the loop: `8 < w.len()` and `i + 8 < x.len()`, one branch.
    assert_eq!(ptx.lines().filter(|l| l.trim_start().starts_with("setp.ge.u64") || l.trim_start().starts_with("setp.le.u64")).count(), 2, "{ptx}");
    let n = 300;
    let x: Vec<f32> = (0..n + TAPS - 1).map(|k| (k as f32 * 0.37).sin()).collect();
    let w: Vec<f32> = (0..TAPS).map(|k| 0.1 * k as f32 - 0.4).collect();
    let want: Vec<f32> = (0..n).map(|i| (0..TAPS).fold(0.0f32, |acc, k| acc + w[k] * x[i + k])).collect();
    let stream = cpu_stream();
    let (xb, wb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &w).unwrap());
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    taps::launch(&stream, LaunchConfig::for_num_elems(n as u32), &xb, &wb, &mut yb).unwrap();
    assert_eq!(yb.to_vec().unwrap(), want);
    // One element of `x` short: the last thread's last tap is out of bounds.
    let short = DeviceBuffer::from_slice(&stream, &x[..n + TAPS - 2]).unwrap();
    expect_bounds_failure(taps::launch(&stream, LaunchConfig::for_num_elems(n as u32), &short, &wb, &mut yb), "acc += w[k] * x[i + k];");
    // A filter of 8: every thread's ninth tap.
    let w8 = DeviceBuffer::from_slice(&stream, &w[..TAPS - 1]).unwrap();
    expect_bounds_failure(taps::launch(&stream, LaunchConfig::for_num_elems(n as u32), &xb, &w8, &mut yb), "acc += w[k] * x[i + k];");
}

#[test]
fn a_hoisted_check_runs_only_when_the_loop_does_and_sees_a_wrapping_index() {
    assert!(assemble("window", window::PTX));
    let ptx = window::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..40u32).map(|k| k * k + 1).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 8).unwrap();
    window::launch(&stream, LaunchConfig::new(1, 8), &xb, &mut ob, 30usize, 10usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [x[30..40].iter().sum::<u32>(); 8]);
    // No trip: `x[1000 + k]` is never read, and nothing fails.
    window::launch(&stream, LaunchConfig::new(1, 8), &xb, &mut ob, 1000usize, 0usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [0; 8]);
    // The last trip reads x[40].
    expect_bounds_failure(window::launch(&stream, LaunchConfig::new(1, 8), &xb, &mut ob, 31usize, 10usize), "s = s.wrapping_add(x[start + k]);");
    // `start + k` wraps to 0, 1: the last index is in bounds, the first ones are not.
    expect_bounds_failure(window::launch(&stream, LaunchConfig::new(1, 8), &xb, &mut ob, usize::MAX - 1, 4usize), "s = s.wrapping_add(x[start + k]);");
}

#[test]
fn an_index_that_may_wrap_is_checked_before_the_loop_only_where_it_does_not() {
    assert!(assemble("strided", strided::PTX));
    let ptx = strided::PTX;
    // The overflow test before the loop, and the check left in the loop, guarded by its result.
    assert!(ptx.contains("mul.hi.u64"), "{ptx}");
    assert_eq!(checks_in_loops(ptx), 1, "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..13u32).map(|k| 1 << k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let at = "s = s.wrapping_add(x[k.wrapping_mul(m).wrapping_add(c)]);";
    strided::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 3usize, 1usize, 4usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [x[1] + x[4] + x[7] + x[10]]);
    // x[13] on the fifth trip: found before the loop.
    expect_bounds_failure(strided::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 3usize, 1usize, 5usize), at);
    // `m = usize::MAX` walks down: 5, 4, 3, 2, all in bounds, though the product wraps.
    strided::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, usize::MAX, 5usize, 4usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [x[5] + x[4] + x[3] + x[2]]);
    // 2, 1, 0, then 2^64 - 1: the check in the loop stops it.
    expect_bounds_failure(strided::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, usize::MAX, 2usize, 4usize), at);
}

#[test]
fn a_product_by_a_const_item_is_tested_against_its_quotient() {
    // The overflow test compares with `MAX / M`, a piece rustc wrote (6148914691236517205 for
    // 3, 1 for `usize::MAX`), not a `mul.hi`.
    for (name, ptx, q) in [("strided_by_3", strided_by_3::PTX, u64::MAX / 3), ("strided_by_max", strided_by_max::PTX, 1)] {
        assert!(assemble(name, ptx), "{name}");
        assert!(!ptx.contains("mul.hi"), "{name}: {ptx}");
        assert!(ptx.lines().any(|l| l.contains("setp.gt.u64") && l.trim_end().ends_with(&format!(", {q};"))), "{name}: {ptx}");
    }
    let stream = cpu_stream();
    let x: Vec<u32> = (0..13u32).map(|k| 1 << k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    // A kernel made by `macro_rules!` reports the line of the macro's invocation.
    let at = "strided_by!(strided_by_3: M3; strided_by_max: M_MAX);";
    strided_by_3::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 1usize, 4usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [x[1] + x[4] + x[7] + x[10]]);
    expect_bounds_failure(strided_by_3::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 1usize, 5usize), at);
    // By `usize::MAX` the product wraps from the second trip (`4 > 1`): the checks stay in the
    // loop and decide. 5, 4, 3, 2 are in bounds; 2, 1, 0, 2^64 - 1 is not.
    strided_by_max::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 5usize, 4usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [x[5] + x[4] + x[3] + x[2]]);
    expect_bounds_failure(strided_by_max::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 2usize, 4usize), at);
}

#[test]
fn a_32_bit_index_that_may_carry_is_tested_before_the_loop() {
    assert!(assemble("window32", window32::PTX));
    let stream = cpu_stream();
    let x: Vec<u32> = (0..10u32).map(|k| 1 << k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let at = "s = s.wrapping_add(x[start.wrapping_add(k) as usize]);";
    window32::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 6u32, 4u32).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [x[6] + x[7] + x[8] + x[9]]);
    expect_bounds_failure(window32::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 7u32, 4u32), at);
    // 2^32 - 1 + k wraps to 0, 1, 2 after the first trip's 2^32 - 1, which is out of bounds,
    // though the last index is not: the carry keeps the check in the loop, which stops it.
    expect_bounds_failure(window32::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, u32::MAX, 4u32), at);
}

#[test]
fn checks_that_do_not_run_on_every_trip_stay_in_the_loop() {
    for (name, ptx) in [("conditional", conditional::PTX), ("until_zero", until_zero::PTX)] {
        assert!(assemble(name, ptx));
        assert!(checks_in_loops(ptx) >= 1, "{name}: {ptx}");
    }
    assert!(assemble("two_lines", two_lines::PTX));
    assert_eq!(checks_in_loops(two_lines::PTX), 0, "{}", two_lines::PTX);
    let stream = cpu_stream();
    let x: Vec<u32> = vec![5, 6, 7];
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    // `x[k]` only for k < 3 of 10 trips: no failure, though `x[9]` would be out of bounds.
    conditional::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 10usize, 3usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [18]);
    expect_bounds_failure(conditional::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 10usize, 4usize), "s += x[k]; // some trips");
    // The zero ends the loop before `x[3]`.
    let z = DeviceBuffer::from_slice(&stream, &[5u32, 0, 7]).unwrap();
    until_zero::launch(&stream, LaunchConfig::new(1, 1), &z, &mut ob, 10usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [5]);
    expect_bounds_failure(until_zero::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 4usize), "if x[k] == 0 {");
    // `y` is the short one: its line is reported, not `x`'s.
    let long = DeviceBuffer::from_slice(&stream, &[1u32, 2, 3, 4]).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 1), &long, &xb, &mut ob, 4usize), "s += y[k]; // second");
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 1), &xb, &long, &mut ob, 4usize), "s += x[k]; // first");
    // Both short by one: on the trip both fail, the first line is reported.
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 1), &xb, &xb, &mut ob, 4usize), "s += x[k]; // first");
    // `y` shorter than `x` by two: `y`'s line, on an earlier trip than `x` would fail.
    let five = DeviceBuffer::from_slice(&stream, &[1u32, 2, 3, 4, 5]).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 1), &five, &xb, &mut ob, 5usize), "s += y[k]; // second");
    // In bounds, the sum of both.
    two_lines::launch(&stream, LaunchConfig::new(1, 1), &five, &long, &mut ob, 4usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [1 + 2 + 3 + 4 + 1 + 2 + 3 + 4]);
}

#[test]
fn a_second_loop_over_the_same_indices_is_not_checked_again() {
    assert!(assemble("two_passes", two_passes::PTX));
    let ptx = two_passes::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    // `x.len()` is the parameter's second word; one compare reads it, before the first loop.
    let len = ptx.lines().find(|l| l.contains("ld.param.u64") && l.contains("_param_0+8]")).and_then(|l| l.split_whitespace().nth(1)).map(|r| r.trim_end_matches(',')).expect("x.len()");
    let reads = |l: &&str| l.trim_start().starts_with("setp") && l.split(|c: char| c == ',' || c == ';' || c.is_whitespace()).any(|t| t == len);
    assert_eq!(ptx.lines().filter(reads).count(), 1, "{ptx}");
    let (rows, n) = (8usize, 13usize);
    let x: Vec<f32> = (0..rows * n).map(|k| (k as f32 * 0.61).cos()).collect();
    let mut want = vec![0.0f32; rows];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: each thread writes its own row's element.
    host::run([1, 1, 1], [rows as u32, 1, 1], 0, || two_passes(&x, unsafe { o.get() }, n as u32));
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, rows).unwrap();
    two_passes::launch(&stream, LaunchConfig::new(1, rows as u32), &xb, &mut ob, n as u32).unwrap();
    assert_eq!(ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    // The last row one element short: the first pass fails, at its line.
    let short = DeviceBuffer::from_slice(&stream, &x[..rows * n - 1]).unwrap();
    expect_bounds_failure(two_passes::launch(&stream, LaunchConfig::new(1, rows as u32), &short, &mut ob, n as u32), "// the first pass");
}
