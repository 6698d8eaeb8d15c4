//! Short `for` loops with checks that `hoist` cannot move (under an `if`, as in the corpus
//! transpose): a `step_by` loop ends with the test ptxas reads a trip count from, a failed
//! check skips the rest of the trip and is reported when the loop ends (`ir/defer.rs`), and
//! ptxas, which then unrolls the loop, issues the trips' global loads together. The results
//! are the host's, a `step_by` whose next value wraps ends the loop as in Rust, and an index
//! out of bounds still stops the kernel with the message and line of its expression.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, scratch_dir, tool};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};
use std::process::Command;

const T: usize = 32;

/// The corpus transpose's loads: four rows of a 32-wide tile per 8-row block, each under a
/// test of the matrix's edge, then the tile written out. Its block declared, as the corpus
/// declares it: the tile index then needs no check (`ty < 8`, `j <= 24`). (Without it, the
/// tile index's check stays in the loop, and ptxas 13 keeps the loop rolled now that `T` is a
/// number the macro reads: docs/performance.md, "Constants read from the source".)
#[kernel(block = (32, 8))]
pub fn rows(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let x = block_idx_x() as usize * T + tx;
    let by = block_idx_y() as usize * T;
    let (w, h) = (width as usize, height as usize);
    for j in (0..T).step_by(8) {
        let y = by + ty + j;
        if x < w && y < h {
            tile[(ty + j) * (T + 1) + tx] = input[y * w + x]; // load
        }
    }
    sync_threads();
    for j in (0..T).step_by(8) {
        let y = by + ty + j;
        if x < w && y < h {
            output[y * w + x] = tile[(ty + j) * (T + 1) + tx] * 2.0;
        }
    }
}

/// A guarded loop of 64 trips (`step_by(4)` to 256): past what is unrolled here (32 trips),
/// left to ptxas.
#[kernel]
pub fn many_rows(input: &[f32], output: &mut [f32], height: u32) {
    let x = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let mut sum = 0.0f32;
    for j in (0..256).step_by(4) {
        if j < height as usize {
            sum += input[j * 64 + x]; // many rows
        }
    }
    output[x] = sum;
}

/// Whether the PTX's control flow has a cycle: its blocks split at labels, an edge for each
/// branch and each fall-through (not after `bra.uni`, `ret` or `trap`), searched depth first.
fn has_loop(ptx: &str) -> bool {
    let mut blocks: Vec<(Option<String>, Vec<&str>)> = vec![(None, Vec::new())];
    for l in ptx.lines().map(str::trim) {
        match l.strip_suffix(':') {
            Some(label) if label.starts_with('$') => blocks.push((Some(label.to_owned()), Vec::new())),
            _ => blocks.last_mut().unwrap().1.push(l),
        }
    }
    let index = |label: &str| blocks.iter().position(|(n, _)| n.as_deref() == Some(label));
    let edges: Vec<Vec<usize>> = (0..blocks.len())
        .map(|b| {
            let mut out = Vec::new();
            let mut falls = true;
            for l in &blocks[b].1 {
                if let Some(target) = l.contains("bra").then(|| l.split_whitespace().last()).flatten() {
                    out.extend(index(target.trim_end_matches(';')));
                    falls &= !l.starts_with("bra");
                }
                falls &= !(l.starts_with("ret") || l.starts_with("trap"));
            }
            if falls && b + 1 < blocks.len() {
                out.push(b + 1);
            }
            out
        })
        .collect();
    // 0: unseen, 1: on the path, 2: done.
    fn back_edge(b: usize, edges: &[Vec<usize>], state: &mut [u8]) -> bool {
        state[b] = 1;
        for &s in &edges[b] {
            if state[s] == 1 || state[s] == 0 && back_edge(s, edges, state) {
                return true;
            }
        }
        state[b] = 2;
        false
    }
    back_edge(0, &edges, &mut vec![0; blocks.len()])
}

/// A range stepped past its type's end: from `u32::MAX - 10` by 7, the third value wraps and
/// the loop ends.
#[kernel]
pub fn wrapping_step(out: &mut [u32], start: u32, end: u32, step: usize) {
    let mut n = 0u32;
    let mut s = 0u32;
    for v in (start..end).step_by(step) {
        n += 1;
        s = s.wrapping_add(v);
    }
    out[0] = n;
    out[1] = s;
}

