//! Bounds checks folded into a loop's bound (`ptx-macros/src/ir/fold.rs`), a `while` loop's or
//! a `for` loop's over a runtime range: the loop
//! runs while its index is below the least of its bound and the checks' lengths, and after it
//! a test reports the check Rust would have failed. Each kernel runs on the CPU backend against
//! the host run of the same body, in bounds and out of bounds (the trap at the line Rust
//! reports, where the host run panics too); ptxas assembles each, and the PTX keeps no
//! bounds check in a folded loop.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, sass, sass_loops};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// saxpy's grid-stride loop from `start`: `x[i]` is checked against `x.len()` on every trip.
#[kernel]
pub fn axpy(a: f32, x: &[f32], y: &mut [f32], start: usize) {
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = start + (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    while i < y.len() {
        y[i] = a * x[i] + y[i]; // axpy
        i += stride;
    }
}

/// dot's loop: `y[i]` under `i < x.len()`, then each thread's partial sum.
#[kernel]
pub fn partial_dot(x: &[f32], y: &[f32], out: &mut [f32]) {
    let t = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = t;
    let mut s = 0.0f32;
    while i < x.len() {
        s += x[i] * y[i]; // dot
        i += stride;
    }
    if t < out.len() {
        out[t] = s;
    }
}

/// softmax's block-stride loop over a row: two checks on two lines with one base.
#[kernel]
pub fn rows(x: &[f32], y: &mut [f32], cols: u32) {
    let base = block_idx_x() as usize * cols as usize;
    let n = cols as usize;
    let threads = block_dim_x() as usize;
    let mut j = thread_idx_x() as usize;
    while j < n {
        let v = x[base + j]; // load
        y[base + j] = v * 2.0; // store
        j += threads;
    }
}

/// softmax's last loop: two identical checks on one line.
#[kernel]
pub fn rows_twice(y: &mut [f32], cols: u32) {
    let base = block_idx_x() as usize * cols as usize;
    let n = cols as usize;
    let mut j = thread_idx_x() as usize;
    while j < n {
        y[base + j] = y[base + j] + 1.0; // twice
        j += block_dim_x() as usize;
    }
}

/// layernorm's row loops, its checks on two lines: a `for` loop over a runtime range (from 1:
/// the first trip's guard compares the start), one row per thread. `ir::hoist` takes a loop
/// whose failures all report one line (layernorm's own); this one folds, and the test after
/// the loop tells the two lines apart.
#[kernel]
pub fn row_affine(x: &[f32], g: &[f32], y: &mut [f32], rows: u32, cols: u32) {
    let row = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = cols as usize;
    if row < rows as usize {
        let base = row * n;
        for j in 1..n {
            let v = x[base + j] * g[j]; // affine load
            y[base + j] = v - 1.0; // affine store
        }
    }
}

/// `base + j` with `base` a parameter: the sum may wrap (here it does, to in-bounds indices),
/// and nothing proves it does not, so the check stays in the loop.
#[kernel]
pub fn wrapping(x: &[u32], out: &mut [u32], base: usize, first: usize, n: usize) {
    let mut j = first;
    let mut s = 0u32;
    while j < n {
        s = s.wrapping_add(x[base.wrapping_add(j)]); // wraps
        j += 1;
    }
    out[0] = s;
}

/// A check after a branch that may leave the loop (`break`) does not fold.
#[kernel]
pub fn until_zero(x: &[u32], y: &[u32], out: &mut [u32]) {
    let mut i = 0usize;
    let mut s = 0u32;
    while i < x.len() {
        if x[i] == 0 {
            break;
        }
        s += y[i]; // after break
        i += 1;
    }
    out[0] = s;
}

/// saxpy as Rust writes a grid-stride loop: `step_by` over `first..y.len()`. `y[i]` is decided
/// by the range (`i < y.len()` whenever the loop's header is entered), `x[i]` folds into the
/// bound, and the latch compares once: in the folded loop the advance cannot wrap.
#[kernel]
pub fn axpy_step(a: f32, x: &[f32], y: &mut [f32], start: usize) {
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let first = start + (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    for i in (first..y.len()).step_by(stride) {
        y[i] = a * x[i] + y[i]; // axpy step
    }
}

/// A `step_by` loop to a bound that is not a length, with a `u32` step (below 2^63: it folds).
#[kernel]
pub fn stepped_u32(x: &[u32], out: &mut [u32], first: usize, n: usize, step: u32) {
    let mut s = 0u32;
    for i in (first..n).step_by(step as usize) {
        s = s.wrapping_add(x[i]); // u32 step
    }
    out[0] = s;
}

/// A step that may be 2^63 or more (a `usize` parameter): the advance may wrap inside the
/// range, where Rust's `StepBy` stops, so the loop keeps its wrap test and its check.
#[kernel]
pub fn stepped_usize(x: &[u32], out: &mut [u32], first: usize, n: usize, step: usize) {
    let mut s = 0u32;
    for i in (first..n).step_by(step) {
        s = s.wrapping_add(x[i]); // usize step
    }
    out[0] = s;
}

/// saxpy's grid-stride loop with a `u32` counter, as CUDA writes it: the checks compare the
/// counter widened (`i as usize`) with the lengths, and fold into the loop's 32-bit bound.
#[kernel]
pub fn axpy_u32(a: f32, x: &[f32], y: &mut [f32], start: usize) {
    let stride = grid_dim_x() * block_dim_x();
    let n = y.len() as u32;
    let mut i = start as u32 + block_idx_x() * block_dim_x() + thread_idx_x();
    while i < n {
        y[i as usize] = a * x[i as usize] + y[i as usize]; // axpy u32
        i += stride;
    }
}

/// `rows` with a `u32` column counter: `base + j as usize`.
#[kernel]
pub fn rows_u32(x: &[f32], y: &mut [f32], cols: u32) {
    let base = block_idx_x() as usize * cols as usize;
    let mut j = thread_idx_x();
    while j < cols {
        let v = x[base + j as usize]; // load u32
        y[base + j as usize] = v * 2.0; // store u32
        j += block_dim_x();
    }
}

/// A `for` loop over a `u32` range, one chunk per thread: the first trip's guard compares
/// 32 bits too. Two lines, so that it folds (one would be hoisted).
#[kernel]
pub fn chunks_u32(x: &[f32], y: &mut [f32], n: u32, chunk: u32) {
    let lo = (block_idx_x() * block_dim_x() + thread_idx_x()) * chunk;
    let hi = (lo + chunk).min(n);
    for i in lo..hi {
        let v = x[i as usize] * 2.0; // chunk u32 load
        y[i as usize] = v + 1.0; // chunk u32 store
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

/// The `setp` instructions of each loop (a label and the last branch back to it), in order.
fn setps_per_loop(ptx: &str) -> Vec<usize> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(label) = l.strip_suffix(':') else { continue };
        let back = lines[i..].iter().rposition(|b| b.contains("bra") && b.ends_with(&format!("{label};")));
        // Not the failure block that the stubs after it jump back to.
        if let Some(end) = back.filter(|&end| !lines[i..i + end].contains(&"trap;")) {
            out.push(lines[i..i + end].iter().filter(|b| b.starts_with("setp.")).count());
        }
    }
    out
}

fn line_of(text: &str) -> u32 {
    include_str!("body_fold.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_fold.rs"), "{file}");
            assert_eq!(line, line_of(at), "expected the failure at `{at}`");
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

/// Whether the host run of `f` panics (the failed check's panic, in one of its threads).
fn host_panics(f: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err()
}

/// The host run of a grid-stride kernel shaped as `axpy` (`axpy` or `axpy_step`).
fn stride_host(body: fn(f32, &[f32], &mut [f32], usize), grid: u32, block: u32, x: &[f32], y0: &[f32], start: usize) -> Vec<f32> {
    let mut y = y0.to_vec();
    let out = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes elements i, i + stride, ... of its own.
    host::run([grid, 1, 1], [block, 1, 1], 0, || body(1.5, x, unsafe { out.get() }, start));
    y
}

type StrideLaunch = dyn Fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>, usize) -> ptx_runtime::Result<()>;

/// Runs a grid-stride kernel shaped as `axpy` against its host run: in bounds (a stride larger
/// than the length, a start past the end, empty slices, x longer than y), and with x one
/// shorter than y, failing at `at`.
fn check_stride_kernel(body: fn(f32, &[f32], &mut [f32], usize), launch: &StrideLaunch, at: &str) {
    let stream = cpu_stream();
    let x: Vec<f32> = (0..300).map(|k| k as f32 * 0.25 - 7.0).collect();
    let y0: Vec<f32> = (0..300).map(|k| 3.0 - k as f32 * 0.5).collect();
    // (grid, block, x's length, y's length, start): in bounds, a stride larger than the
    // length, a start past the end (no trip), empty slices, x longer than y.
    for (grid, block, nx, ny, start) in [(2, 64, 300, 300, 0), (4, 128, 100, 100, 0), (1, 32, 0, 40, 50), (1, 32, 0, 0, 0), (3, 32, 300, 250, 7)] {
        let want = stride_host(body, grid, block, &x[..nx], &y0[..ny], start);
        let xb = DeviceBuffer::from_slice(&stream, &x[..nx]).unwrap();
        let mut yb = DeviceBuffer::from_slice(&stream, &y0[..ny]).unwrap();
        launch(&stream, LaunchConfig::new(grid, block), &xb, &mut yb, start).unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "grid {grid}, block {block}, x {nx}, y {ny}, start {start}");
    }
    // x one shorter than y: on a later trip of one thread (64 threads, 300 elements), on the
    // first trip (a stride larger than the length), and from a start inside the range.
    for (grid, block, start) in [(1, 64, 0), (4, 128, 0), (1, 32, 290)] {
        assert!(host_panics(|| {
            stride_host(body, grid, block, &x[..299], &y0, start);
        }));
        let xb = DeviceBuffer::from_slice(&stream, &x[..299]).unwrap();
        let mut yb = DeviceBuffer::from_slice(&stream, &y0).unwrap();
        expect_bounds_failure(launch(&stream, LaunchConfig::new(grid, block), &xb, &mut yb, start), at);
    }
}

