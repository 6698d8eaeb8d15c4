//! Page-locked ("pinned") host memory and the asynchronous copies it allows.
//!
//! A copy between device memory and ordinary host memory makes the host wait: the driver stages
//! pageable memory through a pinned bounce buffer. From a [`PinnedBuffer`] the GPU copies by
//! DMA while the host goes on, so copies on one stream overlap kernels on another
//! (`cudaMemcpyAsync` from `cudaHostAlloc`ed memory).
//!
//! The rules that keep it safe are on [`PinnedBuffer`].

pub(crate) use crate::pinned_shared::PinnedShared;
use crate::devices::Device;
use crate::error::{Error, Result};
use crate::repr::DeviceRepr;
use std::fmt;
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, RwLockReadGuard, RwLockWriteGuard};

/// `len` elements of `T` in page-locked host memory: the source and target of asynchronous
/// copies ([`DeviceSliceMut::copy_from_pinned_async`](crate::DeviceSliceMut::copy_from_pinned_async),
/// [`DeviceSlice::copy_to_pinned_async`](crate::DeviceSlice::copy_to_pinned_async)). The host
/// reaches the elements through methods that first wait for the copies still using them.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::{Device, DeviceBuffer, PinnedBuffer};
/// let device = Device::cpu();
/// let stream = device.new_stream()?;
/// let mut host = PinnedBuffer::from_slice(&device, &[1.0f32, 2.0, 3.0])?;
/// let mut dev = DeviceBuffer::<f32>::zeroed(&stream, 3)?;
/// dev.copy_from_pinned_async(&host, &stream)?; // returns at once on a GPU
/// host.as_mut_slice()?[0] = 9.0; // waits for the copy first
/// dev.copy_to_pinned_async(&mut host, &stream)?;
/// assert_eq!(*host.as_slice()?, [1.0, 2.0, 3.0]); // waits for the copy back
/// # Ok(())
/// # }
/// ```
///
/// # Safety of asynchronous copies
///
/// An asynchronous copy reads or writes the pinned memory *after* the call that enqueued it
/// returns, so the host must not touch that memory until the copy has finished. The buffer
/// enforces this itself instead of trusting a borrow: every asynchronous copy (and every graph
/// replay that copies) records an event after itself in the buffer, and every host access —
/// [`as_slice`](PinnedBuffer::as_slice), [`as_mut_slice`](PinnedBuffer::as_mut_slice),
/// [`to_vec`](PinnedBuffer::to_vec), dropping the buffer — first waits for those events. So the
/// host never sees memory a copy is still using, whatever the program does with its borrows
/// (`mem::forget` included: a forgotten buffer is only leaked). A copy enqueued on another
/// stream waits, on the device, for the copies still pending on the buffer, so two copies never
/// race on it either. A graph replay uses the buffer without borrowing it, so the host's
/// borrows ([`PinnedRef`], [`PinnedMut`]) hold a lock that a replay checks: while one is alive,
/// a replay that copies from or to the buffer is refused with an `Err`. The cost of the rule:
/// touching the buffer from the host is a wait.
///
/// Element types must have no padding ([`DeviceRepr::NO_PADDING`]): the copies move bytes as
/// they are, and a padding byte is not a value the host may read. That is checked when the
/// program is compiled.
///
/// On the CPU backend the memory is ordinary aligned host memory and every copy has finished
/// when its call returns (the CPU backend runs each stream's work in order as it is issued).
///
/// A type with padding cannot be pinned (its padding bytes would be copied as values):
///
/// ```compile_fail
/// use ptx_runtime::{Device, DeviceRepr, PinnedBuffer};
/// #[derive(Clone, Copy, DeviceRepr)]
/// #[repr(C)]
/// pub struct Padded { pub flag: u8, pub value: f64 }
/// let _ = PinnedBuffer::<Padded>::zeroed(&Device::cpu(), 4);
/// ```
pub struct PinnedBuffer<T: DeviceRepr> {
    pub(crate) shared: Arc<PinnedShared>,
    len: usize,
    _elem: PhantomData<T>,
}

// SAFETY: the memory is owned by the buffer (like a `Vec<T>`) and reached only through `&self` /
// `&mut self` methods that wait for the device's copies first.
unsafe impl<T: DeviceRepr + Send> Send for PinnedBuffer<T> {}
unsafe impl<T: DeviceRepr + Sync> Sync for PinnedBuffer<T> {}

impl<T: DeviceRepr> PinnedBuffer<T> {
    const BYTES_ARE_VALUES: () = assert!(
        T::NO_PADDING,
        "PinnedBuffer<T>: T has padding bytes (DeviceRepr::NO_PADDING is false); asynchronous copies move bytes as they are, so give the padding an explicit field"
    );

    /// `len` zeroed elements of page-locked memory, allocated through `device` (on CUDA,
    /// `cuMemHostAlloc` with `CU_MEMHOSTALLOC_PORTABLE`: every device's streams may use it).
    /// `Err(OutOfHostMemory)` where the host cannot provide that much.
    pub fn zeroed(device: &Device, len: usize) -> Result<PinnedBuffer<T>> {
        let () = Self::BYTES_ARE_VALUES;
        let bytes = len.checked_mul(T::LAYOUT.size).ok_or(Error::OutOfHostMemory { requested: usize::MAX, available: None })?;
        let mem = device.inner.alloc_pinned(bytes.max(1))?;
        Ok(PinnedBuffer { shared: Arc::new(PinnedShared::new(mem)), len, _elem: PhantomData })
    }

