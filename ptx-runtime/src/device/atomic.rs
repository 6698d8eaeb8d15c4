//! Atomic operations and fences on global and shared memory, with a memory order and a scope
//! (PTX Interoperability, chapter 4).
//!
//! ```
//! use core::sync::atomic::Ordering;
//! use ptx_runtime::device::atomic::{self, Scope};
//! use ptx_runtime::device::*;
//! use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};
//!
//! // A histogram: many threads add to the same bins.
//! #[kernel]
//! pub fn histogram(x: &[u32], bins: &mut [u32]) {
//!     let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
//!     if i < x.len() {
//!         let b = x[i] as usize % bins.len();
//!         unsafe { atomic::fetch_add(&mut bins[b], 1u32, Ordering::Relaxed, Scope::Device) };
//!     }
//! }
//!
//! fn main() -> ptx_runtime::Result<()> {
//!     let stream = Device::cpu().stream();
//!     let x: Vec<u32> = (0..1000).collect();
//!     let xs = DeviceBuffer::from_slice(&stream, &x)?;
//!     let mut bins = DeviceBuffer::<u32>::zeroed(&stream, 10)?;
//!     histogram::launch(&stream, LaunchConfig::for_num_elems(1000), &xs, &mut bins)?;
//!     assert_eq!(bins.to_vec()?, [100; 10]);
//!     Ok(())
//! }
//! ```
//!
//! Message passing publishes data, then a flag with `Release`; the reader loads the flag with
//! `Acquire` and then sees the data:
//!
//! ```text
//! data[i] = x;
//! unsafe { atomic::store(flag, 1u32, Ordering::Release, Scope::Device) };
//! while unsafe { atomic::load(flag, Ordering::Acquire, Scope::Device) } == 0 {}
//! ```
//!
//! Every function takes the address of the element (`&mut s[i]` — bounds-checked — a raw
//! pointer, `p.add(i)`, an element of a shared array), the operands, the memory order
//! (`core::sync::atomic::Ordering`, as for Rust's atomics) and the [`Scope`]: the threads the
//! operation is atomic and ordered with respect to. Order and scope are written as constants:
//! they select the instruction.
//!
//! | operation | `Relaxed` | `Acquire` | `Release` | `AcqRel` | `SeqCst` |
//! |-----------|-----------|-----------|-----------|----------|----------|
//! | [`load`] | `ld.relaxed` | `ld.acquire` | error | error | `fence.sc; ld.acquire` |
//! | [`store`] | `st.relaxed` | error | `st.release` | error | `fence.sc; st.relaxed` |
//! | read-modify-write | `atom.relaxed` | `atom.acquire` | `atom.release` | `atom.acq_rel` | `fence.sc; atom.acquire` |
//! | [`fence`] | error | `fence.acquire`¹ | `fence.release`¹ | `fence.acq_rel` | `fence.sc` |
//!
//! each with the scope (`.cta`, `.gpu`, `.sys`) and, when known, the state space
//! (`atom.acq_rel.gpu.global.add.u32`). ¹ On targets before sm_90 (and PTX 8.6), acquire and
//! release fences are `fence.acq_rel`, which is stronger and allowed. The read-modify-writes are
//! [`swap`], [`compare_exchange`], [`fetch_add`], [`fetch_sub`], [`fetch_and`], [`fetch_or`],
//! [`fetch_xor`], [`fetch_min`], [`fetch_max`], [`fetch_inc`] and [`fetch_dec`]. 8- and 16-bit
//! read-modify-writes are compare-and-swap loops on the 32-bit word that holds the value.
//!
//! On the host the functions are the host's atomics on host memory (`AtomicU32::from_ptr` and
//! friends) with the same memory order; every scope is the whole process there.

use core::sync::atomic::{self as sync, Ordering};
use ptx_macros::__device_api as device_api;

/// Which threads an atomic operation is atomic with respect to, and a fence orders
/// (CUDA's `cuda::thread_scope_*`).
pub use ptx_abi::atomic::Scope;

mod sealed {
    pub trait Sealed {}
}

/// Types with atomic loads, stores and swaps: the integers of 8 to 64 bits, `f32` and `f64`.
pub trait Atomic: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn host_load(p: *const Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_store(p: *mut Self, v: Self, order: Ordering);
    #[doc(hidden)]
    unsafe fn host_swap(p: *mut Self, v: Self, order: Ordering) -> Self;
}