#[test]
fn a_grid_stride_check_folds_into_the_loop_bound_and_still_reports_its_line() {
    assert!(assemble("axpy", axpy::PTX));
    let ptx = axpy::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    assert!(ptx.contains("min.u64"), "{ptx}");
    check_stride_kernel(axpy, &|s, cfg, x, y, start| axpy::launch(s, cfg, 1.5, x, y, start), "y[i] = a * x[i] + y[i]; // axpy");
}

#[test]
fn dots_loop_has_one_compare_and_a_short_y_is_reported() {
    assert!(assemble("partial_dot", partial_dot::PTX));
    let ptx = partial_dot::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    // The loop's own test is its only comparison (`x[i]` is decided by it, `y[i]` folded).
    assert_eq!(setps_per_loop(ptx), [1], "{ptx}");
    let stream = cpu_stream();
    let x: Vec<f32> = (0..500).map(|k| (k as f32 * 0.1).sin()).collect();
    let y: Vec<f32> = (0..500).map(|k| (k as f32 * 0.3).cos()).collect();
    let (grid, block) = (2u32, 64u32);
    let mut want = vec![0.0f32; 128];
    let out = host::Disjoint::new(&mut want);
    // SAFETY: each thread writes its own element.
    host::run([grid, 1, 1], [block, 1, 1], 0, || partial_dot(&x, &y, unsafe { out.get() }));
    let (xb, yb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &y).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 128).unwrap();
    partial_dot::launch(&stream, LaunchConfig::new(grid, block), &xb, &yb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
    let mut scratch = vec![0.0f32; 128];
    let out = host::Disjoint::new(&mut scratch);
    // SAFETY: as above.
    assert!(host_panics(|| host::run([grid, 1, 1], [block, 1, 1], 0, || partial_dot(&x, &y[..499], unsafe { out.get() }))));
    let short = DeviceBuffer::from_slice(&stream, &y[..499]).unwrap();
    expect_bounds_failure(partial_dot::launch(&stream, LaunchConfig::new(grid, block), &xb, &short, &mut ob), "s += x[i] * y[i]; // dot");
}

