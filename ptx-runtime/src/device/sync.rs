//! Barriers and memory fences.
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | [`sync_threads`] | `__syncthreads()` | `bar.sync 0` |
//! | [`sync_threads_count`] | `__syncthreads_count(p)` | `bar.red.popc.u32` |
//! | [`sync_threads_and`] / [`sync_threads_or`] | `__syncthreads_and/or(p)` | `bar.red.and/or.pred` |
//! | [`sync_warp`] | `__syncwarp(mask)` | `bar.warp.sync mask` |
//! | [`thread_fence_block`] | `__threadfence_block()` | `membar.cta` |
//! | [`thread_fence`] | `__threadfence()` | `membar.gl` |
//! | [`thread_fence_system`] | `__threadfence_system()` | `membar.sys` |
//! | [`trap`] | `__trap()` | `trap` |

use super::host::{block_exchange, warp_exchange};
use ptx_macros::__device_api as device_api;
use std::sync::atomic::{fence, Ordering};

/// Waits until every thread of the block gets here; shared and global memory written before
/// it by any thread of the block is visible after it (CUDA `__syncthreads()`).
#[device_api]
#[inline]
pub fn sync_threads() {
    block_exchange(0);
}

/// [`sync_threads`], returning how many threads of the block passed `true`
/// (CUDA `__syncthreads_count`).
#[device_api]
#[inline]
pub fn sync_threads_count(predicate: bool) -> u32 {
    block_exchange(predicate as u64).iter().sum::<u64>() as u32
}

/// [`sync_threads`], returning whether every thread passed `true` (CUDA `__syncthreads_and`).
#[device_api]
#[inline]
pub fn sync_threads_and(predicate: bool) -> bool {
    block_exchange(predicate as u64).iter().all(|&v| v != 0)
}

/// [`sync_threads`], returning whether any thread passed `true` (CUDA `__syncthreads_or`).
#[device_api]
#[inline]
pub fn sync_threads_or(predicate: bool) -> bool {
    block_exchange(predicate as u64).iter().any(|&v| v != 0)
}

/// Waits until the warp's lanes in `mask` get here (CUDA `__syncwarp(mask)`). On the host
/// every lane of the warp takes part.
#[device_api]
#[inline]
pub fn sync_warp(mask: u32) {
    let _ = mask;
    warp_exchange(0);
}

/// Orders this thread's memory accesses as seen by the block (CUDA `__threadfence_block`).
#[device_api]
#[inline]
pub fn thread_fence_block() {
    fence(Ordering::SeqCst);
}

/// Orders this thread's memory accesses as seen by the whole device (CUDA `__threadfence`).
#[device_api]
#[inline]
pub fn thread_fence() {
    fence(Ordering::SeqCst);
}

/// Orders this thread's memory accesses as seen by the device and the host
/// (CUDA `__threadfence_system`).
#[device_api]
#[inline]
pub fn thread_fence_system() {
    fence(Ordering::SeqCst);
}

/// Stops the kernel: the launch fails (CUDA `__trap()`, PTX `trap`). On the host it panics.
#[device_api]
#[inline]
pub fn trap() -> ! {
    panic!("trap: the kernel stopped itself")
}
