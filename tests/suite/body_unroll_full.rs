//! Loops of warp collectives unrolled completely (`ptx-macros/src/ir/unroll_full.rs`): ptxas
//! keeps a loop that holds `shfl.sync` or `vote.sync` rolled, where nvcc unrolls it before
//! ptxas sees it. A shuffle reduction whose counter halves from 16, a butterfly over `1 << k`
//! for `k in 0..5`, and a loop of ballots whose counter doubles are straight code in the PTX
//! (no loop) and in ptxas's SASS (fifteen shuffles, five votes, no backward branch); the
//! results are the host's run of the same body, the counters keep their last values after the
//! loops, and a checked read in such a loop fails at its line where it reads past the slice. A
//! reduction that starts from a run-time value stays a loop.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, ptx_loops, sass, sass_loops};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// Per thread: its warp's sum (lane 0 has it), its warp's maximum, the ballots' bit counts
/// plus the counters after their loops (0 and 32).
#[kernel]
pub fn warp_stats(x: &[u32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let v = if i < x.len() { x[i] } else { 0 };
    let mut sum = v;
    let mut offset = 16u32;
    while offset > 0 {
        sum = sum.wrapping_add(shfl_down_sync(u32::MAX, sum, offset));
        offset /= 2;
    }
    let mut m = v;
    for k in 0..5 {
        m = m.max(shfl_xor_sync(u32::MAX, m, 1 << k));
    }
    let mut bits = 0u32;
    let mut step = 1u32;
    while step < 32 {
        bits += ballot_sync(u32::MAX, v / step % 2 == 1).count_ones();
        step *= 2;
    }
    out[3 * i] = sum;
    out[3 * i + 1] = m;
    out[3 * i + 2] = bits + offset + step;
}

/// Four trips, each reading `x[i + k]` (checked) and exchanging it across the warp.
#[kernel]
pub fn warp_window(x: &[u32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let mut acc = 0u32;
    for k in 0..4 {
        acc = acc.wrapping_add(shfl_xor_sync(u32::MAX, x[i + k], 1 << k)); // the window's read
    }
    out[i] = acc;
}

/// The reduction from a run-time offset: its trip count is not known here.
#[kernel]
pub fn warp_sums_from(x: &[u32], out: &mut [u32], first: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let mut sum = if i < x.len() { x[i] } else { 0 };
    let mut offset = first;
    while offset > 0 {
        sum = sum.wrapping_add(shfl_down_sync(u32::MAX, sum, offset));
        offset /= 2;
    }
    out[i] = sum;
}

fn inputs(n: usize) -> Vec<u32> {
    (0..n as u32).map(|t| t.wrapping_mul(2_654_435_761) >> 7).collect()
}

fn on_host(body: fn(&[u32], &mut [u32]), x: &[u32], blocks: u32, threads: u32, per_thread: usize) -> Vec<u32> {
    let mut out = vec![0u32; (blocks * threads) as usize * per_thread];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each thread writes its own elements.
    host::run([blocks, 1, 1], [threads, 1, 1], 0, || body(x, unsafe { o.get() }));
    out
}

fn line_of(text: &str) -> u32 {
    include_str!("body_unroll_full.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

#[test]
fn warp_reductions_are_straight_code_with_the_hosts_results() {
    let ptx = warp_stats::PTX;
    assert!(ptx_loops(ptx).is_empty(), "a loop is left:\n{ptx}");
    assert_eq!(ptx.matches("shfl.sync").count(), 10, "{ptx}");
    assert_eq!(ptx.matches("vote.sync").count(), 5, "{ptx}");
    if assemble("warp_stats", ptx) {
        for sm in [80, 90] {
            let Some(code) = sass("warp_stats", ptx, sm) else { break };
            // Every listing ends in a branch to itself; nothing else branches back.
            assert!(sass_loops(&code).iter().all(|l| l.start() == l.end()), "sm_{sm}: a loop in the SASS:\n{}", code.join("\n"));
            assert_eq!(code.iter().filter(|i| i.contains("SHFL.")).count(), 10, "sm_{sm}:\n{}", code.join("\n"));
            assert_eq!(code.iter().filter(|i| i.contains("VOTE.")).count(), 5, "sm_{sm}:\n{}", code.join("\n"));
        }
    }
    let stream = cpu_stream();
    for (blocks, threads) in [(1, 32), (2, 64), (3, 96)] {
        let n = (blocks * threads) as usize;
        let x = inputs(n);
        let want = on_host(warp_stats, &x, blocks, threads, 3);
        // The host's run is the body's meaning; check it against the definition too.
        for w in 0..n / 32 {
            let lanes = &x[w * 32..w * 32 + 32];
            assert_eq!(want[3 * w * 32], lanes.iter().fold(0u32, |a, b| a.wrapping_add(*b)), "warp {w}'s sum");
            assert_eq!(want[3 * w * 32 + 1], *lanes.iter().max().unwrap(), "warp {w}'s maximum");
            let bits: u32 = (0..5).map(|b| lanes.iter().filter(|v| *v >> b & 1 == 1).count() as u32).sum();
            assert_eq!(want[3 * w * 32 + 2], bits + 32, "warp {w}'s ballots and counters");
        }
        let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 3 * n).unwrap();
        warp_stats::launch(&stream, LaunchConfig::new(blocks, threads), &xb, &mut ob).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{blocks} × {threads}");
    }
}

#[test]
fn a_checked_read_in_an_unrolled_loop_fails_at_its_line() {
    let ptx = warp_window::PTX;
    assert!(ptx_loops(ptx).is_empty(), "a loop is left:\n{ptx}");
    assert!(assemble("warp_window", ptx));
    let stream = cpu_stream();
    let x = inputs(64 + 3);
    let want = on_host(warp_window, &x, 2, 32, 1);
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 64).unwrap();
    warp_window::launch(&stream, LaunchConfig::new(2, 32), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
    // Two elements short: the last thread's third trip reads past the end.
    let short = DeviceBuffer::from_slice(&stream, &x[..64 + 1]).unwrap();
    let err = warp_window::launch(&stream, LaunchConfig::new(2, 32), &short, &mut ob).unwrap_err();
    match err {
        Error::Assert { message, line, .. } => {
            assert_eq!(message, "index out of bounds");
            assert_eq!(line, line_of("// the window's read"));
        }
        other => panic!("expected the window's failed check, got {other:?}"),
    }
}

#[test]
fn a_reduction_from_a_run_time_offset_stays_a_loop() {
    let ptx = warp_sums_from::PTX;
    assert_eq!(ptx_loops(ptx).len(), 1, "{ptx}");
    assert!(assemble("warp_sums_from", ptx));
    let stream = cpu_stream();
    let x = inputs(64);
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 64).unwrap();
    warp_sums_from::launch(&stream, LaunchConfig::new(2, 32), &xb, &mut ob, 16).unwrap();
    let mut out = vec![0u32; 64];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each thread writes its own element.
    host::run([2, 1, 1], [32, 1, 1], 0, || warp_sums_from(&x, unsafe { o.get() }, 16));
    assert_eq!(ob.to_vec().unwrap(), out);
}