type RowsLaunch = dyn Fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>, u32) -> ptx_runtime::Result<()>;

fn rows_host(body: fn(&[f32], &mut [f32], u32), blocks: u32, threads: u32, x: &[f32], y0: &[f32], cols: u32) -> Vec<f32> {
    let mut y = y0.to_vec();
    let out = host::Disjoint::new(&mut y);
    // SAFETY: each element is written by one thread between barriers.
    host::run([blocks, 1, 1], [threads, 1, 1], 0, || body(x, unsafe { out.get() }, cols));
    y
}

#[test]
fn checks_of_one_base_on_two_lines_fold_and_report_the_first_that_fails() {
    let launch = |s: &_, cfg, x: &_, y: &mut _, cols| rows::launch(s, cfg, x, y, cols);
    check_rows(rows, &launch, rows::PTX, ["let v = x[base + j]; // load", "y[base + j] = v * 2.0; // store"]);
    // The row's base `block_idx_x() as usize * cols as usize` is nvcc's `mul.wide.u32` of the
    // two `u32`s (`ir::wide_index`), and the folded bound `min(n, len - base)`, at most `n`,
    // is narrowed and widened again (`ir::fold`): ptxas then compares the counter's high half
    // with zero (`RZ`) in the loop instead of keeping the bound's in a register.
    let ptx = rows::PTX;
    assert!(ptx.contains("mul.wide.u32") && !ptx.contains("mul.lo.s64"), "{ptx}");
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let narrowed = lines.windows(2).any(|w| w[0].starts_with("cvt.u32.u64") && w[1].starts_with("cvt.u64.u32") && w[1].ends_with(&format!("{};", w[0].split_whitespace().nth(1).unwrap_or("?").trim_end_matches(','))));
    assert!(narrowed, "{ptx}");
    for sm in [80, 90] {
        let Some(s) = sass("rows", ptx, sm) else { return };
        let loops = sass_loops(&s);
        assert!(!loops.is_empty(), "sm_{sm}: {s:#?}");
        for l in loops {
            for i in &s[l] {
                if i.starts_with("ISETP") && i.contains(".EX") {
                    let ops: Vec<&str> = i.split(';').next().unwrap_or("").split(',').map(str::trim).collect();
                    assert!(ops.len() > 3 && (ops[3] == "RZ" || ops[3].starts_with("c[")), "sm_{sm}: a 64-bit bound in a register: {i}\n{s:#?}");
                }
            }
        }
    }
}

