//! Loop-invariant arithmetic computed before the loop (`ptx-macros/src/ir/licm.rs`): the check
//! that `hoist` puts before an inner `for` loop reads only values the outer loop does not
//! change, so its computation leaves the outer loop and only its branch stays. The results are
//! the host's, an index out of bounds still stops the kernel at its line, and an outer loop
//! that makes no trip checks nothing (ptxas accepts the PTX).

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// A row of `x` summed `reps` times: the inner loop's check (`t * n + n - 1 < x.len()`) is
/// made before it, on every trip of the outer loop, from values the outer loop never writes.
#[kernel]
pub fn repeated_rows(x: &[f32], out: &mut [f32], reps: u32, n: usize) {
    let t = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    for _ in 0..reps {
        for k in 0..n {
            acc += x[t * n + k];
        }
        acc *= 0.5;
    }
    if t < out.len() {
        out[t] = acc;
    }
}

fn line_of(text: &str) -> u32 {
    include_str!("body_licm.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

/// The instructions between each backward branch's target label and the branch: each loop's.
fn loops(ptx: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with(".loc") && !l.starts_with("//")).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(target) = l.split("bra").nth(1).map(|t| t.trim().trim_start_matches(".uni").trim().trim_end_matches(';').to_owned()) else { continue };
        if let Some(start) = lines[..i].iter().position(|x| *x == format!("{target}:")) {
            out.push(lines[start + 1..i].iter().map(|s| s.to_string()).collect());
        }
    }
    out
}

#[test]
fn an_inner_loops_check_is_computed_outside_the_outer_loop() {
    assert!(assemble("repeated_rows", repeated_rows::PTX));
    let ptx = repeated_rows::PTX;
    let found = loops(ptx);
    assert!(found.len() >= 2, "{ptx}");
    // No loop multiplies integers: `t * n` (the row's start, and its last index) and the
    // hoisted check's tests are computed once, before both loops.
    for body in &found {
        assert!(!body.iter().any(|l| ["mul.lo", "mul.hi", "mul.wide"].iter().any(|m| l.starts_with(m))), "{ptx}");
    }
    let stream = cpu_stream();
    let (threads, n, reps) = (8usize, 5usize, 3u32);
    let x: Vec<f32> = (0..threads * n).map(|k| (k % 7) as f32).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, threads).unwrap();
    repeated_rows::launch(&stream, LaunchConfig::new(1, threads as u32), &xb, &mut ob, reps, n).unwrap();
    let mut want = vec![0.0f32; threads];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [threads as u32, 1, 1], 0, || repeated_rows(&x, unsafe { o.get() }, reps, n));
    assert_eq!(ob.to_vec().unwrap(), want);
    // The last thread's row runs one past the end.
    let short = DeviceBuffer::from_slice(&stream, &x[..threads * n - 1]).unwrap();
    match repeated_rows::launch(&stream, LaunchConfig::new(1, threads as u32), &short, &mut ob, reps, n) {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_licm.rs"), "{file}");
            assert_eq!(line, line_of("acc += x[t * n + k];"));
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
    // No trip of the outer loop: nothing is read, nothing fails, though every row is out of
    // bounds.
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, threads).unwrap();
    repeated_rows::launch(&stream, LaunchConfig::new(1, threads as u32), &short, &mut ob, 0, n + 1000).unwrap();
    assert_eq!(ob.to_vec().unwrap(), vec![0.0; threads]);
}
