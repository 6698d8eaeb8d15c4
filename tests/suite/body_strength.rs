//! Pointer induction variables (`ptx-macros/src/ir/strength.rs`): in a `for` loop over a
//! runtime range, `x[base + j]`, `g[j]`, `y[base + j]` are read and written through pointers
//! that step with `j`, as in nvcc's PTX, and ptxas unrolls the loop (layernorm's third loop).
//! The results are the host's for every trip count (0, 1, 3, 4, 5, 7 and more, so that the
//! unrolled loop's remainder is exercised), an index out of bounds still stops the kernel at
//! its line, an offset index, a 2-byte element and a 12-byte struct step by their sizes, and a
//! loop whose checks stay inside keeps its indices. A loop that only loads is left alone
//! (ptxas unrolls it as well with indices) unless its index is multiplied (struct elements).

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, ptx_loops as loops, sass};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, Error, LaunchConfig};

/// layernorm's third loop: one row per thread, four streams.
#[kernel]
pub fn affine_rows(x: &[f32], g: &[f32], b: &[f32], y: &mut [f32], rows: u32, cols: u32, m: f32) {
    let row = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let n = cols as usize;
    if row < rows as usize {
        let base = row * n;
        for j in 0..n {
            y[base + j] = (x[base + j] - m) * g[j] + b[j]; // the loop
        }
    }
}

/// An index with a constant offset, and 2-byte elements.
#[kernel]
pub fn shifted(x: &[u16], out: &mut [u32], start: usize, n: usize) {
    for k in start..n {
        out[k] = x[k + 3] as u32 * 3; // shifted
    }
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
pub struct Point {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// 12-byte elements: the address is the index times 12 (`mul.lo`), not a shift.
#[kernel]
pub fn points(p: &[Point], out: &mut [f32], n: usize) {
    for k in 0..n {
        out[k] = p[k].x * p[k].z - p[k].y; // points
    }
}

/// A loop that only loads, over 12-byte elements: the pointer saves the multiply by 12 on
/// every trip (nbody's inner loop over its 28-byte particles).
#[kernel]
pub fn weigh(p: &[Point], out: &mut [f32], n: usize) {
    let mut s = 0.0f32;
    for k in 0..n {
        s += p[k].x * p[k].z; // weigh
    }
    out[0] = s;
}

/// Two lines that can fail: the checks fold into the loop's bound (`ir/fold.rs`), and the
/// addresses then step as pointers.
#[kernel]
pub fn two_lines(x: &[u32], y: &mut [u32], n: usize) {
    for k in 0..n {
        let v = x[k] * 3; // read
        y[k] = v + 1; // written
    }
}

/// A loop that only loads: left with its index.
#[kernel]
pub fn sum_only(x: &[f32], out: &mut [f32], n: usize) {
    let mut s = 0.0f32;
    for k in 0..n {
        s += x[k];
    }
    out[0] = s;
}

fn line_of(text: &str) -> u32 {
    include_str!("body_strength.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_strength.rs"), "{file}");
            assert_eq!(line, line_of(at));
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

fn host_affine(x: &[f32], g: &[f32], b: &[f32], rows: usize, cols: usize, m: f32) -> Vec<f32> {
    let mut y = vec![0.0f32; rows * cols];
    for r in 0..rows {
        for j in 0..cols {
            y[r * cols + j] = (x[r * cols + j] - m) * g[j] + b[j];
        }
    }
    y
}

#[test]
fn the_addresses_of_a_runtime_loop_step_as_pointers() {
    assert!(assemble("affine_rows", affine_rows::PTX));
    let ptx = affine_rows::PTX;
    let body = loops(ptx);
    assert_eq!(body.len(), 1, "{ptx}");
    // No index is computed in the loop: four pointers step by 4 bytes.
    assert!(!body[0].iter().any(|l| l.starts_with("shl.b64") || l.starts_with("mul.lo")), "{ptx}");
    assert_eq!(body[0].iter().filter(|l| l.starts_with("add.s64") && l.ends_with(", 4;")).count(), 4, "{ptx}");
    let stream = cpu_stream();
    let rows = 5;
    for cols in [0usize, 1, 3, 4, 5, 7, 8, 13] {
        let x: Vec<f32> = (0..rows * cols).map(|k| (k as f32 * 0.71).sin() * 3.0).collect();
        let g: Vec<f32> = (0..cols).map(|k| 0.5 + k as f32 * 0.125).collect();
        let b: Vec<f32> = (0..cols).map(|k| k as f32 * -0.25).collect();
        let want = host_affine(&x, &g, &b, rows, cols, 0.375);
        // The host runs the same body.
        let mut on_host = vec![0.0f32; rows * cols];
        let o = host::Disjoint::new(&mut on_host);
        // SAFETY: each thread writes its own row.
        host::run([2, 1, 1], [4, 1, 1], 0, || affine_rows(&x, &g, &b, unsafe { o.get() }, rows as u32, cols as u32, 0.375));
        assert_eq!(on_host, want, "{cols} columns on the host");
        let (xb, gb, bb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &g).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap());
        let mut yb = DeviceBuffer::<f32>::zeroed(&stream, rows * cols).unwrap();
        affine_rows::launch(&stream, LaunchConfig::new(2, 4), &xb, &gb, &bb, &mut yb, rows as u32, cols as u32, 0.375).unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "{cols} columns");
        if cols == 0 {
            continue;
        }
        // One element short, of each slice in turn: the last row's (or every row's) last
        // element fails, at the loop's line.
        let at = "y[base + j] = (x[base + j] - m) * g[j] + b[j]; // the loop";
        let xs = DeviceBuffer::from_slice(&stream, &x[..rows * cols - 1]).unwrap();
        expect_bounds_failure(affine_rows::launch(&stream, LaunchConfig::new(2, 4), &xs, &gb, &bb, &mut yb, rows as u32, cols as u32, 0.375), at);
        let gs = DeviceBuffer::from_slice(&stream, &g[..cols - 1]).unwrap();
        expect_bounds_failure(affine_rows::launch(&stream, LaunchConfig::new(2, 4), &xb, &gs, &bb, &mut yb, rows as u32, cols as u32, 0.375), at);
        let bs = DeviceBuffer::from_slice(&stream, &b[..cols - 1]).unwrap();
        expect_bounds_failure(affine_rows::launch(&stream, LaunchConfig::new(2, 4), &xb, &gb, &bs, &mut yb, rows as u32, cols as u32, 0.375), at);
        let mut ys = DeviceBuffer::<f32>::zeroed(&stream, rows * cols - 1).unwrap();
        expect_bounds_failure(affine_rows::launch(&stream, LaunchConfig::new(2, 4), &xb, &gb, &bb, &mut ys, rows as u32, cols as u32, 0.375), at);
    }
}