/// Types with atomic `fetch_add` and `fetch_sub`: integers (wrapping), `f32` and `f64`.
pub trait AtomicArith: Atomic {
    #[doc(hidden)]
    unsafe fn host_add(p: *mut Self, v: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_sub(p: *mut Self, v: Self, order: Ordering) -> Self;
}

/// Integer types: compare-exchange, bitwise operations, minimum and maximum.
pub trait AtomicInteger: AtomicArith + Eq {
    #[doc(hidden)]
    unsafe fn host_cas(p: *mut Self, current: Self, new: Self, success: Ordering, failure: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_and(p: *mut Self, v: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_or(p: *mut Self, v: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_xor(p: *mut Self, v: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_min(p: *mut Self, v: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn host_max(p: *mut Self, v: Self, order: Ordering) -> Self;
}

/// The order a load needs for a read-modify-write's order: what `fetch_update` takes.
fn load_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        o => o,
    }
}

macro_rules! integers {
    ($($t:ty => $a:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Atomic for $t {
            unsafe fn host_load(p: *const Self, order: Ordering) -> Self {
                <$a>::from_ptr(p as *mut $t).load(order)
            }
            unsafe fn host_store(p: *mut Self, v: Self, order: Ordering) {
                <$a>::from_ptr(p).store(v, order)
            }
            unsafe fn host_swap(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).swap(v, order)
            }
        }
        impl AtomicArith for $t {
            unsafe fn host_add(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_add(v, order)
            }
            unsafe fn host_sub(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_sub(v, order)
            }
        }
        impl AtomicInteger for $t {
            unsafe fn host_cas(p: *mut Self, current: Self, new: Self, success: Ordering, failure: Ordering) -> Self {
                match <$a>::from_ptr(p).compare_exchange(current, new, success, failure) {
                    Ok(v) | Err(v) => v,
                }
            }
            unsafe fn host_and(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_and(v, order)
            }
            unsafe fn host_or(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_or(v, order)
            }
            unsafe fn host_xor(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_xor(v, order)
            }
            unsafe fn host_min(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_min(v, order)
            }
            unsafe fn host_max(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$a>::from_ptr(p).fetch_max(v, order)
            }
        }
    )*};
}

integers!(
    i8 => sync::AtomicI8, u8 => sync::AtomicU8, i16 => sync::AtomicI16, u16 => sync::AtomicU16,
    i32 => sync::AtomicI32, u32 => sync::AtomicU32, i64 => sync::AtomicI64, u64 => sync::AtomicU64
);

macro_rules! floats {
    ($($t:ty => $a:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Atomic for $t {
            unsafe fn host_load(p: *const Self, order: Ordering) -> Self {
                <$t>::from_bits(<$a>::from_ptr(p as *mut _).load(order))
            }
            unsafe fn host_store(p: *mut Self, v: Self, order: Ordering) {
                <$a>::from_ptr(p as *mut _).store(v.to_bits(), order)
            }
            unsafe fn host_swap(p: *mut Self, v: Self, order: Ordering) -> Self {
                <$t>::from_bits(<$a>::from_ptr(p as *mut _).swap(v.to_bits(), order))
            }
        }
        impl AtomicArith for $t {
            unsafe fn host_add(p: *mut Self, v: Self, order: Ordering) -> Self {
                let a = <$a>::from_ptr(p as *mut _);
                let old = a.fetch_update(order, load_order(order), |b| Some((<$t>::from_bits(b) + v).to_bits()));
                <$t>::from_bits(old.unwrap_or_else(|b| b))
            }
            unsafe fn host_sub(p: *mut Self, v: Self, order: Ordering) -> Self {
                Self::host_add(p, -v, order)
            }
        }
    )*};
}

floats!(f32 => sync::AtomicU32, f64 => sync::AtomicU64);

/// Reads `*p` atomically (`ld.<order>.<scope>`). `order`: `Relaxed`, `Acquire` or `SeqCst`.
///
/// # Safety
/// `p` points to a live, aligned `T` that other threads access only atomically while this
/// runs (as for `AtomicU32::from_ptr`).
#[device_api(atomic_load)]
#[inline]
pub unsafe fn load<T: Atomic>(p: *const T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_load(p, order)
}

/// Writes `*p = v` atomically (`st.<order>.<scope>`). `order`: `Relaxed`, `Release` or
/// `SeqCst`.
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_store)]
#[inline]
pub unsafe fn store<T: Atomic>(p: *mut T, v: T, order: Ordering, scope: Scope) {
    let _ = scope;
    T::host_store(p, v, order)
}

/// Writes `v` to `*p` and returns the previous value (`atom.exch`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_swap)]
#[inline]
pub unsafe fn swap<T: Atomic>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_swap(p, v, order)
}