    /// A pinned copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<PinnedBuffer<T>> {
        let mut buf = PinnedBuffer::zeroed(device, data.len())?;
        buf.as_mut_slice()?.copy_from_slice(data);
        Ok(buf)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Waits until no asynchronous copy uses the buffer; reports a failed one.
    pub fn synchronize(&self) -> Result<()> {
        self.shared.wait()
    }

    /// The elements, once the copies using the buffer have finished. While the returned
    /// borrow lives, a graph replay that writes the buffer is refused (`Err`), and copies into
    /// it cannot be enqueued (they need `&mut`).
    pub fn as_slice(&self) -> Result<PinnedRef<'_, T>> {
        let guard = self.shared.host.read().unwrap_or_else(|e| e.into_inner());
        self.shared.wait()?;
        // SAFETY: the allocation holds `len` elements of T, aligned (page-aligned on CUDA,
        // 256-byte aligned on the CPU backend), initialised (zeroed, then written only with
        // values of T or by copies of a padding-free T's bytes); no copy that writes it is
        // pending, and none can start while the guard is held.
        let slice = unsafe { std::slice::from_raw_parts(self.shared.mem.as_ptr() as *const T, self.len) };
        Ok(PinnedRef { _guard: guard, slice })
    }

    /// The elements, mutably, once the copies using the buffer have finished. While the
    /// returned borrow lives, a graph replay that copies from or to the buffer is refused.
    pub fn as_mut_slice(&mut self) -> Result<PinnedMut<'_, T>> {
        let guard = self.shared.host.write().unwrap_or_else(|e| e.into_inner());
        self.shared.wait()?;
        // SAFETY: as in `as_slice`; `&mut self` and the write guard exclude every other
        // access, from the host or a copy.
        let slice = unsafe { std::slice::from_raw_parts_mut(self.shared.mem.as_ptr() as *mut T, self.len) };
        Ok(PinnedMut { _guard: guard, slice })
    }

    /// A copy of the elements, once the copies using the buffer have finished.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// The byte range of elements `start..start + len` (in bounds), checked against the
    /// device view's length.
    pub(crate) fn byte_range(&self, start: usize, len: usize, what: &str, device_len: usize) -> Result<(usize, usize)> {
        if len != device_len {
            return Err(Error::InvalidBuffer { reason: format!("{what}: the device view has {device_len} elements, the pinned range {len}") });
        }
        Ok((start * T::LAYOUT.size, len * T::LAYOUT.size))
    }

    /// Elements `range` as the source of an asynchronous copy; `Err` when out of bounds.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<PinnedSlice<'_, T>> {
        let (start, len) = crate::range::bounds(range, self.len)?;
        Ok(PinnedSlice { buf: self, start, len })
    }

    /// Elements `range` as the target of an asynchronous copy; `Err` when out of bounds.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<PinnedSliceMut<'_, T>> {
        let (start, len) = crate::range::bounds(range, self.len)?;
        Ok(PinnedSliceMut { buf: self, start, len })
    }
}

/// Elements of a [`PinnedBuffer`] that an asynchronous copy reads (`&buffer` is all of them).
#[derive(Clone, Copy)]
pub struct PinnedSlice<'a, T: DeviceRepr> {
    pub(crate) buf: &'a PinnedBuffer<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

/// Elements of a [`PinnedBuffer`] that an asynchronous copy writes (`&mut buffer` is all of
/// them).
pub struct PinnedSliceMut<'a, T: DeviceRepr> {
    pub(crate) buf: &'a mut PinnedBuffer<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<'a, T: DeviceRepr> From<&'a PinnedBuffer<T>> for PinnedSlice<'a, T> {
    fn from(buf: &'a PinnedBuffer<T>) -> Self {
        PinnedSlice { buf, start: 0, len: buf.len }
    }
}

impl<'a, T: DeviceRepr> From<&'a mut PinnedBuffer<T>> for PinnedSliceMut<'a, T> {
    fn from(buf: &'a mut PinnedBuffer<T>) -> Self {
        let len = buf.len;
        PinnedSliceMut { buf, start: 0, len }
    }
}

impl<T: DeviceRepr> PinnedSlice<'_, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: DeviceRepr> PinnedSliceMut<'_, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: DeviceRepr> Drop for PinnedBuffer<T> {
    /// Waits for the copies still using the memory before it is freed (a graph that copies
    /// from or to it keeps the memory itself alive).
    fn drop(&mut self) {
        let _ = self.shared.wait();
    }
}

impl<T: DeviceRepr> fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PinnedBuffer<{}>[{}]", std::any::type_name::<T>(), self.len)
    }
}

/// The host's shared borrow of a [`PinnedBuffer`]'s elements (see [`PinnedBuffer::as_slice`]).
pub struct PinnedRef<'a, T> {
    _guard: RwLockReadGuard<'a, ()>,
    slice: &'a [T],
}

/// The host's exclusive borrow of a [`PinnedBuffer`]'s elements (see
/// [`PinnedBuffer::as_mut_slice`]).
pub struct PinnedMut<'a, T> {
    _guard: RwLockWriteGuard<'a, ()>,
    slice: &'a mut [T],
}

impl<T> Deref for PinnedRef<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T> Deref for PinnedMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T> DerefMut for PinnedMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.slice
    }
}

impl<T: fmt::Debug> fmt::Debug for PinnedRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.slice.fmt(f)
    }
}

impl<T: fmt::Debug> fmt::Debug for PinnedMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.slice.fmt(f)
    }
}
