//! Split arrive/wait barriers in shared memory (sm_80, PTX `mbarrier`; CUDA's
//! `__mbarrier_*` primitives of `cuda_awbarrier_primitives.h`, the machinery under
//! `cuda::barrier<thread_scope_block>`), and the sm_90 bulk copy that completes on one
//! (`cp.async.bulk`, TMA without a tensor map).
//!
//! | here | CUDA | PTX | target |
//! |------|------|-----|--------|
//! | [`mbarrier_init`]`(bar, count)` | `__mbarrier_init(bar, count)` | `mbarrier.init.shared.b64 [bar], count` | sm_80 |
//! | [`mbarrier_arrive`]`(bar)` | `__mbarrier_arrive(bar)` | `mbarrier.arrive.shared.b64 token, [bar]` | sm_80 |
//! | [`mbarrier_arrive_drop`]`(bar)` | `__mbarrier_arrive_and_drop(bar)` | `mbarrier.arrive_drop.shared.b64` | sm_80 |
//! | [`mbarrier_test_wait`]`(bar, token)` | `__mbarrier_test_wait(bar, token)` | `mbarrier.test_wait.shared.b64 p, [bar], token` | sm_80 |
//! | [`mbarrier_inval`]`(bar)` | `__mbarrier_inval(bar)` | `mbarrier.inval.shared.b64 [bar]` | sm_80 |
//! | [`mbarrier_try_wait`]`(bar, token)` | `asm("mbarrier.try_wait...")` | `mbarrier.try_wait.shared.b64 p, [bar], token` | sm_90 |
//! | [`mbarrier_try_wait_parity`]`(bar, parity)` | `asm(...)` | `mbarrier.try_wait.parity.shared.b64 p, [bar], parity` | sm_90 |
//! | [`mbarrier_expect_tx`]`(bar, bytes)` | `asm(...)` | `mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes` | sm_90 |
//! | [`mbarrier_arrive_expect_tx`]`(bar, bytes)` | `cuda::device::barrier_arrive_tx` | `mbarrier.arrive.expect_tx.shared.b64 token, [bar], bytes` | sm_90 |
//! | [`memcpy_async_bulk`]`(dst, src, bar)` | `cuda::device::memcpy_async_tx` | `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], n, [bar]` | sm_90 |
//!
//! `bar` is a `u64` of shared memory (`&mut bars[0]` of a `shared_array::<u64, 1>()`). A
//! phase completes when `count` arrivals have happened and, on sm_90, the transaction bytes
//! the phase expects have arrived; a thread waits for the phase it arrived in by spinning on
//! `test_wait`/`try_wait` with the token its arrival returned:
//!
//! ```text
//! let token = unsafe { mbarrier_arrive(&mut bar[0]) };
//! while !unsafe { mbarrier_test_wait(&mut bar[0], token) } {}
//! ```
//!
//! On the host the barrier word is the same state the CPU backend keeps
//! ([`ptx_abi::mbarrier`]), changed atomically; a bulk copy happens at once and completes its
//! bytes on the barrier.

use ptx_abi::mbarrier as state;
use ptx_macros::__device_api as device_api;
use std::sync::atomic::{AtomicU64, Ordering};

/// The barrier word, changed by `f` atomically; returns the state before.
///
/// # Safety
/// `bar` is a live, 8-byte aligned `u64`.
unsafe fn update(bar: *mut u64, f: impl Fn(u64) -> u64) -> u64 {
    // SAFETY: the caller's promise.
    let a = unsafe { AtomicU64::from_ptr(bar) };
    match a.fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| Some(f(s))) {
        Ok(s) | Err(s) => s,
    }
}

/// # Safety
/// As for [`update`].
unsafe fn read(bar: *mut u64) -> u64 {
    // SAFETY: the caller's promise.
    let s = unsafe { AtomicU64::from_ptr(bar) }.load(Ordering::Acquire);
    std::thread::yield_now();
    s
}

/// Initialises the barrier for `count` arrivals per phase (1 to 2^20 - 1), phase 0
/// (`mbarrier.init`). One thread initialises it, then a [`sync_threads`](super::sync_threads)
/// publishes it.
///
/// # Safety
/// `bar` is an 8-byte aligned `u64` of shared memory that no other thread uses meanwhile.
#[device_api]
#[inline]
pub unsafe fn mbarrier_init(bar: *mut u64, count: u32) {
    // SAFETY: the caller's promise.
    unsafe { update(bar, |_| state::init(count)) };
}

