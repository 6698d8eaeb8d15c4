//! The optimiser's passes (`ptx-macros/src/ir/constprop.rs`, `ir/bce.rs`, `ir/range.rs`,
//! `back/ptx/divide.rs`): each kernel runs on the CPU backend against a host-Rust
//! computation, and the property the pass is for is checked on PTX that ptxas accepts.

// The kernels spell out what the passes must handle (`v % ONE`, `y[i] = 2.0 * x[i] + y[i]`,
// `for k in 0..a.len() { a[k] }`).
#![allow(clippy::modulo_one, clippy::assign_op_pattern, clippy::needless_range_loop)]

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// A `const fn`'s value, which the macro does not read from the source (`front::source_const`
/// evaluates literals and operators only): rustc writes the number into the PTX, as it does
/// for a constant of another crate, and the passes for such constants are what runs.
const fn unread<V>(v: V) -> V {
    v
}

const POW2: usize = unread(16);
const ODD: u32 = unread(7);
const POW2_U32: u32 = unread(8);
const ONE: u64 = unread(1);

/// Division and remainder by constants from outside the body: a power of two becomes a shift or
/// a mask (rustc knows the value; the macro only the name), any other stays a division.
#[kernel]
pub fn divide_by_constants(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() && 6 * i + 5 < out.len() {
        let v = x[i];
        let w = v as u32;
        out[6 * i] = v / POW2 as u64;
        out[6 * i + 1] = v % POW2 as u64;
        out[6 * i + 2] = (w / ODD) as u64 + (w % ODD) as u64 * 1000;
        out[6 * i + 3] = (w / POW2_U32) as u64;
        out[6 * i + 4] = (w % POW2_U32) as u64;
        out[6 * i + 5] = v / ONE + v % ONE;
    }
}

fn divide_on_host(x: &[u64]) -> Vec<u64> {
    x.iter()
        .flat_map(|&v| {
            let w = v as u32;
            [v / 16, v % 16, (w / 7) as u64 + (w % 7) as u64 * 1000, (w / 8) as u64, (w % 8) as u64, v]
        })
        .collect()
}

#[test]
fn division_by_an_outside_constant_is_a_shift_when_a_power_of_two() {
    assert!(assemble("divide_by_constants", divide_by_constants::PTX));
    let ptx = divide_by_constants::PTX;
    // Every 64-bit division is by a power of two here: none is left for ptxas's routine.
    assert!(!ptx.contains("div.u64") && !ptx.contains("rem.u64"), "{ptx}");
    assert!(ptx.contains("shr.u64") && ptx.contains("and.b64"), "{ptx}");
    // 7 is not a power of two: a 32-bit division by the immediate.
    assert!(ptx.contains("div.u32") && ptx.contains("rem.u32"), "{ptx}");
    let x: Vec<u64> = (0..100u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k << 3)).collect();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u64>::zeroed(&stream, 600).unwrap();
    divide_by_constants::launch(&stream, LaunchConfig::new(2, 64), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), divide_on_host(&x));
}

