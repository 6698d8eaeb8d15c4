//! A check raised to the one before it over code without effect (`ptx-macros/src/ir/raise.rs`):
//! in layernorm's shape, the check hoisted before the loop that writes `y` is tested with the
//! one before the loop that reads `x`, and the kernel branches to a failure once. The results
//! are the host's; a short `x` fails at the first loop's line, a short `w` or `y` (with `x`
//! whole) at the second's, both short at the first's, as Rust reports. A store between the
//! two loops keeps the checks apart.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// A row's mean, then the row less its mean, scaled.
#[kernel]
pub fn centre_rows(x: &[f32], w: &[f32], y: &mut [f32], n: u32) {
    let row = thread_idx_x() as usize;
    let n = n as usize;
    let base = row * n;
    let mut sum = 0.0f32;
    for j in 0..n {
        sum += x[base + j]; // reads x
    }
    let mean = sum / n as f32;
    for j in 0..n {
        y[base + j] = (x[base + j] - mean) * w[j]; // writes y
    }
}

/// The same with the mean stored between the loops: that store must happen before the second
/// loop's check fails.
#[kernel]
pub fn store_between(x: &[f32], means: &mut [f32], y: &mut [f32], n: u32) {
    let row = thread_idx_x() as usize;
    let n = n as usize;
    let base = row * n;
    let mut sum = 0.0f32;
    for j in 0..n {
        sum += x[base + j];
    }
    let mean = sum / n as f32;
    if row < means.len() {
        means[row] = mean;
    }
    for j in 0..n {
        y[base + j] = x[base + j] - mean;
    }
}

/// The conditional branches to code that only fails (a stub, the report, a block choosing
/// between stubs), in each PTX function.
fn failure_branches(ptx: &str) -> usize {
    let lines: Vec<&str> = ptx.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with(".loc")).collect();
    // Each block: its label and lines.
    let mut blocks: Vec<(Option<&str>, Vec<&str>)> = vec![(None, Vec::new())];
    for l in &lines {
        match l.strip_suffix(':') {
            Some(label) => blocks.push((Some(label), Vec::new())),
            None => blocks.last_mut().unwrap().1.push(l),
        }
    }
    let target = |l: &str| l.rsplit(char::is_whitespace).next().unwrap_or("").trim_end_matches(';').to_owned();
    let index: std::collections::HashMap<&str, usize> = blocks.iter().enumerate().filter_map(|(i, b)| Some((b.0?, i))).collect();
    // A block fails when it traps, or when every way out of it goes to blocks that fail.
    let mut fails = vec![false; blocks.len()];
    for _ in 0..blocks.len() {
        for i in 0..blocks.len() {
            let body = &blocks[i].1;
            let mut outs: Vec<usize> = body.iter().filter(|l| l.contains("bra")).filter_map(|l| index.get(target(l).as_str()).copied()).collect();
            let ends = body.last().is_some_and(|l| l.starts_with("bra") || *l == "trap;" || *l == "ret;" || l.starts_with('}'));
            if !ends && i + 1 < blocks.len() {
                outs.push(i + 1);
            }
            fails[i] |= body.iter().any(|l| *l == "trap;") || (!outs.is_empty() && !body.iter().any(|l| *l == "ret;") && outs.iter().all(|&o| fails[o]));
        }
    }
    blocks.iter().enumerate().filter(|(i, _)| !fails[*i]).flat_map(|(_, b)| &b.1).filter(|l| l.starts_with('@') && l.contains("bra")).filter(|l| index.get(target(l).as_str()).is_some_and(|&t| fails[t])).count()
}

fn line_of(text: &str) -> u32 {
    include_str!("body_raise.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_failure_at(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert_eq!(line, line_of(at), "expected `{at}`");
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

#[test]
fn the_second_loops_check_joins_the_first() {
    assert!(assemble("centre_rows", centre_rows::PTX));
    assert_eq!(failure_branches(centre_rows::PTX), 1, "{}", centre_rows::PTX);
    let (rows, n) = (6usize, 11usize);
    let x: Vec<f32> = (0..rows * n).map(|k| (k as f32 * 0.37).sin() * 4.0).collect();
    let w: Vec<f32> = (0..n).map(|k| 0.25 + k as f32 * 0.125).collect();
    let mut want = vec![0.0f32; rows * n];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: each thread writes its own row.
    host::run([1, 1, 1], [rows as u32, 1, 1], 0, || centre_rows(&x, &w, unsafe { o.get() }, n as u32));
    let stream = cpu_stream();
    let (xb, wb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &w).unwrap());
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, rows * n).unwrap();
    let cfg = LaunchConfig::new(1, rows as u32);
    centre_rows::launch(&stream, cfg, &xb, &wb, &mut yb, n as u32).unwrap();
    assert_eq!(yb.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    let short_x = DeviceBuffer::from_slice(&stream, &x[..rows * n - 1]).unwrap();
    let short_w = DeviceBuffer::from_slice(&stream, &w[..n - 1]).unwrap();
    let mut short_y = DeviceBuffer::<f32>::zeroed(&stream, rows * n - 1).unwrap();
    expect_failure_at(centre_rows::launch(&stream, cfg, &short_x, &wb, &mut yb, n as u32), "// reads x");
    expect_failure_at(centre_rows::launch(&stream, cfg, &xb, &short_w, &mut yb, n as u32), "// writes y");
    expect_failure_at(centre_rows::launch(&stream, cfg, &xb, &wb, &mut short_y, n as u32), "// writes y");
    expect_failure_at(centre_rows::launch(&stream, cfg, &short_x, &short_w, &mut short_y, n as u32), "// reads x");
}

#[test]
fn a_store_between_keeps_the_checks_apart() {
    assert!(assemble("store_between", store_between::PTX));
    assert_eq!(failure_branches(store_between::PTX), 2, "{}", store_between::PTX);
    let (rows, n) = (4usize, 5usize);
    let x: Vec<f32> = (0..rows * n).map(|k| k as f32 * 0.5).collect();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut mb = DeviceBuffer::<f32>::zeroed(&stream, rows).unwrap();
    let mut short_y = DeviceBuffer::<f32>::zeroed(&stream, rows * n - 1).unwrap();
    // A `y` one short: the second loop's check fails.
    let r = store_between::launch(&stream, LaunchConfig::new(1, rows as u32), &xb, &mut mb, &mut short_y, n as u32);
    assert!(matches!(r, Err(Error::Assert { .. })), "{r:?}");
}
