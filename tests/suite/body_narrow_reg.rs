//! 64-bit registers whose every value is below 2^32, kept in 32 bits
//! (`ptx-macros/src/ir/narrow_reg.rs`): a shared-memory reduction written with `usize`
//! (`tid`, the halving `s`, `tid + s`) is shifted, added and compared in 32 bits. Each kernel
//! runs on the CPU backend against the host run of the same body, including a launch whose
//! block is wider than the tile (the check of `red[tid + s]` fails at Rust's line, as the
//! host panics); a register that grows past 2^32 in a loop stays 64-bit and gives the host's
//! values; a `for` loop over the tiles of a `u32`-sized range counts, indexes and compares in
//! 32 bits (its counter bounded on its trips), with the host's results and failure; ptxas
//! assembles each.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// Each block sums its threads' inputs in a 64-element shared tile (a `usize` reduction).
#[kernel]
pub fn block_sums(x: &[u32], out: &mut [u32]) {
    let mut red = unsafe { shared_array::<u32, 64>() };
    let tid = thread_idx_x() as usize;
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    red[tid] = if i < x.len() { x[i] } else { 0 };
    sync_threads();
    let mut s = block_dim_x() as usize / 2;
    while s > 0 {
        if tid < s {
            red[tid] = red[tid].wrapping_add(red[tid + s]); // halving
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[block_idx_x() as usize] = red[0];
    }
}

/// `v` starts below 8 + 1024 and quadruples on every trip: past 2^32 within 16 trips, so it
/// stays 64-bit (a range iteration that stopped early would have it below 2^32).
#[kernel]
pub fn grows(x: &[u32], out: &mut [u32], trips: u32) {
    let i = thread_idx_x() as usize;
    if i < x.len() && i < out.len() {
        let mut v = (x[i] & 7) as usize + i;
        let mut k = 0;
        while k < trips {
            v = v * 4 + 1;
            k += 1;
        }
        out[i] = (v >> 20) as u32 ^ v as u32;
    }
}

/// A widened `u32` compared as `i64` with immediates: `n > -1` and `n == -10` stay signed
/// 64-bit compares (`-1` is no value below 2^32), `9 <= n <= 35` may be 32-bit.
#[kernel]
pub fn signed_tests(x: &[u32], out: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < x.len() && i < out.len() {
        let n = x[i] as i64;
        out[i] = (n > -1) as u32 + 2 * (n == -10) as u32 + 4 * (n >= 9 && n <= 35) as u32;
    }
}

/// An `f64` made from integer bits and read back as bits: the bits are below 2^32 (the
/// `f64` register holds an integer immediate), but a float register has no 32-bit half to
/// read, so the copy stays 64-bit (a difftest find: `cvt.u32.u64` of an `f64` register).
#[kernel]
pub fn float_bits(x: &[f64], out: &mut [u64]) {
    let f = f64::from_bits(4_294_967_285);
    let b = f.to_bits();
    if out.len() > 1 && !x.is_empty() {
        out[0] = (b as u32) as u64 + f.is_nan() as u64 + (b < 7) as u64;
        out[1] = (x[0] + f).to_bits();
    }
}

/// A `for` loop over the 16-wide tiles of a `u32`-sized range: `tiles <= 2^28`, so on the
/// loop's trips `t <= 2^28 - 1` and `t * 16 + lane <= 2^32 - 1`. The counter, its test and the
/// index are computed and compared in 32 bits; the counter's last value (`tiles`, up to 2^28)
/// would make `t * 16` reach 2^32, so the range that decides is the one on the trips.
#[kernel]
pub fn tile_sums(x: &[u32], out: &mut [u32], n: u32) {
    let lane = (thread_idx_x() % 16) as usize;
    let n = n as usize;
    let tiles = (n + 15) / 16;
    let mut acc = 0u32;
    for t in 0..tiles {
        let k = t * 16 + lane;
        if k < n {
            acc = acc.wrapping_add(x[k].rotate_left(t as u32)); // tile read
        }
    }
    out[thread_idx_x() as usize] = acc;
}

fn line_of(text: &str) -> u32 {
    include_str!("body_narrow_reg.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn block_sums_host(x: &[u32], blocks: u32, threads: u32) -> Vec<u32> {
    let mut out = vec![0u32; blocks as usize];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: thread 0 of each block writes its block's element.
    host::run([blocks, 1, 1], [threads, 1, 1], 0, || block_sums(x, unsafe { o.get() }));
    out
}

#[test]
fn a_usize_reduction_is_computed_in_32_bits_with_rusts_results_and_reports() {
    assert!(assemble("block_sums", block_sums::PTX));
    let ptx = block_sums::PTX;
    // The halving, its test and `tid < s`, `tid + s < 64` in 32 bits; no 64-bit shift left.
    assert!(!ptx.contains("shr.u64"), "{ptx}");
    assert!(ptx.contains("shr.u32"), "{ptx}");
    assert!(ptx.contains("setp.gt.u32"), "{ptx}");
    let stream = cpu_stream();
    let run = |x: &[u32], blocks: u32, threads: u32| {
        let xb = DeviceBuffer::from_slice(&stream, x).unwrap();
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, blocks as usize).unwrap();
        block_sums::launch(&stream, LaunchConfig::new(blocks, threads), &xb, &mut ob).map(|()| ob.to_vec().unwrap())
    };
    let x: Vec<u32> = (0..500u32).map(|k| k.wrapping_mul(2_654_435_761)).collect();
    for (blocks, threads) in [(8, 64), (3, 32), (5, 16), (2, 1), (1, 64)] {
        assert_eq!(run(&x, blocks, threads).unwrap(), block_sums_host(&x, blocks, threads), "{blocks} x {threads}");
    }
    // 128 threads: `red[tid]` with `tid` up to 127 fails first, as on the host.
    assert!(std::panic::catch_unwind(|| block_sums_host(&x, 1, 128)).is_err());
    match run(&x, 1, 128) {
        Err(Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert_eq!(line, line_of("red[tid] = if i < x.len()"));
        }
        other => panic!("expected the tile's bounds check to fail, got {other:?}"),
    }
}

#[test]
fn a_register_that_grows_past_2_to_the_32_stays_64_bit() {
    assert!(assemble("grows", grows::PTX));
    let stream = cpu_stream();
    let x: Vec<u32> = vec![0, 1, 7, u32::MAX, 123_456_789, 1 << 31];
    for trips in [0u32, 1, 5, 12, 20, 30] {
        let mut want = vec![0u32; x.len()];
        let o = host::Disjoint::new(&mut want);
        // SAFETY: each thread writes its own element.
        host::run([1, 1, 1], [x.len() as u32, 1, 1], 0, || grows(&x, unsafe { o.get() }, trips));
        let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, x.len()).unwrap();
        grows::launch(&stream, LaunchConfig::new(1, x.len() as u32), &xb, &mut ob, trips).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "trips = {trips}");
    }
}