/// Constants propagate into arithmetic, and a loop whose entry test compares two constants
/// (`0 < TILE`) starts without it.
#[kernel]
pub fn constant_trip_count(x: &[u32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < out.len() {
        let mut s = 0u32;
        for k in 0..POW2 {
            s = s.wrapping_add(x[(i + k) % x.len()].wrapping_mul(k as u32 + 1));
        }
        out[i] = s;
    }
}

#[test]
fn constants_propagate_into_arithmetic_and_decide_branches() {
    assert!(assemble("constant_trip_count", constant_trip_count::PTX));
    let ptx = constant_trip_count::PTX;
    // The loop's entry test `0 < 16` was decided: no comparison with the immediate 0 first.
    assert!(!ptx.lines().any(|l| l.trim_start().starts_with("setp.") && l.contains(", 0, 16;")), "{ptx}");
    let x: Vec<u32> = (0..50u32).map(|k| k.wrapping_mul(2_654_435_761)).collect();
    let want: Vec<u32> =
        (0..70).map(|i| (0..16).fold(0u32, |s, k| s.wrapping_add(x[(i + k) % x.len()].wrapping_mul(k as u32 + 1)))).collect();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 70).unwrap();
    constant_trip_count::launch(&stream, LaunchConfig::new(3, 32), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
}

/// `i < y.len()` is the loop condition: the check of `y[i]` is decided by it. `x[i]` is checked
/// against another length, which the loop condition does not decide.
#[kernel]
pub fn guarded_by_the_loop(x: &[f32], y: &mut [f32]) {
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    while i < y.len() {
        y[i] = 2.0 * x[i] + y[i];
        i += stride;
    }
}

/// The different comparisons (a rotated loop's test is written twice: before the loop and at
/// its bottom, `ir/rotate.rs`).
fn comparisons(ptx: &str) -> usize {
    let ptx = crate::tools::without_report_blocks(ptx);
    let mut setps: Vec<&str> = ptx.lines().map(str::trim).filter(|l| l.starts_with("setp.")).collect();
    setps.sort();
    setps.dedup();
    setps.len()
}

#[test]
fn a_bounds_check_decided_by_the_loop_condition_is_removed_and_others_stay() {
    assert!(assemble("guarded_by_the_loop", guarded_by_the_loop::PTX));
    // The loop condition and `x`'s check; `y`'s check went with the condition.
    assert_eq!(comparisons(guarded_by_the_loop::PTX), 2, "{}", guarded_by_the_loop::PTX);
    let stream = cpu_stream();
    let x: Vec<f32> = (0..300).map(|k| k as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..300).map(|k| 1.0 - k as f32).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::from_slice(&stream, &y0).unwrap();
    guarded_by_the_loop::launch(&stream, LaunchConfig::new(2, 32), &xb, &mut yb).unwrap();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 2.0 * x + y).collect();
    assert_eq!(yb.to_vec().unwrap(), want);
    // `x` shorter than `y`: its check still stops the kernel.
    let short = DeviceBuffer::from_slice(&stream, &x[..200]).unwrap();
    match guarded_by_the_loop::launch(&stream, LaunchConfig::new(2, 32), &short, &mut yb) {
        Err(ptx_runtime::Error::Assert { message, .. }) => assert_eq!(message, "index out of bounds"),
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

/// A fact is forgotten when its register changes: after `i += 1` the old `i < len` says
/// nothing, and the check of `y[i]` must stay.
#[kernel]
pub fn changed_after_the_test(y: &mut [u32], extra: u32) {
    let mut i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        i += extra as usize;
        y[i] = 1;
    }
}

#[test]
fn a_check_after_its_value_changed_stays() {
    assert!(assemble("changed_after_the_test", changed_after_the_test::PTX));
    let stream = cpu_stream();
    let mut yb = DeviceBuffer::<u32>::zeroed(&stream, 8).unwrap();
    changed_after_the_test::launch(&stream, LaunchConfig::new(1, 4), &mut yb, 2u32).unwrap();
    assert_eq!(yb.to_vec().unwrap(), [0, 0, 1, 1, 1, 1, 0, 0]);
    match changed_after_the_test::launch(&stream, LaunchConfig::new(1, 8), &mut yb, 1u32) {
        Err(ptx_runtime::Error::Assert { message, .. }) => assert_eq!(message, "index out of bounds"),
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

/// Indices proved in bounds without launch bounds (`ir/range.rs`): `lane_id() < 32` and
/// `v & 31 <= 31` into a 32-element shared array need no check; `out`'s stays.
#[kernel]
pub fn masked_lane_counts(x: &[u32], out: &mut [u32]) {
    let mut counts = unsafe { shared_array::<u32, 32>() };
    let lane = lane_id() as usize;
    if thread_idx_x() < 32 {
        counts[lane] = 0;
    }
    sync_threads();
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        unsafe { atomic::fetch_add(&mut counts[(x[i] & 31) as usize], 1, core::sync::atomic::Ordering::Relaxed, atomic::Scope::Block) };
    }
    sync_threads();
    if thread_idx_x() < 32 {
        out[block_idx_x() as usize * 32 + lane] = counts[lane];
    }
}

#[test]
fn lane_and_masked_indices_need_no_check() {
    let ptx = masked_lane_counts::PTX;
    assert!(assemble("masked_lane_counts", ptx));
    let against_32 = ptx.lines().filter(|l| l.trim_start().starts_with("setp.") && l.trim_end().ends_with(", 32;")).count();
    // `thread_idx_x() < 32` is the program's own test (twice); no bounds check compares with 32.
    assert_eq!(against_32, 2, "{ptx}");
    let x: Vec<u32> = (0..500u32).map(|k| k.wrapping_mul(2654435761) >> 5).collect();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 4 * 32).unwrap();
    masked_lane_counts::launch(&stream, LaunchConfig::new(4, 128), &xb, &mut ob).unwrap();
    let mut want = vec![0u32; 4 * 32];
    for (i, v) in x.iter().enumerate() {
        want[(i / 128) * 32 + (v & 31) as usize] += 1;
    }
    assert_eq!(ob.to_vec().unwrap(), want);
}

/// Value ranges (`ir/range.rs`) decide bounds checks: `%laneid < 32` indexes an array of 32,
/// `threadIdx.x % 8` one of 8 (and of 32), with no check; `lane + 1` may reach 32 and keeps its
/// check, which still stops the kernel at its line.
#[kernel]
pub fn indexed_by_lane(out: &mut [u32], shift: u32) {
    let lane = lane_id() as usize;
    let t = thread_idx_x() as usize;
    let mut a = [0u32; 32];
    let mut b = [0u32; 8];
    a[lane] = t as u32 + 1;
    b[t % 8] = lane as u32;
    let i = (block_idx_x() * block_dim_x()) as usize + t;
    let v = a[lane] * 100 + b[t % 8] + a[t % 8];
    let w = if shift > 0 { a[lane + shift as usize] } else { 0 };
    if i < out.len() {
        out[i] = v + w;
    }
}

fn bounds_checks(ptx: &str) -> Vec<&str> {
    ptx.lines().filter(|l| l.trim_start().starts_with("setp.ge.u64")).collect()
}

#[test]
fn bounds_checks_decided_by_value_ranges_are_removed() {
    assert!(assemble("indexed_by_lane", indexed_by_lane::PTX));
    let ptx = indexed_by_lane::PTX;
    // Left: `out[i]` (under `i < out.len()`, decided by the comparison before it) is gone too;
    // what stays is `a[lane + shift]`.
    assert_eq!(bounds_checks(ptx).len(), 1, "{ptx}");
    let stream = cpu_stream();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 128).unwrap();
    indexed_by_lane::launch(&stream, LaunchConfig::new(2, 64), &mut ob, 0u32).unwrap();
    let want: Vec<u32> = (0..128u32)
        .map(|i| {
            let (t, lane) = (i % 64, i % 32);
            // Each thread writes its own `a` and `b`: a[lane] = t + 1, b[t % 8] = lane; a[t % 8]
            // is t + 1 when t % 8 == lane, else 0.
            let a_t8 = if t % 8 == lane { t + 1 } else { 0 };
            (t + 1) * 100 + lane + a_t8
        })
        .collect();
    assert_eq!(ob.to_vec().unwrap(), want);
    // `lane + 1` is 32 for the last lane: the check that stayed stops the kernel at its line.
    match indexed_by_lane::launch(&stream, LaunchConfig::new(1, 32), &mut ob, 1u32) {
        Err(ptx_runtime::Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_opt.rs"), "{file}");
            let want = include_str!("body_opt.rs").lines().position(|l| l.contains("let w = if shift > 0 { a[lane + shift as usize] }")).unwrap() + 1;
            assert_eq!(line as usize, want);
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

/// A `for` counter is below its end at the loop's header (`Func::entry_facts`): `a[k]` for
/// `k in 0..16` or `0..a.len()` of a `[u32; 16]` needs no check; `k in 0..n` keeps it.
#[kernel]
pub fn counted_loops(out: &mut [u32], n: usize) {
    let t = thread_idx_x() as usize;
    let mut a = [0u32; 16];
    for k in 0..16 {
        a[k] = (t + k) as u32;
    }
    let mut s = 0u32;
    for k in 0..a.len() {
        s += a[k];
    }
    for k in 0..n {
        s += a[k] * 1000;
    }
    if t < out.len() {
        out[t] = s;
    }
}

#[test]
fn bounds_checks_decided_by_a_loop_counter_are_removed() {
    assert!(assemble("counted_loops", counted_loops::PTX));
    let ptx = counted_loops::PTX;
    // Of the checks against the array's 16, only `a[k]` under `k < n` stays, made once before
    // its loop for the last trip's index (`ir/hoist.rs`): `n - 1 >= 16`.
    let at_16: Vec<&str> = bounds_checks(ptx).into_iter().filter(|l| l.ends_with(", 16;")).collect();
    assert_eq!(at_16.len(), 1, "{ptx}");
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let check = lines.iter().position(|l| *l == at_16[0].trim()).unwrap();
    let first_label = lines.iter().position(|l| l.ends_with(':')).unwrap();
    assert!(check < first_label, "the check is before the loops: {ptx}");
    let stream = cpu_stream();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 64).unwrap();
    counted_loops::launch(&stream, LaunchConfig::new(1, 64), &mut ob, 3usize).unwrap();
    let want: Vec<u32> = (0..64u32).map(|t| (16 * t + 120) + 1000 * (3 * t + 3)).collect();
    assert_eq!(ob.to_vec().unwrap(), want);
    match counted_loops::launch(&stream, LaunchConfig::new(1, 64), &mut ob, 17usize) {
        Err(ptx_runtime::Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            let want = include_str!("body_opt.rs").lines().position(|l| l.contains("s += a[k] * 1000;")).unwrap() + 1;
            assert_eq!(line as usize, want);
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

/// A `u32` counter widened to index (`cvt.u64.u32`) keeps its bound.
#[kernel]
pub fn counted_u32(out: &mut [u32]) {
    let t = thread_idx_x();
    let mut a = [0u32; 8];
    for k in 0..8u32 {
        a[(t as usize + k as usize) % 8] = k;
    }
    let mut s = 0u32;
    for k in 0..8u32 {
        s += a[k as usize] << k;
    }
    let i = t as usize;
    if i < out.len() {
        out[i] = s;
    }
}

#[test]
fn a_widened_u32_counter_keeps_its_bound() {
    assert!(assemble("counted_u32", counted_u32::PTX));
    let ptx = counted_u32::PTX;
    assert_eq!(bounds_checks(ptx).len(), 0, "{ptx}");
    let stream = cpu_stream();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    counted_u32::launch(&stream, LaunchConfig::new(1, 32), &mut ob).unwrap();
    let want: Vec<u32> = (0..32u32)
        .map(|t| {
            let mut a = [0u32; 8];
            for k in 0..8u32 {
                a[(t as usize + k as usize) % 8] = k;
            }
            (0..8u32).map(|k| a[k as usize] << k).sum()
        })
        .collect();
    assert_eq!(ob.to_vec().unwrap(), want);
}

/// `for j in 0..x.len() { x[j] }`: the counter is below the length it indexes.
#[kernel]
pub fn sum_by_index(x: &[u32], out: &mut [u32]) {
    let mut s = 0u32;
    for j in 0..x.len() {
        s = s.wrapping_add(x[j]);
    }
    let i = thread_idx_x() as usize;
    if i < out.len() {
        out[i] = s;
    }
}

#[test]
fn indexing_a_slice_by_its_own_for_counter_is_unchecked() {
    assert!(assemble("sum_by_index", sum_by_index::PTX));
    let ptx = sum_by_index::PTX;
    // Only the loop's emptiness test `0 >= len` is a `setp.ge`.
    assert!(bounds_checks(ptx).iter().all(|l| l.contains(" 0, ")), "{ptx}");
    assert!(!ptx.contains("trap;"), "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..100u32).map(|k| k.wrapping_mul(2654435761)).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 4).unwrap();
    sum_by_index::launch(&stream, LaunchConfig::new(1, 4), &xb, &mut ob).unwrap();
    let s = x.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    assert_eq!(ob.to_vec().unwrap(), [s; 4]);
}

/// Reversed and stepped ranges over a slice's own length: their counters stay below the end
/// too (`Func::entry_facts`), so none of the four loops checks `x[j]`; the reversed ranges
/// by a step, to `n` (not a length), keep theirs.
#[kernel]
pub fn sum_reversed(x: &[u32], out: &mut [u32], step: usize, n: usize) {
    let mut s = 0u32;
    for j in (0..x.len()).rev() {
        s = s.wrapping_mul(3).wrapping_add(x[j]);
    }
    for j in (1..x.len()).step_by(step) {
        s = s.wrapping_mul(5).wrapping_add(x[j]);
    }
    for j in (0..x.len()).rev().step_by(step) {
        s = s.wrapping_mul(7).wrapping_add(x[j]);
    }
    for j in (0..x.len()).step_by(step).rev() {
        s = s.wrapping_mul(11).wrapping_add(x[j]);
    }
    for j in (0..n).rev() {
        s = s.wrapping_add(x[j]); // to n
    }
    let i = thread_idx_x() as usize;
    if i < out.len() {
        out[i] = s;
    }
}

#[test]
fn reversed_and_stepped_counters_are_below_their_end() {
    assert!(assemble("sum_reversed", sum_reversed::PTX));
    let ptx = sum_reversed::PTX;
    // Of the compares with `x.len()`, one is a bounds check: `x[j]` of the loop to `n`. The
    // others are the loops' emptiness tests (`0 >= len`, `1 >= len`).
    let len = ptx.lines().find(|l| l.contains("_param_0+8]")).and_then(|l| l.split_whitespace().nth(1)).expect("x's length").trim_end_matches(',');
    let checks: Vec<&str> = bounds_checks(ptx).into_iter().filter(|l| l.trim_end().ends_with(&format!(" {len};")) && !l.contains(" 0, ") && !l.contains(" 1, ")).collect();
    assert_eq!(checks.len(), 1, "{checks:?}\n{ptx}");
    assert_eq!(ptx.matches("trap;").count(), 1, "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..37u32).map(|k| k.wrapping_mul(2654435761)).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 2).unwrap();
    for (step, n) in [(1usize, 37usize), (4, 0), (5, 12), (100, 1)] {
        let mut want = vec![0u32; 2];
        let o = host::Disjoint::new(&mut want);
        // SAFETY: each thread writes its own element.
        host::run([1, 1, 1], [2, 1, 1], 0, || sum_reversed(&x, unsafe { o.get() }, step, n));
        sum_reversed::launch(&stream, LaunchConfig::new(1, 2), &xb, &mut ob, step, n).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "step {step}, n {n}");
    }
    match sum_reversed::launch(&stream, LaunchConfig::new(1, 2), &xb, &mut ob, 3usize, 38usize) {
        Err(ptx_runtime::Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            let want = include_str!("body_opt.rs").lines().position(|l| l.contains("x[j]); // to n")).unwrap() + 1;
            assert_eq!(line as usize, want);
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

/// `1.0 / x` in both widths, and a division by something other than one.
#[kernel]
pub fn reciprocals(x: &[f32], xd: &[f64], y: &mut [f32], yd: &mut [f64], z: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() && i < y.len() && i < z.len() && i < xd.len() && i < yd.len() {
        y[i] = 1.0 / x[i];
        yd[i] = 1.0 / xd[i];
        z[i] = 2.0 / x[i];
    }
}

/// Values where a reciprocal is hard: signed zeros, infinities, NaN, the smallest and largest
/// subnormals and normals (whose reciprocals overflow or are subnormal), powers of two, values
/// next to them, and a spread of ordinary numbers.
fn hard_f32() -> Vec<f32> {
    let mut v = vec![0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, f32::MAX, -f32::MAX, 1.0, -1.0, 3.0, 0.1];
    for bits in [1u32, 2, 3, 0x0007_ffff, 0x0040_0000, 0x007f_ffff, 0x0080_0001, 0x7e80_0000, 0x7e7f_ffff, 0x7eff_ffff, 0x3f80_0001, 0x3f7f_ffff] {
        v.push(f32::from_bits(bits));
        v.push(-f32::from_bits(bits));
    }
    let mut s = 0x1234_5678u32;
    for _ in 0..200 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v.push(f32::from_bits(s));
    }
    v
}

#[test]
fn one_over_x_is_nvcc_s_correctly_rounded_reciprocal() {
    let ptx = reciprocals::PTX;
    assert!(assemble("reciprocals", ptx));
    // nvcc writes `rcp.rn` for `1.0f / x` and `1.0 / x`, and keeps `div.rn` for `2.0f / x`.
    if let Some(nvcc) = crate::tools::nvcc_ptx("reciprocals_twin", "extern \"C\" __global__ void k(float *x, double *xd, float *y, double *yd, float *z) { y[0] = 1.0f / x[0]; yd[0] = 1.0 / xd[0]; z[0] = 2.0f / x[0]; }") {
        for op in ["rcp.rn.f32", "rcp.rn.f64", "div.rn.f32"] {
            assert!(nvcc.contains(op), "nvcc: {nvcc}");
        }
    }
    for op in ["rcp.rn.f32", "rcp.rn.f64", "div.rn.f32"] {
        assert_eq!(ptx.matches(op).count(), 1, "{op}: {ptx}");
    }
    assert!(!ptx.contains("div.rn.f64"), "{ptx}");
    // Both round correctly, so the bits are the division's, on the host and on the device.
    let x = hard_f32();
    let xd: Vec<f64> = x.iter().map(|&v| v as f64 * 1.000000001).chain([f64::MIN_POSITIVE, 5e-324, 1e308, -1e-310]).collect();
    let x: Vec<f32> = x.into_iter().chain([7.0; 4]).collect();
    let n = x.len();
    let stream = cpu_stream();
    let (xb, xdb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &xd).unwrap());
    let (mut yb, mut ydb, mut zb) = (DeviceBuffer::<f32>::zeroed(&stream, n).unwrap(), DeviceBuffer::<f64>::zeroed(&stream, n).unwrap(), DeviceBuffer::<f32>::zeroed(&stream, n).unwrap());
    reciprocals::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &xb, &xdb, &mut yb, &mut ydb, &mut zb).unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| if f.is_nan() { u32::MAX } else { f.to_bits() }).collect::<Vec<_>>();
    let bits64 = |v: &[f64]| v.iter().map(|f| if f.is_nan() { u64::MAX } else { f.to_bits() }).collect::<Vec<_>>();
    assert_eq!(bits(&yb.to_vec().unwrap()), bits(&x.iter().map(|v| 1.0 / v).collect::<Vec<_>>()));
    assert_eq!(bits64(&ydb.to_vec().unwrap()), bits64(&xd.iter().map(|v| 1.0 / v).collect::<Vec<_>>()));
    assert_eq!(bits(&zb.to_vec().unwrap()), bits(&x.iter().map(|v| 2.0 / v).collect::<Vec<_>>()));
}

/// Loops of every kind the lowering makes: a `for` over a runtime range, a `while` with
/// `continue` and `break`, a nested pair, and a `loop` left by `break`.
#[kernel]
pub fn loop_shapes(x: &[u32], out: &mut [u32], n: u32) {
    let t = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if t < out.len() {
        let n = n as usize;
        let mut acc = 0u32;
        for j in 0..n.min(x.len()) {
            acc = acc.wrapping_add(x[j] ^ t as u32);
        }
        let mut i = t;
        while i < x.len() {
            i += 3;
            if x[i - 3] % 5 == 0 {
                continue;
            }
            if x[i - 3] > 900 {
                break;
            }
            acc = acc.wrapping_mul(31).wrapping_add(x[i - 3]);
        }
        for a in 0..t % 4 {
            for b in a..n.min(6) {
                acc += (a * 7 + b) as u32;
            }
        }
        let mut k = t as u32;
        loop {
            k = k / 2 + 1;
            acc ^= k;
            if k <= 2 {
                break;
            }
        }
        out[t] = acc;
    }
}

fn loop_shapes_on_host(x: &[u32], threads: usize, n: u32) -> Vec<u32> {
    let mut out = vec![0u32; threads];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each thread writes its own element.
    host::run([threads.div_ceil(32) as u32, 1, 1], [32, 1, 1], 0, || loop_shapes(x, unsafe { o.get() }, n));
    out
}

#[test]
fn loops_are_rotated_and_compute_the_same() {
    let ptx = loop_shapes::PTX;
    assert!(assemble("loop_shapes", ptx));
    // Every branch back to an earlier label is conditional and follows its own `setp` (the
    // header's test, copied), as in nvcc's PTX; none is a `bra.uni` to a test at the top.
    let lines: Vec<&str> = ptx.lines().map(str::trim).filter(|l| !l.starts_with(".loc")).collect();
    let labels: Vec<(usize, &str)> = lines.iter().enumerate().filter_map(|(i, l)| l.strip_suffix(':').map(|n| (i, n))).collect();
    // The failed checks' blocks are laid out last, from the first `call` on; their stubs jump
    // back to the call.
    let hot = lines.iter().position(|l| l.starts_with("call")).unwrap_or(lines.len());
    let mut back = 0;
    for (i, l) in lines[..hot].iter().enumerate() {
        let Some(target) = l.split("bra").nth(1).map(|t| t.trim().trim_end_matches(';')) else { continue };
        if labels.iter().any(|&(at, name)| name == target && at < i) {
            back += 1;
            assert!(l.starts_with('@'), "an unconditional branch back: `{l}` in\n{ptx}");
            assert!(lines[..i].iter().rev().take(3).any(|p| p.starts_with("setp")), "no test before `{l}` in\n{ptx}");
        }
    }
    assert!(back >= 4, "{back} loops in\n{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..97u32).map(|k| (k * 7919) % 1000).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    for (threads, n) in [(1usize, 0u32), (5, 1), (64, 40), (70, 200)] {
        let want = loop_shapes_on_host(&x, threads, n);
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, threads).unwrap();
        loop_shapes::launch(&stream, LaunchConfig::new(threads.div_ceil(32) as u32, 32), &xb, &mut ob, n).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{threads} threads, n = {n}");
    }
    // An empty `x`: every loop over it runs no trip.
    let empty = DeviceBuffer::<u32>::zeroed(&stream, 0).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 8).unwrap();
    loop_shapes::launch(&stream, LaunchConfig::new(1, 32), &empty, &mut ob, 5).unwrap();
    assert_eq!(ob.to_vec().unwrap(), loop_shapes_on_host(&[], 8, 5));
}

/// An `if` whose arms the optimiser empties (`let t = ..;` with `t` never read), in a loop:
/// the branch is a jump once nothing tells its two ways apart, and what only it read goes. The
/// branch left in was the shape on which ptxas 13.5 crashed for sm_75 at -O1 and above
/// (difftest seed 208851637, kernel 11).
#[kernel]
#[allow(unused_variables)]
pub fn empty_arms(x: &[f32], out: &mut [u32], n: u16, m: u16) {
    let (a, b) = (x[0], x[1]);
    let mut c = 0u32;
    for i in 3u16..n {
        if a >= b {
            if i < m {
                let t = i.wrapping_mul(3);
            }
        } else {
            let u = i.wrapping_add(1);
        }
        c += 2;
    }
    out[0] = c;
}

#[test]
fn a_branch_whose_ways_meet_is_a_jump() {
    let ptx = empty_arms::PTX;
    assert!(assemble("empty_arms", ptx));
    // The loop's counter test and the checks of `x[0]`, `x[1]` and `out[0]` are the only
    // conditional branches: no compare of the two floats is left, nor `i < m`.
    assert!(!ptx.contains("setp.ge.f32"), "{ptx}");
    assert_eq!(ptx.lines().filter(|l| l.trim_start().starts_with("setp.lt.u16")).count(), 1, "{ptx}");
    let lines: Vec<&str> = ptx.lines().map(str::trim).filter(|l| !l.starts_with(".loc")).collect();
    for w in lines.windows(2) {
        if let (Some(target), Some(label)) = (w[0].strip_prefix('@').and_then(|b| b.split("bra").nth(1)), w[1].strip_suffix(':')) {
            assert_ne!(target.trim().trim_end_matches(';').trim(), label, "a branch to the next line: {ptx}");
        }
    }
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &[2.0f32, 1.0, 9.0]).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    for n in [0u16, 3, 4, 10] {
        empty_arms::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, n, 6).unwrap();
        let mut want = [0u32];
        empty_arms(&[2.0, 1.0, 9.0], &mut want, n, 6);
        assert_eq!(ob.to_vec().unwrap(), want, "n = {n}");
    }
}
