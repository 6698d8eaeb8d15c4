//! The sm_90 bulk copy from shared to global memory (`cp.async.bulk` the other way, a TMA
//! store without a tensor map), with its own groups:
//!
//! | here | CUDA (`cuda::ptx`) | PTX |
//! |------|--------------------|-----|
//! | [`fence_proxy_async`]`()` | `fence_proxy_async(space_shared)` | `fence.proxy.async.shared::cta` |
//! | [`memcpy_async_bulk_store`]`(&mut y[a..b], src)` | `cp_async_bulk(space_global, space_shared, dst, src, n)` | `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], n` |
//! | [`bulk_commit`]`()` | `cp_async_bulk_commit_group()` | `cp.async.bulk.commit_group` |
//! | [`bulk_wait_prior`]`(n)` | `cp_async_bulk_wait_group(n32_t<n>())` | `cp.async.bulk.wait_group n` |
//!
//! The pattern: the block writes the tile to shared memory, each writer runs
//! `fence_proxy_async()` (the bulk copy reads through the async proxy, which does not see
//! ordinary stores without it), `sync_threads()`, then one thread issues the copy, commits
//! and waits. The global memory is written when the wait covers the copy's group — at the
//! latest; the CPU backend writes it exactly then, so a kernel that reads it back without
//! the wait sees the old contents, as a GPU may. On the host the copy happens at once.

use ptx_macros::__device_api as device_api;

/// Orders this thread's earlier shared-memory stores before later asynchronous-proxy
/// operations (a bulk copy) that read them (`fence.proxy.async.shared::cta`, sm_90).
#[device_api]
#[inline]
pub fn fence_proxy_async() {}

/// Copies `dst.len()` elements from shared memory at `src` to `dst` (global memory, a
/// bounds-checked slice such as `&mut y[a..b]`) in bulk, in the thread's current bulk group
/// (sm_90, `cp.async.bulk.global.shared::cta.bulk_group`). The byte count and both addresses
/// are multiples of 16. `dst` holds the data once [`bulk_wait_prior`] covers the group.
///
/// # Safety
/// `src` is shared memory holding `dst.len()` elements, 16-byte aligned, not written before
/// the wait; `dst` is not read or written by anyone before the wait.
#[device_api]
#[inline]
pub unsafe fn memcpy_async_bulk_store<T: Copy>(dst: &mut [T], src: *const T) {
    // SAFETY: the caller's promise.
    unsafe { std::ptr::copy_nonoverlapping(src, dst.as_mut_ptr(), dst.len()) }
}

/// Closes the thread's current group of bulk copies (`cp.async.bulk.commit_group`).
#[device_api]
#[inline]
pub fn bulk_commit() {}

/// Waits until at most `n` of the thread's most recent committed bulk groups are still in
/// flight (`cp.async.bulk.wait_group n`; `n` a literal, 0 to 63).
#[device_api]
#[inline]
pub fn bulk_wait_prior(n: u32) {
    let _ = n;
}