#[test]
fn a_u32_counter_folds_its_widened_index() {
    let launch = |s: &_, cfg, x: &_, y: &mut _, cols| rows_u32::launch(s, cfg, x, y, cols);
    check_rows(rows_u32, &launch, rows_u32::PTX, ["// load u32", "// store u32"]);
    // The loop compares 32 bits, once.
    let ptx = rows_u32::PTX;
    assert_eq!(setps_per_loop(ptx), [1], "{ptx}");
    assert!(loop_lines(ptx).iter().any(|l| l.starts_with("setp.lt.u32")), "{ptx}");

    // The widened counter scaled by an element's size is `mul.wide.u32`, as nvcc writes it
    // (`ir::wide_index`), not a widening and a 64-bit shift: three addresses (x[i], y[i] read,
    // y[i] written).
    let ptx = axpy_u32::PTX;
    assert!(assemble("axpy_u32", ptx));
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    assert_eq!(loop_lines(ptx).iter().filter(|l| l.starts_with("mul.wide.u32")).count(), 3, "{ptx}");
    assert!(loop_lines(ptx).iter().all(|l| !l.starts_with("cvt.u64.u32") && !l.starts_with("shl.b64")), "{ptx}");
    check_stride_kernel(axpy_u32, &|s, cfg, x, y, start| axpy_u32::launch(s, cfg, 1.5, x, y, start), "// axpy u32");
}

