//! Asynchronous copies from global to shared memory (sm_80): CUDA's
//! `__pipeline_memcpy_async`, `__pipeline_commit`, `__pipeline_wait_prior` (PTX `cp.async`).
//!
//! | here | CUDA | PTX (as nvcc writes it) |
//! |------|------|-----|
//! | [`memcpy_async`]`(dst, src)` | `__pipeline_memcpy_async(dst, src, sizeof(T))` | `cp.async.ca.shared.global [d], [s], 4, 4` (and 8); `cp.async.cg.shared.global [d], [s], 16, 16` |
//! | [`memcpy_async_ca`]`(dst, src)` | `asm("cp.async.ca.shared.global ...")` | `cp.async.ca.shared.global [d], [s], N, N` (N = 4, 8, 16) |
//! | [`memcpy_async_zfill`]`(dst, src, n)` | `asm("cp.async.cg.shared.global [%0], [%1], 16, %2;")` | `cp.async.{ca,cg}.shared.global [d], [s], N, n` |
//! | [`pipeline_commit`]`()` | `__pipeline_commit()` | `cp.async.commit_group` |
//! | [`pipeline_wait_prior`]`(n)` | `__pipeline_wait_prior(n)` | `cp.async.wait_group n` |
//! | [`pipeline_wait_all`]`()` | `asm("cp.async.wait_all;")` | `cp.async.wait_all` |
//!
//! `dst` is an element of shared memory (`&mut tile[i]` of a [`shared_array`](super::shared_array)
//! or [`dynamic_shared`](super::dynamic_shared)), `src` an element of a global slice (`&x[i]`,
//! bounds-checked like any index); `T` is 4, 8 or 16 bytes (`f32`, `u64`, `[f32; 4]`, ...), and
//! both addresses must be aligned to its size. A copy's bytes land in shared memory at some
//! point before the thread's [`pipeline_wait_prior`] (or [`pipeline_wait_all`]) that covers its
//! group returns; until then the destination must not be read, and other threads see it after
//! a barrier that follows the wait.
//!
//! ```
//! use ptx_runtime::device::*;
//! use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};
//!
//! /// Each block stages its 128 elements in shared memory with asynchronous copies.
//! #[kernel(sm = 80)]
//! pub fn stage(x: &[f32], y: &mut [f32]) {
//!     let mut tile = unsafe { shared_array::<f32, 128>() };
//!     let (t, base) = (thread_idx_x() as usize, block_idx_x() as usize * 128);
//!     unsafe { memcpy_async(&mut tile[t], &x[base + t]) };
//!     pipeline_commit();
//!     pipeline_wait_prior(0);
//!     sync_threads();
//!     y[base + t] = tile[127 - t];
//! }
//!
//! fn main() -> ptx_runtime::Result<()> {
//!     let stream = Device::cpu().stream();
//!     let x: Vec<f32> = (0..256).map(|i| i as f32).collect();
//!     let xs = DeviceBuffer::from_slice(&stream, &x)?;
//!     let mut ys = DeviceBuffer::<f32>::zeroed(&stream, 256)?;
//!     stage::launch(&stream, LaunchConfig::new(2, 128), &xs, &mut ys)?;
//!     let want: Vec<f32> = x.chunks(128).flat_map(|c| c.iter().rev().copied()).collect();
//!     assert_eq!(ys.to_vec()?, want);
//!     Ok(())
//! }
//! ```
//!
//! On the host the copies happen at once (a valid order of events); commit and wait do nothing.

use ptx_macros::__device_api as device_api;

/// Copies one `T` (4, 8 or 16 bytes) from global memory at `src` to shared memory at `dst`
/// without waiting for it (`__pipeline_memcpy_async(dst, src, sizeof(T))`: `cp.async.ca` for 4
/// and 8 bytes, `cp.async.cg` — around L1 — for 16).
///
/// # Safety
/// `dst` is shared memory and `src` global memory, both aligned to `size_of::<T>()`; nothing
/// reads `dst` before the [`pipeline_wait_prior`] that covers this copy.
#[device_api]
#[inline]
pub unsafe fn memcpy_async<T: Copy>(dst: *mut T, src: *const T) {
    // SAFETY: the caller's promise.
    unsafe { dst.write(src.read()) }
}

/// [`memcpy_async`] always through L1 (`cp.async.ca`, 4, 8 or 16 bytes).
///
/// # Safety
/// As for [`memcpy_async`].
#[device_api]
#[inline]
pub unsafe fn memcpy_async_ca<T: Copy>(dst: *mut T, src: *const T) {
    // SAFETY: the caller's promise.
    unsafe { dst.write(src.read()) }
}

/// [`memcpy_async`] reading only the first `src_bytes` bytes of `*src` and zero-filling the
/// rest of `*dst` (`cp.async`'s `src-size` operand): a tile's tail past the end of the input.
/// `src_bytes` is at most `size_of::<T>()`.
///
/// # Safety
/// As for [`memcpy_async`].
#[device_api]
#[inline]
pub unsafe fn memcpy_async_zfill<T: Copy>(dst: *mut T, src: *const T, src_bytes: u32) {
    let size = std::mem::size_of::<T>();
    let n = (src_bytes as usize).min(size);
    // SAFETY: the caller's promise; `n <= size`.
    unsafe {
        std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, n);
        std::ptr::write_bytes((dst as *mut u8).add(n), 0, size - n);
    }
}

/// Closes the thread's current group of asynchronous copies (`__pipeline_commit()`,
/// `cp.async.commit_group`).
#[device_api]
#[inline]
pub fn pipeline_commit() {}

/// Waits until at most `n` of the thread's most recent committed groups are still in flight
/// (`__pipeline_wait_prior(n)`, `cp.async.wait_group n`). `n` is a constant (0 to 7 in the
/// usual double- or triple-buffered loops).
#[device_api]
#[inline]
pub fn pipeline_wait_prior(n: u32) {
    let _ = n;
}

/// Waits for all of the thread's asynchronous copies, committed or not (`cp.async.wait_all`).
#[device_api]
#[inline]
pub fn pipeline_wait_all() {}
