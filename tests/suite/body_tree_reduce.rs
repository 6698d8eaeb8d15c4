//! A shared-memory tree reduction under declared launch bounds needs no bounds checks
//! (`ptx-macros/src/ir/bce.rs`, `Halves`): with `launch_bounds(max_threads = 64)`, `tid < 64`
//! indexes a 64-element tile, and under `if tid < s`, with `s` at most half the block
//! (`block_dim_x() / 2`, then halved), `tid + s < 2·s <= 64` does too. The results are the
//! host's; an index one past that (`tid + s + 1`) keeps its check and fails at its line; a
//! block wider than the bounds is refused before it runs; ptxas assembles both and leaves no
//! compare with the tile's length in the SASS of the first.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, sass};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// Each block sums its threads' inputs in a 64-element tile.
#[kernel(launch_bounds(max_threads = 64))]
pub fn tree_sums(x: &[u32], out: &mut [u32]) {
    let mut red = unsafe { shared_array::<u32, 64>() };
    let tid = thread_idx_x() as usize;
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    red[tid] = if i < x.len() { x[i] } else { 0 };
    sync_threads();
    let mut s = block_dim_x() as usize / 2;
    while s > 0 {
        if tid < s {
            red[tid] = red[tid].wrapping_add(red[tid + s]);
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[block_idx_x() as usize] = red[0];
    }
}

/// The same with the partner one further: `tid + s + 1` reaches 64 for `tid = s - 1` when the
/// block has 64 threads.
#[kernel(launch_bounds(max_threads = 64))]
pub fn tree_past(x: &[u32], out: &mut [u32]) {
    let mut red = unsafe { shared_array::<u32, 64>() };
    let tid = thread_idx_x() as usize;
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    red[tid] = if i < x.len() { x[i] } else { 0 };
    sync_threads();
    let mut s = block_dim_x() as usize / 2;
    while s > 0 {
        if tid < s {
            red[tid] = red[tid].wrapping_add(red[tid + s + 1]); // one past
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[block_idx_x() as usize] = red[0];
    }
}

type Body = fn(&[u32], &mut [u32]);
type Launch = fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>) -> ptx_runtime::Result<()>;

fn on_host(body: Body, x: &[u32], blocks: u32, threads: u32) -> Vec<u32> {
    let mut out = vec![0u32; blocks as usize];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: thread 0 of each block writes its block's element.
    host::run([blocks, 1, 1], [threads, 1, 1], 0, || body(x, unsafe { o.get() }));
    out
}

fn on_cpu(launch: Launch, x: &[u32], blocks: u32, threads: u32) -> ptx_runtime::Result<Vec<u32>> {
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, x)?;
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, blocks as usize)?;
    launch(&stream, LaunchConfig::new(blocks, threads), &xb, &mut ob)?;
    ob.to_vec()
}

fn line_of(text: &str) -> u32 {
    include_str!("body_tree_reduce.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

#[test]
fn a_declared_block_bound_leaves_a_tree_reduction_without_checks() {
    let ptx = tree_sums::PTX;
    assert!(assemble("tree_sums", ptx) && assemble("tree_past", tree_past::PTX));
    let x: Vec<u32> = (0..500u32).map(|k| k.wrapping_mul(2_654_435_761)).collect();
    for (blocks, threads) in [(8, 64), (3, 32), (5, 16), (2, 1), (1, 64), (4, 8)] {
        assert_eq!(on_cpu(|s, c, x, o| tree_sums::launch(s, c, x, o), &x, blocks, threads).unwrap(), on_host(tree_sums, &x, blocks, threads), "{blocks} x {threads}");
    }
    // No compare with the tile's 64 elements is left; the one check is `out[block]`'s.
    let tile_compares = |ptx: &str| ptx.lines().filter(|l| l.trim_start().starts_with("setp") && l.trim_end().ends_with(", 64;")).count();
    assert_eq!(tile_compares(ptx), 0, "{ptx}");
    assert_eq!(ptx.lines().filter(|l| l.trim_start().starts_with("setp.ge")).count(), 1, "{ptx}");
    // A block wider than the bounds: refused before it runs.
    let wide = on_cpu(|s, c, x, o| tree_sums::launch(s, c, x, o), &x, 1, 128);
    assert!(matches!(&wide, Err(Error::InvalidConfig { reason }) if reason.contains("at most 64")), "{wide:?}");
    for sm in [80, 90] {
        let Some(s) = sass("tree_sums", ptx, sm) else { return };
        assert!(!s.iter().any(|i| i.starts_with("ISETP") && i.contains("0x40")), "sm_{sm}: {s:#?}");
    }
}

#[test]
fn one_past_the_partner_keeps_its_check() {
    let x: Vec<u32> = (0..500u32).collect();
    // 32 threads: `tid + s + 1 <= 32`, in bounds; 64: `31 + 32 + 1 = 64` is not.
    assert_eq!(on_cpu(|s, c, x, o| tree_past::launch(s, c, x, o), &x, 2, 32).unwrap(), on_host(tree_past, &x, 2, 32));
    assert!(std::panic::catch_unwind(|| on_host(tree_past, &x, 1, 64)).is_err());
    match on_cpu(|s, c, x, o| tree_past::launch(s, c, x, o), &x, 1, 64) {
        Err(Error::Assert { message, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert_eq!(line, line_of("red[tid + s + 1]); // one past"));
        }
        other => panic!("expected the partner's bounds check to fail, got {other:?}"),
    }
}
