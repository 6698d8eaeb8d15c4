//! Checks decided by others of a combined run (`ptx-macros/src/ir/subsume.rs`, with the ranges
//! of `ir/path_range.rs`): of checks against one length on one base, the branch compares only
//! the greatest index and, where an index can wrap below zero, the least. Results are the
//! host's, each way out of bounds still traps at its line (the first in the source's order
//! where the run spans lines), and checks that nothing orders stay.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// The stencil's interior: under `x != 0`, `y != 0`, `x + 1 < width`, `y + 1 < height`, `w >= 2`
/// and `i >= w + 1`, so no index wraps below zero and `i + w` is the greatest.
#[kernel]
pub fn interior(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x == 0 || y == 0 || x + 1 >= width || y + 1 >= height {
        return;
    }
    let w = width as usize;
    let i = y as usize * w + x as usize;
    output[i] = input[i] + input[i - 1] * 2.0 + input[i + 1] * 3.0 + input[i - w] * 4.0 + input[i + w] * 5.0;
}

/// Constant offsets on a base that may be zero: `x[i + 3]` is the greatest, `x[i - 2]` the
/// least and the only one that can wrap; `x[i]` and `x[i - 1]` need no compare.
#[kernel]
pub fn taps(x: &[f32], y: &mut [f32], k: u32) {
    let i = thread_idx_x() as usize + k as usize;
    y[i] = x[i - 2] + x[i] * 2.0 + x[i + 3] * 3.0 + x[i - 1] * 4.0;
}

/// Two lines: the branch compares `x[i + 2]` alone, and the report chain finds the first line
/// that fails.
#[kernel]
pub fn two_lines(x: &[f32], y: &mut [f32], k: u32) {
    let i = thread_idx_x() as usize + k as usize;
    let a = x[i + 1];
    y[i] = a + x[i + 2] * 2.0 + x[i] * 3.0;
}

/// `w` may be zero (`i + 1` is then the greater), and `i + k` may wrap above (`k` is any
/// `usize`): nothing is decided.
#[kernel]
pub fn unordered(x: &[f32], y: &mut [f32], w: u32, k: usize) {
    let t = thread_idx_x() as usize;
    let i = t + k;
    y[t] = x[t + 1] + x[t + w as usize] * 2.0 + x[i] * 3.0 + x[i + 1] * 4.0;
}

/// softmax's `y[base + j] = y[base + j] / total` outside a loop: two checks of one index
/// (computed twice) against one length, on one line, with an index no range bounds.
#[kernel]
pub fn same_index(y: &mut [f32], base: usize, t: f32) {
    let j = thread_idx_x() as usize;
    y[base + j] = y[base + j] / t; // same index
}

fn line_of(text: &str) -> u32 {
    include_str!("body_subsume.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_subsume.rs"), "{file}");
            assert_eq!(line, line_of(at), "expected the failure at `{at}`");
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

/// The register holding parameter `n`'s length (a slice is a pointer and a length: `+8`).
fn length_register(ptx: &str, n: usize) -> String {
    let at = format!("_param_{n}+8]");
    let line = ptx.lines().map(str::trim).find(|l| l.starts_with("ld.param.u64") && l.ends_with(&format!("{at};"))).expect("the length's load");
    line.split_whitespace().nth(1).unwrap().trim_end_matches(',').to_owned()
}

/// The comparisons against parameter `n`'s length before the first global load: the combined
/// branch's (the report chain, after the kernel's body, tests them again).
fn hot_compares(ptx: &str, n: usize) -> usize {
    let len = length_register(ptx, n);
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let first_load = lines.iter().position(|l| l.starts_with("ld.global")).expect("a load");
    lines[..first_load].iter().filter(|l| l.starts_with("setp.ge.u64") && l.ends_with(&format!(", {len};"))).count()
}

fn all_compares(ptx: &str, n: usize) -> usize {
    let len = length_register(ptx, n);
    ptx.lines().map(str::trim).filter(|l| l.starts_with("setp.ge.u64") && l.ends_with(&format!(", {len};"))).count()
}

#[test]
fn the_stencils_interior_compares_its_greatest_index_only() {
    assert!(assemble("interior", interior::PTX));
    assert_eq!(hot_compares(interior::PTX, 0), 1, "{}", interior::PTX);
    let stream = cpu_stream();
    let (w, h) = (37usize, 19usize);
    let input: Vec<f32> = (0..w * h).map(|k| (k * k % 23) as f32).collect();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, w * h).unwrap();
    let cfg = LaunchConfig::new((3, 3, 1), (16, 8, 1));
    interior::launch(&stream, cfg, &ib, &mut ob, w as u32, h as u32).unwrap();
    let mut want = vec![0.0f32; w * h];
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            want[i] = input[i] + input[i - 1] * 2.0 + input[i + 1] * 3.0 + input[i - w] * 4.0 + input[i + w] * 5.0;
        }
    }
    assert_eq!(ob.to_vec().unwrap(), want);
    let at = "output[i] = input[i] + input[i - 1] * 2.0";
    // The last interior point's `input[i + w]` is the last element: one short fails there.
    let short = DeviceBuffer::from_slice(&stream, &input[..w * (h - 1) + w - 2]).unwrap();
    expect_bounds_failure(interior::launch(&stream, cfg, &short, &mut ob, w as u32, h as u32), at);
    // `output` one short of the last interior point.
    let mut small = DeviceBuffer::<f32>::zeroed(&stream, w * (h - 2) + w - 2).unwrap();
    expect_bounds_failure(interior::launch(&stream, cfg, &ib, &mut small, w as u32, h as u32), at);
}