#[test]
fn a_for_loop_over_a_u32_range_folds_its_checks() {
    assert!(assemble("chunks_u32", chunks_u32::PTX));
    let ptx = chunks_u32::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    // Folded (the lengths' least, `min.u64`, narrowed to the 32-bit bound), not hoisted.
    assert!(ptx.contains("min.u64") && ptx.contains("cvt.u32.u64"), "{ptx}");
    let stream = cpu_stream();
    let x: Vec<f32> = (0..200).map(|k| k as f32 * 0.5 - 3.0).collect();
    let host = |x: &[f32], ny: usize, n: u32, chunk: u32| {
        let mut y = vec![0.0f32; ny];
        let out = host::Disjoint::new(&mut y);
        // SAFETY: each thread writes its own chunk.
        host::run([2, 1, 1], [32, 1, 1], 0, || chunks_u32(x, unsafe { out.get() }, n, chunk));
        y
    };
    let device = |x: &[f32], ny: usize, n: u32, chunk: u32| {
        let xb = DeviceBuffer::from_slice(&stream, x).unwrap();
        let mut yb = DeviceBuffer::<f32>::zeroed(&stream, ny).unwrap();
        chunks_u32::launch(&stream, LaunchConfig::new(2, 32), &xb, &mut yb, n, chunk).map(|()| yb.to_vec().unwrap())
    };
    // In bounds: chunks that end at `n` inside a thread's chunk, past the last thread, none.
    for (n, chunk) in [(200, 4), (150, 3), (200, 7), (0, 5), (200, 0)] {
        assert_eq!(device(&x, 200, n, chunk).unwrap(), host(&x, 200, n, chunk), "n {n}, chunk {chunk}");
    }
    // `x` or `y` shorter than `n`: the thread whose chunk crosses the end fails at the line
    // of the slice it crosses.
    for (nx, ny, at) in [(199, 200, "// chunk u32 load"), (200, 150, "// chunk u32 store"), (10, 200, "// chunk u32 load")] {
        assert!(host_panics(|| {
            host(&x[..nx], ny, 200, 4);
        }));
        expect_bounds_failure(device(&x[..nx], ny, 200, 4).map(|_| ()), at);
    }
}

/// The instructions of each loop (between a label and the last branch back to it).
fn loop_lines(ptx: &str) -> Vec<&str> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(label) = l.strip_suffix(':') else { continue };
        if let Some(end) = lines[i..].iter().rposition(|b| b.contains("bra") && b.ends_with(&format!("{label};"))) {
            out.extend(&lines[i..i + end]);
        }
    }
    out
}

/// Runs a kernel shaped as `rows` against its host run, in and out of bounds (`at`: the load's
/// line and the store's).
fn check_rows(body: fn(&[f32], &mut [f32], u32), launch: &RowsLaunch, ptx: &str, at: [&str; 2]) {
    assert!(assemble("rows", ptx));
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    // One bounds comparison is left, after the loop: its report chain tests the load's check,
    // then reports the store's (one of them fails).
    assert_eq!(ptx.lines().filter(|l| l.trim_start().starts_with("setp.ge.u64")).count(), 1, "{ptx}");
    // The chain computes the base `block_idx_x() * cols` again from `%ctaid.x` and the
    // parameter, so that the base need not stay live across the loop for it.
    let before = &ptx[..ptx.find("setp.ge.u64").unwrap()];
    let chain_block: Vec<&str> = before.lines().rev().take_while(|l| !l.trim_end().ends_with(':')).collect();
    assert!(chain_block.iter().any(|l| l.contains("%ctaid.x")), "the chain's block reads %ctaid.x again: {ptx}");
    let stream = cpu_stream();
    let (blocks, threads, cols) = (3u32, 32u32, 50u32);
    let n = (blocks * cols) as usize;
    let x: Vec<f32> = (0..n).map(|k| k as f32 * 0.5 - 10.0).collect();
    let y0 = vec![0.0f32; n];
    let run = |x: &[f32], y: &[f32], cols: u32| {
        let xb = DeviceBuffer::from_slice(&stream, x).unwrap();
        let mut yb = if y.is_empty() { DeviceBuffer::<f32>::zeroed(&stream, 0).unwrap() } else { DeviceBuffer::from_slice(&stream, y).unwrap() };
        launch(&stream, LaunchConfig::new(blocks, threads), &xb, &mut yb, cols).map(|()| yb.to_vec().unwrap())
    };
    assert_eq!(run(&x, &y0, cols).unwrap(), rows_host(body, blocks, threads, &x, &y0, cols));
    // No trip: zero columns, empty slices.
    assert_eq!(run(&[], &[], 0).unwrap(), Vec::<f32>::new());
    // `x` short: the load's line; `y` short: the store's; both: the load's (first in the trip);
    // `x` shorter than a row's base: every trip of that row fails at the load.
    let [load, store] = at;
    let cases: [(&[f32], &[f32], &str); 4] = [(&x[..n - 1], &y0, load), (&x, &y0[..n - 1], store), (&x[..n - 1], &y0[..n - 1], load), (&x[..60], &y0, load)];
    for (xs, ys, at) in cases {
        assert!(host_panics(|| {
            rows_host(body, blocks, threads, xs, ys, cols);
        }));
        expect_bounds_failure(run(xs, ys, cols).map(|_| ()), at);
    }
}

