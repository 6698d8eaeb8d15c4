//! Induction variables (`ptx-macros/src/ir/iv.rs`): an index that is an affine function of a
//! `for` loop's counter, checked on every trip, is stepped as a register of its own instead of
//! being rebuilt by 64-bit multiplies on every trip. Each kernel runs on the CPU backend
//! against the host run of the same body: slopes that are a parameter, a constant rustc
//! evaluates, a product of both, a product of two parameters, wrapping ones (`k * usize::MAX`,
//! a slope of -1 modulo 2^64), and launches whose indices leave the slices, which fail at
//! Rust's line as the host panics. ptxas assembles them all.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

pub const W: usize = 4;

/// tensor_gemm's shape: two slices read on two lines (so neither check leaves the loop), each
/// index affine in `k`: `a`'s by `W`, `b`'s by `W * units` (a constant times a parameter).
#[kernel]
pub fn two_lines(a: &[u32], b: &[u32], out: &mut [u32], units: u32, trips: u32) {
    let t = thread_idx_x() as usize;
    let units = units as usize;
    let (r, u) = (t / 4, t % 4);
    let mut acc = 0u32;
    for k in 0..trips as usize {
        let x = a[r * units + k * W + u]; // a's index
        let y = b[(k * W + r) * units + u]; // b's index
        acc = acc.wrapping_mul(31).wrapping_add(x ^ y);
    }
    if t < out.len() {
        out[t] = acc;
    }
}

/// Slopes modulo 2^64: `i` falls by one per trip when `stride` is `u64::MAX`, `j` steps by
/// the stride's negation times 3.
#[kernel]
pub fn wraps(x: &[u32], y: &[u32], out: &mut [u32], start: u64, stride: u64, trips: u32) {
    let t = thread_idx_x() as usize;
    let mut acc = 0u32;
    for k in 0..trips as usize {
        let i = (start as usize).wrapping_add(k.wrapping_mul(stride as usize)).wrapping_add(t);
        let v = x[i]; // x's index
        let j = k.wrapping_mul(3).wrapping_mul((stride as usize).wrapping_neg()).wrapping_add(t);
        let w = y[j]; // y's index
        acc = acc.wrapping_mul(17).wrapping_add(v).wrapping_sub(w);
    }
    if t < out.len() {
        out[t] = acc;
    }
}

/// A slope that is the product of two parameters: `b`'s index steps by `rows * pitch`.
#[kernel]
pub fn pitched(a: &[u32], b: &[u32], out: &mut [u32], rows: u32, pitch: u32, n: u32) {
    let t = thread_idx_x() as usize;
    let (rows, pitch) = (rows as usize, pitch as usize);
    let mut acc = 0u32;
    for k in 0..n as usize {
        let x = a[k * rows + t]; // a's pitched index
        let y = b[(k * rows + t % 2) * pitch + t / 2]; // b's pitched index
        acc = acc.rotate_left(5) ^ x.wrapping_add(y);
    }
    if t < out.len() {
        out[t] = acc;
    }
}

fn line_of(text: &str) -> u32 {
    include_str!("body_iv.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

/// The PTX of the loop that ends with the function's last conditional backward branch.
fn loop_body(ptx: &str) -> &str {
    let lines: Vec<&str> = ptx.lines().collect();
    for (end, l) in lines.iter().enumerate().rev() {
        if !l.trim().starts_with('@') {
            continue;
        }
        let Some(label) = l.trim().strip_suffix(';').and_then(|l| l.rsplit_once("bra ")).map(|(_, t)| t.trim()) else { continue };
        let Some(start) = lines[..end].iter().position(|x| x.trim() == format!("{label}:")) else { continue };
        let from = ptx.find(lines[start]).unwrap();
        let to = ptx[from..].find(lines[end]).unwrap() + from;
        return &ptx[from..to];
    }
    panic!("no backward branch in {ptx}")
}

fn data(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|k| (k ^ seed).wrapping_mul(2_654_435_761).rotate_left(k % 13)).collect()
}

type Kernel<'a> = &'a (dyn Fn(&[u32], &[u32], &mut [u32]) + Sync);
type Device<'a> = &'a dyn Fn(&ptx_runtime::Stream, &DeviceBuffer<u32>, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>) -> ptx_runtime::Result<()>;

/// The host's outputs (or `None` where it panics) and the CPU backend's, for `threads` threads.
fn both(a: &[u32], b: &[u32], threads: u32, host_body: Kernel, device: Device) -> (Option<Vec<u32>>, ptx_runtime::Result<Vec<u32>>) {
    let want = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut out = vec![0u32; threads as usize];
        let o = host::Disjoint::new(&mut out);
        // SAFETY: each thread writes its own element.
        host::run([1, 1, 1], [threads, 1, 1], 0, || host_body(a, b, unsafe { o.get() }));
        out
    }))
    .ok();
    let stream = cpu_stream();
    let ab = DeviceBuffer::from_slice(&stream, a).unwrap();
    let bb = DeviceBuffer::from_slice(&stream, b).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, threads as usize).unwrap();
    let got = device(&stream, &ab, &bb, &mut ob).and_then(|()| ob.to_vec());
    (want, got)
}

fn assert_fails_at(got: ptx_runtime::Result<Vec<u32>>, text: &str) {
    match got {
        Err(Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert_eq!(line, line_of(text), "expected the check of `{text}` to fail");
        }
        other => panic!("expected the check of `{text}` to fail, got {other:?}"),
    }
}