fn line_of(text: &str) -> u32 {
    include_str!("body_defer.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

/// The SASS instructions of a module assembled for sm_90, in order (`None` without the tools).
fn sass(name: &str, ptx: &str) -> Option<Vec<String>> {
    let ptxas = tool("PTXAS", "ptxas", name)?;
    let cuobjdump = tool("CUOBJDUMP", "cuobjdump", name)?;
    let dir = scratch_dir("defer");
    let (src, bin) = (dir.join(format!("{name}.ptx")), dir.join(format!("{name}.cubin")));
    std::fs::write(&src, ptx).expect("write");
    let out = Command::new(&ptxas).args(["-O3", "-arch=sm_90"]).arg(&src).arg("-o").arg(&bin).output().expect("ptxas");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listing = Command::new(&cuobjdump).arg("-sass").arg(&bin).output().expect("cuobjdump");
    let _ = std::fs::remove_dir_all(&dir);
    Some(String::from_utf8_lossy(&listing.stdout).lines().filter_map(|l| l.trim_start().strip_prefix("/*")?.split_once("*/").map(|(_, i)| i.trim().to_owned())).filter(|i| !i.is_empty()).collect())
}

/// ptxas unrolls the loop that loads the tile (four global loads), with no branch between the
/// first load and the last (the trips if-converted), and the four loads take at most
/// `round_trips` round trips to memory (nvcc's unchecked twin of the transpose takes one: all
/// four issued before the first shared store); the second loop is unrolled too.
fn unrolled_and_if_converted(name: &str, ptx: &str, round_trips: usize) {
    let Some(sass) = sass(name, ptx) else { return };
    let at = |what: &str| -> Vec<usize> { sass.iter().enumerate().filter(|(_, i)| i.contains(what)).map(|(k, _)| k).collect() };
    let loads = at("LDG");
    assert_eq!(loads.len(), 4, "{name}: {sass:#?}");
    assert!(!sass[loads[0]..loads[3]].iter().any(|i| i.contains("BRA")), "{name}: {sass:#?}");
    // The round trips to memory, issuing in order: each shared store waits for its trip's
    // load (the oldest not yet stored), unless a wait since that load was issued has already
    // brought it back.
    let (mut waits, mut issued) = (0, std::collections::VecDeque::new());
    for i in sass.iter().filter(|i| i.contains("LDG") || i.contains("STS")) {
        if i.contains("LDG") {
            issued.push_back(waits);
        } else if issued.pop_front() == Some(waits) {
            waits += 1;
        }
    }
    assert!(waits <= round_trips, "{name}: {waits} round trips: {sass:#?}");
    assert_eq!(at("LDS").len(), 4, "{name}: {sass:#?}");
}

#[test]
fn the_trips_of_a_short_loop_with_checks_load_together() {
    assert!(assemble("rows", rows::PTX));
    let ptx = rows::PTX;
    // The failure is recorded in the loop (a flag set on each trip that fails: `selp` of 1 or
    // the flag itself) and tested after it.
    let flag_set = ptx.lines().filter_map(|l| l.trim().strip_prefix("selp.u32")).any(|l| {
        let ops: Vec<&str> = l.split(',').map(str::trim).collect();
        ops.len() == 4 && ops[1] == "1" && ops[2] == ops[0]
    });
    assert!(flag_set, "{ptx}");
    // ptxas 13 issues this copy's first load and store before its other three loads (two
    // round trips; whether the flag is set by `selp` or not at all), the corpus transpose's four
    // loads together (one; two when the flag was or-ed: docs/performance.md).
    unrolled_and_if_converted("rows", ptx, 2);
    unrolled_and_if_converted("transpose", crate::corpus::transpose::transpose::PTX, 1);
    let (w, h) = (70usize, 45usize);
    let input: Vec<f32> = (0..w * h).map(|k| k as f32 * 0.25 - 3.0).collect();
    let grid = (w.div_ceil(T) as u32, h.div_ceil(T) as u32, 1);
    let stream = cpu_stream();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, w * h).unwrap();
    rows::launch(&stream, LaunchConfig::new(grid, (32, 8, 1)), &ib, &mut ob, w as u32, h as u32).unwrap();
    let want: Vec<f32> = input.iter().map(|v| v * 2.0).collect();
    assert_eq!(ob.to_vec().unwrap(), want);
    // One element short: the thread that reads the last element fails, on the load's line.
    let short = DeviceBuffer::from_slice(&stream, &input[..w * h - 1]).unwrap();
    match rows::launch(&stream, LaunchConfig::new(grid, (32, 8, 1)), &short, &mut ob, w as u32, h as u32) {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_defer.rs"), "{file}");
            assert_eq!(line, line_of("input[y * w + x]; // load"));
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

/// The corpus transpose with no block declared, as CUDA C declares none: its tile index
/// `(ty + j) * 33 + tx` is then checked in the loop too (`ty` is not known below 8), and ptxas
/// 13 kept that loop rolled, one load a trip (four round trips to memory). It is unrolled here
/// (`ir/unroll_full.rs`): its four loads are issued together.
#[test]
fn without_a_declared_block_the_short_loop_is_unrolled_here() {
    use crate::corpus::transpose::transpose_any_block;
    let ptx = transpose_any_block::PTX;
    assert!(!has_loop(&ptx[..ptx.find("bar.sync").expect("the barrier")]), "{ptx}");
    unrolled_and_if_converted("transpose_any_block", ptx, 1);
    let (w, h) = (70usize, 45usize);
    let input: Vec<f32> = (0..w * h).map(|k| k as f32 * 0.25 - 3.0).collect();
    let want: Vec<f32> = (0..w * h).map(|k| input[(k % h) * w + k / h]).collect();
    let grid = (w.div_ceil(T) as u32, h.div_ceil(T) as u32, 1);
    let stream = cpu_stream();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, w * h).unwrap();
    transpose_any_block::launch(&stream, LaunchConfig::new(grid, (32, 8, 1)), &ib, &mut ob, w as u32, h as u32).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
    let load_line = include_str!("corpus/transpose.rs").lines().enumerate().skip_while(|(_, l)| !l.contains("fn transpose_any_block")).find(|(_, l)| l.contains("= input[y * w + x]")).map(|(k, _)| k as u32 + 1).unwrap();
    // A taller block makes the tile index fail (`(ty + j) * 33 + tx` past 1056 at `ty = 9`,
    // `j = 24`), one element short the input's: both at the load's line, as the loop rolled.
    for (block, len) in [((32, 10, 1), w * h), ((32, 8, 1), w * h - 1)] {
        let ib = DeviceBuffer::from_slice(&stream, &input[..len]).unwrap();
        match transpose_any_block::launch(&stream, LaunchConfig::new(grid, block), &ib, &mut ob, w as u32, h as u32) {
            Err(Error::Assert { message, file, line, .. }) => {
                assert_eq!(message, "index out of bounds");
                assert!(file.ends_with("transpose.rs"), "{file}");
                assert_eq!(line, load_line, "block {block:?}, {len} elements");
            }
            other => panic!("expected a failed bounds check, got {other:?}"),
        }
    }
}

#[test]
fn a_loop_of_many_trips_is_left_to_ptxas() {
    assert!(assemble("many_rows", many_rows::PTX));
    let ptx = many_rows::PTX;
    assert!(has_loop(ptx), "{ptx}");
    let input: Vec<f32> = (0..64 * 256).map(|k| k as f32 * 0.5).collect();
    let stream = cpu_stream();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    for height in [0u32, 7, 256] {
        many_rows::launch(&stream, LaunchConfig::new(1, 64), &ib, &mut ob, height).unwrap();
        let want: Vec<f32> = (0..64).map(|x| (0..256).step_by(4).filter(|&j| j < height as usize).fold(0.0f32, |s, j| s + input[j * 64 + x])).collect();
        assert_eq!(ob.to_vec().unwrap(), want, "height {height}");
    }
    // One row short: the thread that reads past the end fails at the read's line.
    let short = DeviceBuffer::from_slice(&stream, &input[..64 * 252]).unwrap();
    match many_rows::launch(&stream, LaunchConfig::new(1, 64), &short, &mut ob, 256) {
        Err(Error::Assert { line, .. }) => assert_eq!(line, line_of("input[j * 64 + x]; // many rows")),
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
}

#[test]
fn a_step_that_passes_the_end_of_the_type_ends_the_loop() {
    assert!(assemble("wrapping_step", wrapping_step::PTX));
    let stream = cpu_stream();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 2).unwrap();
    let m = u32::MAX;
    for (start, end, step) in [(m - 10, m - 1, 7usize), (m - 10, m, 7), (m - 10, m, 5), (m - 3, m, 3), (0, 64, 8), (0, 65, 8), (5, 5, 1), (7, 3, 2), (3, 9, 1 << 40)] {
        wrapping_step::launch(&stream, LaunchConfig::new(1, 1), &mut ob, start, end, step).unwrap();
        let vals: Vec<u32> = (start..end).step_by(step).collect();
        assert_eq!(ob.to_vec().unwrap(), [vals.len() as u32, vals.iter().fold(0u32, |a, v| a.wrapping_add(*v))], "{start}..{end} by {step}");
    }
}