#[test]
fn compares_with_negative_immediates_stay_64_bit() {
    assert!(assemble("signed_tests", signed_tests::PTX));
    let stream = cpu_stream();
    let x: Vec<u32> = vec![0, 9, 10, 35, 36, u32::MAX, u32::MAX - 9, 1 << 31];
    let mut want = vec![0u32; x.len()];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: each thread writes its own element.
    host::run([1, 1, 1], [x.len() as u32, 1, 1], 0, || signed_tests(&x, unsafe { o.get() }));
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, x.len()).unwrap();
    signed_tests::launch(&stream, LaunchConfig::new(1, x.len() as u32), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
    assert_eq!(want, [1, 5, 5, 5, 1, 1, 1, 1]);
}

#[test]
fn bits_of_a_float_register_are_not_read_as_a_low_half() {
    assert!(assemble("float_bits", float_bits::PTX));
    let stream = cpu_stream();
    let x = [1.5f64];
    let mut want = vec![0u64; 2];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: one thread.
    host::run([1, 1, 1], [1, 1, 1], 0, || float_bits(&x, unsafe { o.get() }));
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u64>::zeroed(&stream, 2).unwrap();
    float_bits::launch(&stream, LaunchConfig::new(1, 1), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
}

fn tile_sums_host(x: &[u32], n: u32, threads: u32) -> Vec<u32> {
    let mut out = vec![0u32; threads as usize];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: each thread writes its own element.
    host::run([1, 1, 1], [threads, 1, 1], 0, || tile_sums(x, unsafe { o.get() }, n));
    out
}

#[test]
fn a_for_loops_counter_below_a_u32_end_is_32_bit_on_its_trips() {
    assert!(assemble("tile_sums", tile_sums::PTX));
    let ptx = tile_sums::PTX;
    // The counter steps and is tested in 32 bits, and `k < n` is a 32-bit compare: no 64-bit
    // add of an immediate (the step) nor 64-bit compare is left in the loop.
    let code: Vec<&str> = ptx.lines().map(str::trim).collect();
    assert!(!code.iter().any(|l| l.starts_with("add.s64") && l.ends_with(", 1;")), "{ptx}");
    assert!(code.iter().any(|l| l.starts_with("add.u32") && l.ends_with(", 1;")), "{ptx}");
    assert!(!code.iter().any(|l| l.starts_with("setp.lt.u64")), "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..200u32).map(|k| k.wrapping_mul(2_654_435_761)).collect();
    let run = |x: &[u32], n: u32, threads: u32| {
        let xb = DeviceBuffer::from_slice(&stream, x).unwrap();
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, threads as usize).unwrap();
        tile_sums::launch(&stream, LaunchConfig::new(1, threads), &xb, &mut ob, n).map(|()| ob.to_vec().unwrap())
    };
    for (n, threads) in [(200u32, 32u32), (197, 16), (16, 20), (1, 8), (0, 4)] {
        assert_eq!(run(&x, n, threads).unwrap(), tile_sums_host(&x, n, threads), "n = {n}, {threads} threads");
    }
    // `n` past the slice's end: the tile read fails at Rust's line, as the host panics.
    assert!(std::panic::catch_unwind(|| tile_sums_host(&x, 230, 16)).is_err());
    match run(&x, 230, 16) {
        Err(Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert_eq!(line, line_of("// tile read"));
        }
        other => panic!("expected the tile read's check to fail, got {other:?}"),
    }
}

#[test]
fn a_counters_widening_that_no_read_sees_is_removed() {
    // layernorm's row loops count in 32 bits; the 64-bit counter is read once, before each
    // loop (the first address). The widening written after each advance is read by nothing
    // (the next trip reads the 32-bit counter, the code after the loop nothing): `opt`'s
    // liveness removes it, where the removal of unread registers kept every write of a
    // register read somewhere.
    let ptx = crate::corpus::layernorm::layernorm::PTX;
    let body = crate::tools::ptx_loops(ptx).concat();
    assert_eq!(crate::tools::ptx_loops(ptx).len(), 3, "{ptx}");
    assert!(body.iter().any(|l| l.starts_with("add.u32")), "{ptx}");
    assert!(!body.iter().any(|l| l.starts_with("cvt.u64.u32")), "{ptx}");
}