#[test]
fn an_index_that_may_wrap_keeps_its_check() {
    assert!(assemble("wrapping", wrapping::PTX));
    let ptx = wrapping::PTX;
    assert_eq!(checks_in_loops(ptx), 1, "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..8u32).map(|k| 1 << k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let host = |base: usize, first: usize, n: usize| {
        let mut out = vec![0u32; 1];
        let o = host::Disjoint::new(&mut out);
        // SAFETY: one thread.
        host::run([1, 1, 1], [1, 1, 1], 0, || wrapping(&x, unsafe { o.get() }, base, first, n));
        out
    };
    // usize::MAX + 1, + 2, + 3 wrap to 0, 1, 2: in bounds (a fold would have failed).
    wrapping::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, usize::MAX, 1usize, 4usize).unwrap();
    assert_eq!(ob.to_vec().unwrap(), host(usize::MAX, 1, 4));
    assert_eq!(ob.to_vec().unwrap(), [x[0] + x[1] + x[2]]);
    assert!(host_panics(|| {
        host(usize::MAX, 0, 4);
    }));
    expect_bounds_failure(wrapping::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, usize::MAX, 0usize, 4usize), "// wraps");
}

#[test]
fn a_check_after_a_break_keeps_its_place() {
    assert!(assemble("until_zero", until_zero::PTX));
    let ptx = until_zero::PTX;
    assert!(checks_in_loops(ptx) >= 1 && !ptx.contains("min.u64"), "{ptx}");
    let stream = cpu_stream();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    // The zero ends the loop before `y[2]`, which does not exist.
    let (x, y) = (DeviceBuffer::from_slice(&stream, &[4u32, 5, 0, 7]).unwrap(), DeviceBuffer::from_slice(&stream, &[1u32, 2]).unwrap());
    until_zero::launch(&stream, LaunchConfig::new(1, 1), &x, &y, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [3]);
    let x = DeviceBuffer::from_slice(&stream, &[4u32, 5, 6, 7]).unwrap();
    expect_bounds_failure(until_zero::launch(&stream, LaunchConfig::new(1, 1), &x, &y, &mut ob), "s += y[i]; // after break");
}

/// The corpus's grid-stride loops: dot's and saxpy's hot loops compare once per trip, and
/// softmax's three row loops keep no check.
#[test]
fn the_corpus_grid_stride_loops_keep_no_check() {
    use crate::corpus::*;
    for (name, ptx) in [("dot", dot::dot::PTX), ("saxpy", saxpy::saxpy::PTX), ("softmax", softmax::softmax::PTX)] {
        assert!(assemble(name, ptx));
        let loops = setps_per_loop(ptx);
        assert_eq!(loops[0], 1, "{name}: {loops:?}\n{ptx}");
    }
    let loops = setps_per_loop(softmax::softmax::PTX);
    // The three `while j < n` loops (the tree reductions between them keep theirs).
    assert_eq!((loops[0], loops[2], loops[4]), (1, 1, 1), "{loops:?}");
}

