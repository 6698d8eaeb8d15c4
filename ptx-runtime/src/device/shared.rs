//! Shared memory: per-block arrays (`__shared__ T a[N]`) and dynamic shared memory sized at
//! launch (`extern __shared__ T a[]`).
//!
//! ```
//! use ptx_runtime::device::*;
//! use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};
//!
//! /// Reverses each block's 256 elements through a static shared array.
//! #[kernel]
//! pub fn reverse(x: &[f32], y: &mut [f32]) {
//!     let mut tile = unsafe { shared_array::<f32, 256>() };   // __shared__ float tile[256];
//!     let (t, base) = (thread_idx_x() as usize, block_idx_x() as usize * 256);
//!     tile[t] = x[base + t];
//!     sync_threads();
//!     y[base + t] = tile[255 - t];
//! }
//!
//! /// The same for any block size, with shared memory sized at launch.
//! #[kernel]
//! pub fn reverse_dyn(x: &[f32], y: &mut [f32]) {
//!     let mut buf = unsafe { dynamic_shared::<f32>() };       // extern __shared__ float buf[];
//!     let (t, n) = (thread_idx_x() as usize, block_dim_x() as usize);
//!     let base = block_idx_x() as usize * n;
//!     buf[t] = x[base + t];
//!     sync_threads();
//!     y[base + t] = buf[n - 1 - t];
//! }
//!
//! fn main() -> ptx_runtime::Result<()> {
//!     let stream = Device::cpu().stream();
//!     let x: Vec<f32> = (0..512).map(|i| i as f32).collect();
//!     let xs = DeviceBuffer::from_slice(&stream, &x)?;
//!     let mut ys = DeviceBuffer::<f32>::zeroed(&stream, 512)?;
//!     reverse::launch(&stream, LaunchConfig::new(2, 256), &xs, &mut ys)?;
//!     let want: Vec<f32> = x.chunks(256).flat_map(|c| c.iter().rev().copied()).collect();
//!     assert_eq!(ys.to_vec()?, want);
//!     reverse_dyn::launch(&stream, LaunchConfig::new(4, 128).with_shared_bytes(128 * 4), &xs, &mut ys)?;
//!     let want: Vec<f32> = x.chunks(128).flat_map(|c| c.iter().rev().copied()).collect();
//!     assert_eq!(ys.to_vec()?, want);
//!     Ok(())
//! }
//! ```
//!
//! Each `shared_array` call site is one array per block (a `.shared` declaration), the same
//! array on every call. Indexing checks the bound (`get_unchecked` does not). The handles are
//! `Copy`; indexing through them needs a `let mut` binding, as any `IndexMut` does.

use super::host;
use ptx_macros::__device_api as device_api;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A per-block shared array of `N` elements (CUDA `__shared__ T a[N]`).
pub struct SharedArray<T, const N: usize> {
    ptr: *mut T,
    _t: PhantomData<T>,
}

impl<T, const N: usize> Clone for SharedArray<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for SharedArray<T, N> {}

/// The block's dynamic shared memory as elements of `T` (CUDA `extern __shared__ T a[]`).
pub struct SharedSlice<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for SharedSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedSlice<T> {}

/// The shared array this call site declares, one per block; zeroed on the host (undefined on
/// the device until written).
///
/// # Safety
/// Threads share it: an element written by one thread and accessed by another must have a
/// barrier ([`sync_threads`](super::sync_threads)) between the two accesses.
#[device_api]
#[track_caller]
#[inline]
pub unsafe fn shared_array<T: Copy, const N: usize>() -> SharedArray<T, N> {
    let ptr = host::static_shared(std::panic::Location::caller(), N * std::mem::size_of::<T>()) as *mut T;
    SharedArray { ptr, _t: PhantomData }
}

/// The block's dynamic shared memory (its size set at launch), as a slice of `T`.
///
/// # Safety
/// As for [`shared_array`].
#[device_api]
#[inline]
pub unsafe fn dynamic_shared<T: Copy>() -> SharedSlice<T> {
    let (ptr, bytes) = host::dynamic_shared();
    SharedSlice { ptr: ptr as *mut T, len: bytes / std::mem::size_of::<T>().max(1) }
}

impl<T, const N: usize> SharedArray<T, N> {
    pub fn len(&self) -> usize {
        N
    }

    pub fn is_empty(&self) -> bool {
        N == 0
    }

    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }

    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr
    }

    /// # Safety
    /// `i < N`.
    pub unsafe fn get_unchecked(&self, i: usize) -> &T {
        // SAFETY: in bounds by the caller's promise.
        unsafe { &*self.ptr.add(i) }
    }

    /// # Safety
    /// `i < N`.
    pub unsafe fn get_unchecked_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: in bounds by the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }
}

impl<T, const N: usize> Index<usize> for SharedArray<T, N> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        assert!(i < N, "index out of bounds: the len is {N} but the index is {i}");
        // SAFETY: in bounds; races are excluded by `shared_array`'s contract.
        unsafe { &*self.ptr.add(i) }
    }
}

impl<T, const N: usize> IndexMut<usize> for SharedArray<T, N> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < N, "index out of bounds: the len is {N} but the index is {i}");
        // SAFETY: as for `index`.
        unsafe { &mut *self.ptr.add(i) }
    }
}

impl<T> SharedSlice<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }

    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr
    }

    /// # Safety
    /// `i < self.len()`.
    pub unsafe fn get_unchecked(&self, i: usize) -> &T {
        // SAFETY: in bounds by the caller's promise.
        unsafe { &*self.ptr.add(i) }
    }

    /// # Safety
    /// `i < self.len()`.
    pub unsafe fn get_unchecked_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: in bounds by the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }
}

impl<T> Index<usize> for SharedSlice<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index out of bounds: the len is {} but the index is {i}", self.len);
        // SAFETY: in bounds; races are excluded by `dynamic_shared`'s contract.
        unsafe { &*self.ptr.add(i) }
    }
}

impl<T> IndexMut<usize> for SharedSlice<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index out of bounds: the len is {} but the index is {i}", self.len);
        // SAFETY: as for `index`.
        unsafe { &mut *self.ptr.add(i) }
    }
}