#[test]
fn indices_checked_on_two_lines_are_stepped_with_rusts_results_and_reports() {
    assert!(assemble("two_lines", two_lines::PTX));
    // The loop multiplies nothing in 64 bits: both indices are registers of their own.
    let body = loop_body(two_lines::PTX);
    assert!(body.contains("setp.ge.u64") && !body.contains("mul.lo.s64"), "{body}");
    let threads = 16u32;
    for (units, trips) in [(9u32, 7u32), (4, 1), (12, 0), (5, 11)] {
        let (r_max, units_us, trips_us) = ((threads as usize - 1) / 4, units as usize, trips as usize);
        // Exactly long enough for the last trip of the last thread.
        let a_len = r_max * units_us + trips_us.saturating_sub(1) * W + 3 + 1;
        let b_len = (trips_us.saturating_sub(1) * W + r_max) * units_us + 3 + 1;
        let (a, b) = (data(a_len, 1), data(b_len, 2));
        let host_body = |a: &[u32], b: &[u32], out: &mut [u32]| two_lines(a, b, out, units, trips);
        let device = |s: &ptx_runtime::Stream, a: &DeviceBuffer<u32>, b: &DeviceBuffer<u32>, o: &mut DeviceBuffer<u32>| two_lines::launch(s, LaunchConfig::new(1, threads), a, b, o, units, trips);
        let (want, got) = both(&a, &b, threads, &host_body, &device);
        assert_eq!(got.unwrap(), want.unwrap(), "units {units}, trips {trips}");
        if trips > 0 {
            // One short: the last thread's last trip leaves the slice, at that slice's line.
            let (want, got) = both(&a, &b[..b_len - 1], threads, &host_body, &device);
            assert!(want.is_none());
            assert_fails_at(got, "b's index");
            let (want, got) = both(&a[..a_len - 1], &b, threads, &host_body, &device);
            assert!(want.is_none());
            assert_fails_at(got, "a's index");
        }
    }
}

#[test]
fn slopes_wrap_modulo_2_to_the_64_as_rusts_do() {
    assert!(assemble("wraps", wraps::PTX));
    let body = loop_body(wraps::PTX);
    assert!(body.contains("setp.ge.u64") && !body.contains("mul.lo.s64"), "{body}");
    let threads = 8u32;
    let (x, y) = (data(64, 3), data(200, 4));
    // The line that fails, where one does (on the host as on the device).
    let cases: [(u64, u64, u32, Option<&str>); 6] = [
        (40, u64::MAX, 9, None),
        (30, u64::MAX, 31, None),
        (5, 0, 10, None),
        // `y`'s index falls by 3 or 6 per trip: below zero, so far above `y.len()`, on the
        // second trip of threads 0 to 2.
        (0, 1, 20, Some("y's index")),
        (3, 2, 12, Some("y's index")),
        // Trip 31 reads `x[30 - 31 + t]`: thread 0 wraps to `usize::MAX`.
        (30, u64::MAX, 32, Some("x's index")),
    ];
    for (start, stride, trips, fails) in cases {
        let host_body = |x: &[u32], y: &[u32], out: &mut [u32]| wraps(x, y, out, start, stride, trips);
        let device = |s: &ptx_runtime::Stream, x: &DeviceBuffer<u32>, y: &DeviceBuffer<u32>, o: &mut DeviceBuffer<u32>| wraps::launch(s, LaunchConfig::new(1, threads), x, y, o, start, stride, trips);
        let (want, got) = both(&x, &y, threads, &host_body, &device);
        match fails {
            None => assert_eq!(got.unwrap(), want.unwrap(), "start {start}, stride {stride}, trips {trips}"),
            Some(line) => {
                assert!(want.is_none(), "start {start}, stride {stride}, trips {trips}");
                assert_fails_at(got, line);
            }
        }
    }
}

#[test]
fn a_slope_of_two_parameters_is_multiplied_out_once() {
    assert!(assemble("pitched", pitched::PTX));
    let body = loop_body(pitched::PTX);
    assert!(body.contains("setp.ge.u64") && !body.contains("mul.lo.s64"), "{body}");
    let threads = 8u32;
    for (rows, pitch, n) in [(10u32, 6u32, 20u32), (8, 4, 2), (9, 5, 1), (16, 7, 9), (3, 3, 0)] {
        let (rows_us, pitch_us, last) = (rows as usize, pitch as usize, (n as usize).saturating_sub(1));
        let a_len = last * rows_us + threads as usize;
        let b_len = (last * rows_us + 1) * pitch_us + (threads as usize - 1) / 2 + 1;
        let (a, b) = (data(a_len, 5), data(b_len, 6));
        let host_body = |a: &[u32], b: &[u32], out: &mut [u32]| pitched(a, b, out, rows, pitch, n);
        let device = |s: &ptx_runtime::Stream, a: &DeviceBuffer<u32>, b: &DeviceBuffer<u32>, o: &mut DeviceBuffer<u32>| pitched::launch(s, LaunchConfig::new(1, threads), a, b, o, rows, pitch, n);
        let (want, got) = both(&a, &b, threads, &host_body, &device);
        assert_eq!(got.unwrap(), want.unwrap(), "rows {rows}, pitch {pitch}, n {n}");
        if n > 0 {
            let (want, got) = both(&a, &b[..b_len - 1], threads, &host_body, &device);
            assert!(want.is_none());
            assert_fails_at(got, "b's pitched index");
        }
    }
}