#[test]
fn an_offset_index_and_two_byte_elements_step_by_their_size() {
    assert!(assemble("shifted", shifted::PTX));
    let ptx = shifted::PTX;
    let body = loops(ptx);
    assert_eq!(body.len(), 1, "{ptx}");
    // `x` steps by 2 bytes, `out` by 4; no index is computed in the loop.
    assert!(body[0].iter().any(|l| l.starts_with("add.s64") && l.ends_with(", 2;")), "{ptx}");
    assert!(body[0].iter().any(|l| l.starts_with("add.s64") && l.ends_with(", 4;")), "{ptx}");
    assert!(!body[0].iter().any(|l| l.starts_with("shl.b64")), "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u16> = (0..20u16).map(|k| k * 7 + 1).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    for (start, n) in [(0usize, 17usize), (2, 3), (5, 5), (4, 9), (16, 17), (9, 16), (1, 5), (3, 10)] {
        let mut want = vec![0u32; 17];
        for k in start..n {
            want[k] = x[k + 3] as u32 * 3;
        }
        let mut host_out = vec![0u32; 17];
        let o = host::Disjoint::new(&mut host_out);
        // SAFETY: one thread.
        host::run([1, 1, 1], [1, 1, 1], 0, || shifted(&x, unsafe { o.get() }, start, n));
        assert_eq!(host_out, want);
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 17).unwrap();
        shifted::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, start, n).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{start}..{n}");
    }
    let at = "out[k] = x[k + 3] as u32 * 3; // shifted";
    // x[20] on the last trip.
    let mut big = DeviceBuffer::<u32>::zeroed(&stream, 30).unwrap();
    expect_bounds_failure(shifted::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut big, 3usize, 18usize), at);
    // out[17] on the last trip.
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 17).unwrap();
    expect_bounds_failure(shifted::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob, 10usize, 18usize), at);
}

#[test]
fn struct_elements_step_by_their_size() {
    assert!(assemble("points", points::PTX));
    let ptx = points::PTX;
    let body = loops(ptx);
    assert_eq!(body.len(), 1, "{ptx}");
    assert!(body[0].iter().any(|l| l.starts_with("add.s64") && l.ends_with(", 12;")), "{ptx}");
    assert!(!body[0].iter().any(|l| l.starts_with("mul.lo.s64")), "{ptx}");
    let stream = cpu_stream();
    let p: Vec<Point> = (0..9).map(|k| Point { x: k as f32 * 0.5, y: 1.0 - k as f32, z: 0.25 * k as f32 }).collect();
    let pb = DeviceBuffer::from_slice(&stream, &p).unwrap();
    for n in [0usize, 1, 3, 4, 5, 7, 9] {
        let mut want = vec![0.0f32; 9];
        for (o, q) in want.iter_mut().zip(&p[..n]) {
            *o = q.x * q.z - q.y;
        }
        let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 9).unwrap();
        points::launch(&stream, LaunchConfig::new(1, 1), &pb, &mut ob, n).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{n} points");
    }
    let mut big = DeviceBuffer::<f32>::zeroed(&stream, 12).unwrap();
    expect_bounds_failure(points::launch(&stream, LaunchConfig::new(1, 1), &pb, &mut big, 10usize), "out[k] = p[k].x * p[k].z - p[k].y; // points");
}