#[test]
fn the_corpus_stencil_compares_against_the_inputs_length_once_per_branch() {
    let ptx = crate::corpus::stencil::stencil::PTX;
    assert!(assemble("stencil", ptx));
    // The border's `input[i]` and the interior's `input[i + w]`; none in a report chain (all
    // the interior's checks are on one line).
    assert_eq!(all_compares(ptx, 0), 2, "{ptx}");
}

#[test]
fn constant_offsets_compare_the_greatest_and_the_least() {
    assert!(assemble("taps", taps::PTX));
    assert_eq!(hot_compares(taps::PTX, 0), 2, "{}", taps::PTX);
    let stream = cpu_stream();
    let n = 64usize;
    let x: Vec<f32> = (0..n + 5).map(|k| (k * 7 % 13) as f32).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n + 2).unwrap();
    taps::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut yb, 2).unwrap();
    let want: Vec<f32> = (0..n + 2).map(|i| if i < 2 { 0.0 } else { x[i - 2] + x[i] * 2.0 + x[i + 3] * 3.0 + x[i - 1] * 4.0 }).collect();
    assert_eq!(yb.to_vec().unwrap(), want);
    let at = "y[i] = x[i - 2] + x[i] * 2.0";
    // Above: the last thread's `x[i + 3]` one past the end.
    let short = DeviceBuffer::from_slice(&stream, &x[..n + 4]).unwrap();
    expect_bounds_failure(taps::launch(&stream, LaunchConfig::new(1, n as u32), &short, &mut yb, 2), at);
    // Below: with `k = 1`, thread 0's `x[i - 2]` wraps (and `x[i - 1]` does not).
    expect_bounds_failure(taps::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut yb, 1), at);
    // `k = 0`: both wrap.
    expect_bounds_failure(taps::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut yb, 0), at);
}

#[test]
fn on_two_lines_the_first_line_that_fails_is_reported() {
    assert!(assemble("two_lines", two_lines::PTX));
    assert_eq!(hot_compares(two_lines::PTX, 0), 1, "{}", two_lines::PTX);
    let stream = cpu_stream();
    let n = 32usize;
    let x: Vec<f32> = (0..n + 2).map(|k| k as f32 * 0.25).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    two_lines::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut yb, 0).unwrap();
    assert_eq!(yb.to_vec().unwrap(), (0..n).map(|i| x[i + 1] + x[i + 2] * 2.0 + x[i] * 3.0).collect::<Vec<_>>());
    let (first, second) = ("let a = x[i + 1];", "y[i] = a + x[i + 2] * 2.0");
    // One short: only `x[i + 2]` fails, on the second line.
    let one_short = DeviceBuffer::from_slice(&stream, &x[..n + 1]).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, n as u32), &one_short, &mut yb, 0), second);
    // Two short: `x[i + 1]` fails too, and comes first.
    let two_short = DeviceBuffer::from_slice(&stream, &x[..n]).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, n as u32), &two_short, &mut yb, 0), first);
    // `y` short: the second line.
    let mut small = DeviceBuffer::<f32>::zeroed(&stream, n - 1).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut small, 0), second);
}

#[test]
fn indices_that_nothing_orders_keep_their_compares() {
    assert!(assemble("unordered", unordered::PTX));
    // `t + 1` and `t + w` (either may be the greater), `i` and `i + 1` (`i + 1` may wrap).
    assert_eq!(hot_compares(unordered::PTX, 0), 4, "{}", unordered::PTX);
    let stream = cpu_stream();
    let n = 16usize;
    let x: Vec<f32> = (0..n + 1).map(|k| k as f32).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    unordered::launch(&stream, LaunchConfig::new(1, n as u32), &xb, &mut yb, 1, 0).unwrap();
    assert_eq!(yb.to_vec().unwrap(), (0..n).map(|t| x[t + 1] + x[t + 1] * 2.0 + x[t] * 3.0 + x[t + 1] * 4.0).collect::<Vec<_>>());
    let at = "y[t] = x[t + 1] + x[t + w as usize] * 2.0";
    // `w = 0` with `x` one short: only `x[t + 1]` fails, `x[t + w]` passes.
    let short = DeviceBuffer::from_slice(&stream, &x[..n]).unwrap();
    expect_bounds_failure(unordered::launch(&stream, LaunchConfig::new(1, n as u32), &short, &mut yb, 0, 0), at);
    // `k = usize::MAX`: thread 0's `i + 1` wraps to 0 and passes, `x[i]` fails.
    expect_bounds_failure(unordered::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut yb, 1, usize::MAX), at);
}

#[test]
fn a_second_check_of_the_same_index_is_decided_by_the_first() {
    assert!(assemble("same_index", same_index::PTX));
    // One comparison against `y.len()` in all, though nothing bounds `base + j`.
    assert_eq!(all_compares(same_index::PTX, 0), 1, "{}", same_index::PTX);
    let stream = cpu_stream();
    let y0: Vec<f32> = (0..40).map(|k| k as f32).collect();
    let mut yb = DeviceBuffer::from_slice(&stream, &y0).unwrap();
    same_index::launch(&stream, LaunchConfig::new(1, 32), &mut yb, 8usize, 2.0f32).unwrap();
    let mut want = y0.clone();
    let o = host::Disjoint::new(&mut want);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [32, 1, 1], 0, || same_index(unsafe { o.get() }, 8, 2.0));
    assert_eq!(yb.to_vec().unwrap(), want);
    // Thread 31's `base + j` is 40, one past the end.
    expect_bounds_failure(same_index::launch(&stream, LaunchConfig::new(1, 32), &mut yb, 9usize, 2.0f32), "// same index");
}