/// Arrives on the barrier (`mbarrier.arrive`): returns the token to wait with.
///
/// # Safety
/// `bar` is an initialised barrier.
#[device_api]
#[inline]
pub unsafe fn mbarrier_arrive(bar: *mut u64) -> u64 {
    // SAFETY: the caller's promise.
    unsafe { update(bar, |s| state::arrive(s, 1, false)) }
}

/// Arrives and leaves: later phases expect one arrival fewer (`mbarrier.arrive_drop`).
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[device_api]
#[inline]
pub unsafe fn mbarrier_arrive_drop(bar: *mut u64) -> u64 {
    // SAFETY: the caller's promise.
    unsafe { update(bar, |s| state::arrive(s, 1, true)) }
}

/// Whether the phase `token` was taken in has completed (`mbarrier.test_wait`: never blocks).
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[device_api]
#[inline]
pub unsafe fn mbarrier_test_wait(bar: *mut u64, token: u64) -> bool {
    // SAFETY: the caller's promise.
    state::phase_done(unsafe { read(bar) }, token)
}

/// [`mbarrier_test_wait`] that may wait a while for the phase before answering (sm_90,
/// `mbarrier.try_wait`).
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[device_api]
#[inline]
pub unsafe fn mbarrier_try_wait(bar: *mut u64, token: u64) -> bool {
    // SAFETY: the caller's promise.
    state::phase_done(unsafe { read(bar) }, token)
}

/// Whether the phase of parity `parity` (0 or 1) has completed (sm_90,
/// `mbarrier.try_wait.parity`): a consumer that counts its phases needs no token.
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[device_api]
#[inline]
pub unsafe fn mbarrier_try_wait_parity(bar: *mut u64, parity: u32) -> bool {
    // SAFETY: the caller's promise.
    state::parity_done(unsafe { read(bar) }, parity)
}

/// Invalidates the barrier so its memory may be used for something else (`mbarrier.inval`).
///
/// # Safety
/// No thread uses the barrier afterwards (until it is initialised again).
#[device_api]
#[inline]
pub unsafe fn mbarrier_inval(bar: *mut u64) {
    // SAFETY: the caller's promise.
    unsafe { update(bar, |_| 0) };
}

/// The current phase also waits for `bytes` transaction bytes (sm_90, `mbarrier.expect_tx`).
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[device_api]
#[inline]
pub unsafe fn mbarrier_expect_tx(bar: *mut u64, bytes: u32) {
    // SAFETY: the caller's promise.
    unsafe { update(bar, |s| state::expect_tx(s, bytes)) };
}

/// [`mbarrier_expect_tx`] then [`mbarrier_arrive`], as one operation (sm_90,
/// `mbarrier.arrive.expect_tx`).
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[device_api]
#[inline]
pub unsafe fn mbarrier_arrive_expect_tx(bar: *mut u64, bytes: u32) -> u64 {
    // SAFETY: the caller's promise.
    unsafe { update(bar, |s| state::arrive(state::expect_tx(s, bytes), 1, false)) }
}

/// Copies `src` (global memory, a bounds-checked slice such as `&x[a..b]`) to shared memory
/// at `dst` in bulk, completing `src.len() * size_of::<T>()` transaction bytes on `bar` when
/// it has landed (sm_90, `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`).
/// The byte count and both addresses are multiples of 16. One thread issues it; the phase's
/// expected bytes come from [`mbarrier_arrive_expect_tx`] or [`mbarrier_expect_tx`].
///
/// # Safety
/// `dst` is shared memory with room for `src.len()` elements, 16-byte aligned, not read
/// before the barrier's phase completes; `bar` is an initialised barrier.
#[device_api]
#[inline]
pub unsafe fn memcpy_async_bulk<T: Copy>(dst: *mut T, src: &[T], bar: *mut u64) {
    let bytes = std::mem::size_of_val(src) as u32;
    // SAFETY: the caller's promise.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len());
        update(bar, |s| state::complete_tx(s, bytes));
    }
}