/// If `*p == current`, writes `new`; returns the previous value either way (`atom.cas`), so
/// the exchange happened exactly when the result equals `current` (CUDA's `atomicCAS`; Rust's
/// `compare_exchange` wraps the same value in `Ok`/`Err`, which the device has no layout for).
/// `failure` is the order of the read when the values differ (`Relaxed`, `Acquire` or
/// `SeqCst`); PTX has one order per instruction, the stronger of the two.
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_compare_exchange)]
#[inline]
pub unsafe fn compare_exchange<T: AtomicInteger>(p: *mut T, current: T, new: T, success: Ordering, failure: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_cas(p, current, new, success, failure)
}

/// Adds `v` to `*p` (wrapping for integers; IEEE addition for floats) and returns the previous
/// value (`atom.add`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_add)]
#[inline]
pub unsafe fn fetch_add<T: AtomicArith>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_add(p, v, order)
}

/// Subtracts `v` from `*p` and returns the previous value (`atom.add` of `-v`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_sub)]
#[inline]
pub unsafe fn fetch_sub<T: AtomicArith>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_sub(p, v, order)
}

/// `*p &= v`, returning the previous value (`atom.and`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_and)]
#[inline]
pub unsafe fn fetch_and<T: AtomicInteger>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_and(p, v, order)
}

/// `*p |= v`, returning the previous value (`atom.or`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_or)]
#[inline]
pub unsafe fn fetch_or<T: AtomicInteger>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_or(p, v, order)
}

/// `*p ^= v`, returning the previous value (`atom.xor`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_xor)]
#[inline]
pub unsafe fn fetch_xor<T: AtomicInteger>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_xor(p, v, order)
}

/// `*p = min(*p, v)`, returning the previous value (`atom.min`, signed or unsigned by `T`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_min)]
#[inline]
pub unsafe fn fetch_min<T: AtomicInteger>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_min(p, v, order)
}

/// `*p = max(*p, v)`, returning the previous value (`atom.max`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_max)]
#[inline]
pub unsafe fn fetch_max<T: AtomicInteger>(p: *mut T, v: T, order: Ordering, scope: Scope) -> T {
    let _ = scope;
    T::host_max(p, v, order)
}

/// A wrapping increment: `*p = if *p >= bound { 0 } else { *p + 1 }`, returning the previous
/// value (`atom.inc.u32`, CUDA's `atomicInc`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_inc)]
#[inline]
pub unsafe fn fetch_inc(p: *mut u32, bound: u32, order: Ordering, scope: Scope) -> u32 {
    let _ = scope;
    let a = sync::AtomicU32::from_ptr(p);
    match a.fetch_update(order, load_order(order), |old| Some(if old >= bound { 0 } else { old + 1 })) {
        Ok(v) | Err(v) => v,
    }
}

/// A wrapping decrement: `*p = if *p == 0 || *p > bound { bound } else { *p - 1 }`, returning
/// the previous value (`atom.dec.u32`, CUDA's `atomicDec`).
///
/// # Safety
/// As for [`load`].
#[device_api(atomic_fetch_dec)]
#[inline]
pub unsafe fn fetch_dec(p: *mut u32, bound: u32, order: Ordering, scope: Scope) -> u32 {
    let _ = scope;
    let a = sync::AtomicU32::from_ptr(p);
    match a.fetch_update(order, load_order(order), |old| Some(if old == 0 || old > bound { bound } else { old - 1 })) {
        Ok(v) | Err(v) => v,
    }
}

/// A memory fence (`fence.<order>.<scope>`): `Acquire`, `Release`, `AcqRel` or `SeqCst`.
#[device_api(atomic_fence)]
#[inline]
pub fn fence(order: Ordering, scope: Scope) {
    let _ = scope;
    sync::fence(order)
}
