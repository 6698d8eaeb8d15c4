//! Threads together: shared memory (static arrays, sized by constants rustc evaluates, and
//! dynamic), barriers with reductions, warp shuffles of every kind and width, votes, fences,
//! clocks, and multi-dimensional coordinates.

// The kernels spell out the language forms under test (a `loop` that breaks with a value at
// once, `x % 1`, index loops, casts to the same type...): the device compiler must handle what
// is written, so clippy's rewrites would test less.
#![allow(clippy::never_loop, clippy::modulo_one, clippy::erasing_op, clippy::identity_op, clippy::needless_range_loop, clippy::manual_is_multiple_of, clippy::unnecessary_cast, clippy::assign_op_pattern, clippy::too_many_arguments, clippy::needless_late_init, clippy::redundant_closure, clippy::manual_range_patterns, clippy::manual_div_ceil)]

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, LaunchConfig};

pub const ROW: usize = 8;

#[device_fn]
pub fn block_sum(v: u32) -> u32 {
    // A shared array declared in a device function: one per block, like a function-scope
    // `__shared__` in CUDA.
    let mut partial = unsafe { shared_array::<u32, 64>() };
    let t = thread_idx_x() as usize;
    partial[t] = v;
    sync_threads();
    let mut total = 0;
    for k in 0..block_dim_x() as usize {
        total += partial[k];
    }
    sync_threads();
    total
}

#[kernel]
pub fn blocks(x: &[u32], out: &mut [u32]) {
    let mut grid = unsafe { shared_array::<u32, { ROW * ROW }>() };
    let mut scratch = unsafe { dynamic_shared::<u64>() };
    let t = thread_idx_x() as usize;
    let i = block_idx_x() as usize * block_dim_x() as usize + t;
    let v = if i < x.len() { x[i] } else { 0 };
    grid[t] = v;
    scratch[t] = v as u64 * 3;
    sync_threads();
    let transposed = grid[(t % ROW) * ROW + t / ROW];
    let neighbour = scratch[(t + 1) % scratch.len()] as u32;
    let odd = sync_threads_count(v % 2 == 1);
    let all_small = sync_threads_and(v < 1000);
    let any_big = sync_threads_or(v > 900);
    let total = block_sum(v);
    if i < out.len() {
        out[i] = transposed * 1_000_000 + neighbour * 1000 + odd * 10 + all_small as u32 * 2 + any_big as u32 + total % 7 * 100_000_000;
    }
}

#[test]
fn shared_memory_and_block_barriers() {
    assemble("blocks", blocks::PTX);
    let ptx = blocks::PTX;
    assert!(ptx.contains(".extern .shared .align 16 .b8 __ptx_dyn_smem[];") && ptx.contains("ld.shared.u32") && ptx.contains("bar.red.popc.u32") && ptx.contains("bar.red.and.pred"), "{ptx}");
    let x: Vec<u32> = (0..128).map(|v| (v * 37 + 11) % 1000).collect();
    let mut out = vec![0; 128];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([2, 1, 1], [64, 1, 1], 64 * 8, || blocks(&x, unsafe { o.get() }));
    for b in 0..2 {
        let blk = &x[b * 64..b * 64 + 64];
        let odd = blk.iter().filter(|v| *v % 2 == 1).count() as u32;
        let total: u32 = blk.iter().sum();
        for t in 0..64 {
            let want = blk[(t % ROW) * ROW + t / ROW] * 1_000_000 + blk[(t + 1) % 64] * 3 * 1000 + odd * 10 + blk.iter().all(|v| *v < 1000) as u32 * 2 + blk.iter().any(|v| *v > 900) as u32 + total % 7 * 100_000_000;
            assert_eq!(out[b * 64 + t], want, "block {b} thread {t}");
        }
    }
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 128).unwrap();
    blocks::launch(&stream, LaunchConfig::new(2, 64).with_shared_bytes(64 * 8), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}