#[test]
fn two_checks_of_one_index_fold_as_one() {
    assert!(assemble("rows_twice", rows_twice::PTX));
    let ptx = rows_twice::PTX;
    // No bounds comparison at all: the test after the loop decides alone.
    assert_eq!(ptx.lines().filter(|l| l.trim_start().starts_with("setp.ge.u64")).count(), 0, "{ptx}");
    let stream = cpu_stream();
    let (blocks, threads, cols) = (3u32, 16u32, 40u32);
    let y0: Vec<f32> = (0..blocks * cols).map(|k| k as f32).collect();
    let host = |y0: &[f32]| {
        let mut y = y0.to_vec();
        let o = host::Disjoint::new(&mut y);
        // SAFETY: each element is written by one thread.
        host::run([blocks, 1, 1], [threads, 1, 1], 0, || rows_twice(unsafe { o.get() }, cols));
        y
    };
    let mut yb = DeviceBuffer::from_slice(&stream, &y0).unwrap();
    rows_twice::launch(&stream, LaunchConfig::new(blocks, threads), &mut yb, cols).unwrap();
    assert_eq!(yb.to_vec().unwrap(), host(&y0));
    let short = &y0[..y0.len() - 1];
    assert!(host_panics(|| {
        host(short);
    }));
    let mut yb = DeviceBuffer::from_slice(&stream, short).unwrap();
    expect_bounds_failure(rows_twice::launch(&stream, LaunchConfig::new(blocks, threads), &mut yb, cols), "// twice");
}

fn row_affine_host(x: &[f32], g: &[f32], y0: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut y = y0.to_vec();
    let out = host::Disjoint::new(&mut y);
    // SAFETY: each thread writes its own row.
    host::run([2, 1, 1], [4, 1, 1], 0, || row_affine(x, g, unsafe { out.get() }, rows as u32, cols as u32));
    y
}

#[test]
fn a_for_loop_over_a_runtime_range_folds_its_checks() {
    let ptx = row_affine::PTX;
    assert!(assemble("row_affine", ptx));
    // No check in the loop: it runs to the least of `n` and the slices' lengths, computed
    // before it, and the test after it goes straight to the one report.
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    assert!(ptx.lines().any(|l| l.trim_start().starts_with("min.u64")), "{ptx}");
    let stream = cpu_stream();
    let rows = 6;
    for cols in [0usize, 1, 2, 5, 8] {
        let x: Vec<f32> = (0..rows * cols).map(|k| k as f32 * 0.5 - 3.0).collect();
        let g: Vec<f32> = (0..cols).map(|k| 1.0 + k as f32 * 0.25).collect();
        let y0 = vec![9.0f32; rows * cols];
        let want = row_affine_host(&x, &g, &y0, rows, cols);
        let (xb, gb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &g).unwrap());
        let mut yb = DeviceBuffer::from_slice(&stream, &y0).unwrap();
        row_affine::launch(&stream, LaunchConfig::new(2, 4), &xb, &gb, &mut yb, rows as u32, cols as u32).unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "{cols} columns");
        if cols < 2 {
            continue;
        }
        // Each slice one short (the last row's last element, or every row's for `g`), and `x`
        // shorter than a whole first row (every trip of every row fails, the first one too):
        // the host run panics, the device reports the line of the slice that is short.
        let (load, store) = ("// affine load", "// affine store");
        for (xl, gl, yl, at) in [(rows * cols - 1, cols, rows * cols, load), (rows * cols, cols - 1, rows * cols, load), (rows * cols, cols, rows * cols - 1, store), (1, cols, rows * cols, load)] {
            assert!(host_panics(|| {
                row_affine_host(&x[..xl], &g[..gl], &y0[..yl], rows, cols);
            }));
            let (xs, gs) = (DeviceBuffer::from_slice(&stream, &x[..xl]).unwrap(), DeviceBuffer::from_slice(&stream, &g[..gl]).unwrap());
            let mut ys = DeviceBuffer::from_slice(&stream, &y0[..yl]).unwrap();
            expect_bounds_failure(row_affine::launch(&stream, LaunchConfig::new(2, 4), &xs, &gs, &mut ys, rows as u32, cols as u32), at);
        }
    }
}