#[test]
fn a_loop_that_only_loads_structs_steps_a_pointer() {
    assert!(assemble("weigh", weigh::PTX));
    let ptx = weigh::PTX;
    let body = loops(ptx);
    assert_eq!(body.len(), 1, "{ptx}");
    assert!(body[0].iter().any(|l| l.starts_with("add.s64") && l.ends_with(", 12;")), "{ptx}");
    assert!(!body[0].iter().any(|l| l.starts_with("mul.lo.s64")), "{ptx}");
    let stream = cpu_stream();
    let p: Vec<Point> = (0..9).map(|k| Point { x: k as f32 * 0.5 - 1.0, y: 0.0, z: 0.75 + k as f32 }).collect();
    let pb = DeviceBuffer::from_slice(&stream, &p).unwrap();
    for n in [0usize, 1, 2, 5, 8, 9] {
        let mut on_host = [0.0f32];
        let o = host::Disjoint::new(&mut on_host);
        // SAFETY: one thread.
        host::run([1, 1, 1], [1, 1, 1], 0, || weigh(&p, unsafe { o.get() }, n));
        let want = p[..n].iter().fold(0.0f32, |s, q| s + q.x * q.z);
        assert_eq!(on_host, [want]);
        let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 1).unwrap();
        weigh::launch(&stream, LaunchConfig::new(1, 1), &pb, &mut ob, n).unwrap();
        assert_eq!(ob.to_vec().unwrap(), [want], "{n} points");
    }
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 1).unwrap();
    expect_bounds_failure(weigh::launch(&stream, LaunchConfig::new(1, 1), &pb, &mut ob, 10usize), "s += p[k].x * p[k].z; // weigh");
}

#[test]
fn checks_on_two_lines_fold_and_loops_that_only_load_keep_their_index() {
    assert!(assemble("two_lines", two_lines::PTX));
    let ptx = two_lines::PTX;
    let body = loops(ptx);
    assert_eq!(body.len(), 1, "{ptx}");
    // No check is left in the loop, and no index: `x` and `y` step by 4 bytes.
    assert!(!body[0].iter().any(|l| l.starts_with("setp.ge.u64") || l.starts_with("shl.b64")), "{ptx}");
    assert_eq!(body[0].iter().filter(|l| l.starts_with("add.s64") && l.ends_with(", 4;")).count(), 2, "{ptx}");
    assert!(assemble("sum_only", sum_only::PTX));
    let sum = loops(sum_only::PTX);
    assert!(sum.len() == 1 && sum[0].iter().any(|l| l.starts_with("shl.b64")), "{}", sum_only::PTX);
    let stream = cpu_stream();
    let xs: Vec<f32> = (0..7).map(|k| k as f32 * 1.5).collect();
    let xsb = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut sb = DeviceBuffer::<f32>::zeroed(&stream, 1).unwrap();
    sum_only::launch(&stream, LaunchConfig::new(1, 1), &xsb, &mut sb, 7usize).unwrap();
    assert_eq!(sb.to_vec().unwrap(), [xs.iter().sum::<f32>()]);
    let x: Vec<u32> = (0..12u32).map(|k| k * k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<u32>::zeroed(&stream, 10).unwrap();
    two_lines::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut yb, 10usize).unwrap();
    assert_eq!(yb.to_vec().unwrap(), x[..10].iter().map(|v| v * 3 + 1).collect::<Vec<_>>());
    // `y[10]` fails first (x has 12).
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut yb, 11usize), "y[k] = v + 1; // written");
    // `x[12]` fails before `y[12]` would.
    let mut big = DeviceBuffer::<u32>::zeroed(&stream, 20).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut big, 13usize), "let v = x[k] * 3; // read");
}


/// The stores in the loop that holds the most of them: a loop is a branch back to a lower
/// address, from its target to the branch.
fn stores_in_hottest_loop(sass: &[String]) -> usize {
    let mut best = 0;
    for (end, inst) in sass.iter().enumerate() {
        let target = inst.split("BRA ").nth(1).and_then(|t| t.split_whitespace().next()).and_then(|t| t.strip_prefix("0x")).and_then(|t| usize::from_str_radix(t, 16).ok());
        // Instructions are 16 bytes apart, counted from 0.
        if let Some(start) = target.map(|t| t / 16).filter(|&s| s <= end) {
            best = best.max(sass[start..=end].iter().filter(|i| i.starts_with("STG")).count());
        }
    }
    best
}

#[test]
fn ptxas_unrolls_the_layernorm_s_third_loop() {
    let ptx = crate::corpus::layernorm::layernorm::PTX;
    assert!(assemble("layernorm", ptx));
    for sm in [80, 90] {
        let Some(sass) = sass("layernorm", ptx, sm) else { return };
        // Four elements per trip, each stored, as in nvcc's build of the twin.
        assert_eq!(stores_in_hottest_loop(&sass), 4, "sm_{sm}: {sass:#?}");
    }
}