#[kernel]
pub fn warps(a: &[i32], f: &[f64], out: &mut [i64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let lane = lane_id();
    let v = a[i];
    let d = f[i];
    let from_zero = shfl_sync(u32::MAX, v, 0);
    let up = shfl_up_sync(u32::MAX, v, 3);
    let down = shfl_down_sync(u32::MAX, d, 5);
    let xor = shfl_xor_sync(u32::MAX, (v & 0xff) as u8, 7);
    let flag = shfl_sync(u32::MAX, v < 0, (lane + 1) % 32);
    let all = all_sync(u32::MAX, v > -1000);
    let any = any_sync(u32::MAX, v == 17);
    let ballot = ballot_sync(u32::MAX, v % 3 == 0);
    let active = active_mask();
    sync_warp(u32::MAX);
    thread_fence_block();
    thread_fence();
    thread_fence_system();
    out[i] = from_zero as i64 + up as i64 * 3 + (down * 8.0) as i64 * 5 + xor as i64 * 7 + flag as i64 * 11 + all as i64 * 13 + any as i64 * 17 + ballot as i64 * 23 + active as i64 * 29 + (warp_size() * lane) as i64;
}

#[test]
fn warp_shuffles_and_votes() {
    assemble("warps", warps::PTX);
    let n = 64;
    let a: Vec<i32> = (0..n as i32).map(|v| if v == 40 { 17 } else { (v * 7919) % 151 - 60 }).collect();
    let f: Vec<f64> = (0..n).map(|v| v as f64 * 0.625 - 3.0).collect();
    let mut out = vec![0i64; n];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [64, 1, 1], 0, || warps(&a, &f, unsafe { o.get() }));
    for w in 0..2 {
        let lanes = &a[w * 32..w * 32 + 32];
        let ballot: u32 = lanes.iter().enumerate().map(|(l, v)| ((v % 3 == 0) as u32) << l).sum();
        for l in 0..32 {
            let i = w * 32 + l;
            let up = if l >= 3 { lanes[l - 3] } else { lanes[l] };
            let down = if l + 5 < 32 { f[i + 5] } else { f[i] };
            let xor = (lanes[l ^ 7] & 0xff) as u8;
            let flag = lanes[(l + 1) % 32] < 0;
            let want = lanes[0] as i64 + up as i64 * 3 + (down * 8.0) as i64 * 5 + xor as i64 * 7 + flag as i64 * 11 + 13 + lanes.contains(&17) as i64 * 17 + ballot as i64 * 23 + u32::MAX as i64 * 29 + 32 * l as i64;
            assert_eq!(out[i], want, "warp {w} lane {l}");
        }
    }
    let stream = crate::body_exec::cpu_stream();
    let (ab, fb) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &f).unwrap());
    let mut ob = DeviceBuffer::<i64>::zeroed(&stream, n).unwrap();
    warps::launch(&stream, LaunchConfig::new(1, 64), &ab, &fb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}

#[kernel]
pub fn coordinates(out: &mut [u32]) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    let z = block_idx_z() * block_dim_z() + thread_idx_z();
    let w = grid_dim_x() * block_dim_x();
    let h = grid_dim_y() * block_dim_y();
    let i = ((z * h + y) * w + x) as usize;
    let t0 = clock64();
    let c = clock();
    let g = global_timer();
    nanosleep(10);
    let t1 = clock64();
    out[i] = x + y * 100 + z * 10_000 + grid_dim_z() * 1_000_000 + (t1 >= t0) as u32 * 10_000_000 + ((c as u64 + g) & 0) as u32;
}

#[test]
fn coordinates_in_three_dimensions_and_clocks() {
    assemble("coordinates", coordinates::PTX);
    let (grid, block) = ([2u32, 3, 2], [4u32, 2, 3]);
    let n = (2 * 4 * 3 * 2 * 2 * 3) as usize;
    let mut out = vec![0u32; n];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run(grid, block, 0, || coordinates(unsafe { o.get() }));
    let (w, h) = (8u32, 6u32);
    for z in 0..6u32 {
        for y in 0..h {
            for x in 0..w {
                assert_eq!(out[((z * h + y) * w + x) as usize], x + y * 100 + z * 10_000 + 2_000_000 + 10_000_000);
            }
        }
    }
    let stream = crate::body_exec::cpu_stream();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    coordinates::launch(&stream, LaunchConfig::new((2, 3, 2), (4, 2, 3)), &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}

#[kernel]
pub fn uniform(x: &[u32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    out[i] = uni_sync(u32::MAX, x[i] < 10) as u32 + 2 * uni_sync(u32::MAX, x[i] == 3) as u32;
}

#[test]
fn vote_uni() {
    assemble("uniform", uniform::PTX);
    let x: Vec<u32> = (0..64).map(|v| if v < 32 { 3 } else { v % 7 }).collect();
    let mut out = vec![0; 64];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [64, 1, 1], 0, || uniform(&x, unsafe { o.get() }));
    assert_eq!(out[..32], [3; 32]);
    assert_eq!(out[32..], [1; 32]);
    let stream = crate::body_exec::cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 64).unwrap();
    uniform::launch(&stream, LaunchConfig::new(1, 64), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), out);
}