#[test]
fn layernorm_s_loops_keep_the_memory_descriptor_in_uniform_registers_on_sm_90() {
    // With a failure branch before each loop (the checks hoisted there), ptxas 13.5 once moved
    // sm_90's global memory descriptor into uniform registers (`R2UR`) before every load of
    // the loops: 66 times, and the loops were folded instead. Hoisted again (each loop's
    // checks report one line, `ir::hoist` runs first), the loops count to the uniform `n`
    // and there is none.
    let ptx = crate::corpus::layernorm::layernorm::PTX;
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    assert!(!ptx.contains("min.u64"), "{ptx}");
    let Some(sass) = crate::tools::sass("layernorm_sm90", ptx, 90) else { return };
    assert_eq!(sass.iter().filter(|i| i.starts_with("R2UR")).count(), 0, "{sass:#?}");
}

#[test]
fn a_step_by_grid_stride_loop_folds_like_the_while_loop() {
    let ptx = axpy_step::PTX;
    assert!(assemble("axpy_step", ptx));
    // No check in the loop, one comparison (the bound), a minimum before it.
    assert_eq!(checks_in_loops(ptx), 0, "{ptx}");
    assert_eq!(setps_per_loop(ptx), [1], "{ptx}");
    assert!(ptx.contains("min.u64"), "{ptx}");
    check_stride_kernel(axpy_step, &|s, cfg, x, y, start| axpy_step::launch(s, cfg, 1.5, x, y, start), "y[i] = a * x[i] + y[i]; // axpy step");
}

#[test]
fn a_step_by_loop_folds_only_where_its_advance_cannot_wrap() {
    assert!(assemble("stepped_u32", stepped_u32::PTX) && assemble("stepped_usize", stepped_usize::PTX));
    assert_eq!(checks_in_loops(stepped_u32::PTX), 0, "{}", stepped_u32::PTX);
    // The check and the wrap test (`i >= step` after the advance) stay in the loop.
    assert_eq!(checks_in_loops(stepped_usize::PTX), 2, "{}", stepped_usize::PTX);
    let stream = cpu_stream();
    let x: Vec<u32> = (0..10u32).map(|k| 1 << k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
    let host = |f: &(dyn Fn(&mut [u32]) + Sync)| {
        let mut out = vec![0u32; 1];
        let o = host::Disjoint::new(&mut out);
        // SAFETY: one thread.
        host::run([1, 1, 1], [1, 1, 1], 0, || f(unsafe { o.get() }));
        out
    };
    // (first, n, step): in bounds, an end past the slice that the steps jump over, no trip,
    // and (u32 step) an end of usize::MAX with the slice's end reached first.
    for (first, n, step) in [(0usize, 10usize, 3u32), (1, 10, 1), (2, 13, 7), (12, 5, 2), (9, 10, 4)] {
        stepped_u32::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, first, n, step).unwrap();
        assert_eq!(ob.to_vec().unwrap(), host(&|o| stepped_u32(&x, o, first, n, step)), "{first}..{n} by {step}");
    }
    for (first, n, step, at) in [(0usize, usize::MAX, 4u32, "// u32 step"), (3, 11, 1, "// u32 step")] {
        assert!(host_panics(|| {
            host(&|o| stepped_u32(&x, o, first, n, step));
        }));
        expect_bounds_failure(stepped_u32::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, first, n, step), at);
    }
    // A step of usize::MAX from 1: the advance wraps to 0, inside `1..usize::MAX` but past
    // Rust's last element, so one trip; the folded form would have run a second, from 0.
    for (first, n, step) in [(1usize, usize::MAX, usize::MAX), (3, usize::MAX, usize::MAX - 1), (2, 10, 3)] {
        let want = host(&|o| stepped_usize(&x, o, first, n, step));
        stepped_usize::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, first, n, step).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{first}..{n} by {step}");
    }
    assert_eq!(host(&|o| stepped_usize(&x, o, 1, usize::MAX, usize::MAX)), [x[1]]);
    assert!(host_panics(|| {
        host(&|o| stepped_usize(&x, o, 5, usize::MAX, 6));
    }));
    expect_bounds_failure(stepped_usize::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 5usize, usize::MAX, 6usize), "// usize step");
}
