//! Typed device memory: [`DeviceBuffer`] owns an allocation; [`DeviceSlice`] and
//! [`DeviceSliceMut`] view part of one.
//!
//! Elements are `DeviceRepr` types, laid out as the ABI says (which rustc's layout is checked
//! to match). Uploads serialise each element with `DeviceRepr::write_bytes`, so padding bytes
//! are zeros rather than whatever the host had there.

use crate::backend::MemoryImpl;
use crate::error::{Error, Result};
use crate::pinned::{PinnedSlice, PinnedSliceMut};
use crate::range::bounds;
use crate::repr::DeviceRepr;
use crate::stream::Stream;
use std::fmt;
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

/// An allocation of `len` elements of `T` in device memory.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::{Device, DeviceBuffer};
/// let stream = Device::cpu().stream();
/// let mut buf = DeviceBuffer::from_slice(&stream, &[1.0f32, 2.0, 3.0, 4.0])?;
/// buf.slice_mut(1..3)?.copy_from_slice(&[20.0, 30.0])?;
/// assert_eq!(buf.to_vec()?, [1.0, 20.0, 30.0, 4.0]);
/// assert_eq!(buf.slice(2..)?.to_vec()?, [30.0, 4.0]);
/// # Ok(())
/// # }
/// ```
pub struct DeviceBuffer<T: DeviceRepr> {
    pub(crate) mem: Box<dyn MemoryImpl>,
    len: usize,
    /// Alive while the buffer is: a graph that captured a use of the buffer holds a `Weak` and
    /// refuses to replay once the buffer is gone.
    pub(crate) alive: Arc<()>,
    _elem: PhantomData<T>,
}

fn elem_size<T: DeviceRepr>() -> usize {
    T::LAYOUT.size
}

/// `Err` when an element read back is not a value of `T` (`DeviceRepr::is_valid`): device code
/// can leave any bytes in a buffer, and a Rust value must be valid.
fn check_valid<T: DeviceRepr>(bytes: &[u8]) -> Result<()> {
    let size = elem_size::<T>();
    if size == 0 {
        return Ok(());
    }
    match bytes.chunks_exact(size).position(|e| !T::is_valid(e)) {
        None => Ok(()),
        Some(i) => Err(Error::InvalidBuffer {
            reason: format!("element {i} holds bytes {:02x?} that are no value of `{}` (an enum discriminant no variant has, or a `bool` other than 0 or 1)", &bytes[i * size..(i + 1) * size], std::any::type_name::<T>()),
        }),
    }
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    /// `len` zeroed elements.
    pub fn zeroed(stream: &Stream, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len.checked_mul(elem_size::<T>()).ok_or(Error::OutOfMemory { requested: usize::MAX })?;
        // A zero-byte allocation is invalid in CUDA; keep one byte so every buffer has an address.
        let alloc = bytes.max(1);
        let mem = stream.inner.alloc_zeroed(alloc).map_err(|e| match e {
            Error::OutOfMemory { .. } => Error::OutOfMemory { requested: bytes },
            other => other,
        })?;
        Ok(DeviceBuffer { mem, len, alive: Arc::new(()), _elem: PhantomData })
    }

    /// `len` elements with no initial contents, as `cudaMalloc` gives them: on CUDA whatever
    /// the memory held, on the CPU backend zeros that initcheck
    /// ([`Device::set_sanitizers`](crate::Device::set_sanitizers)) treats as never written, so
    /// a kernel reading one before anything wrote it is reported.
    pub fn uninit(stream: &Stream, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len.checked_mul(elem_size::<T>()).ok_or(Error::OutOfMemory { requested: usize::MAX })?;
        let mem = stream.inner.alloc_uninit(bytes.max(1)).map_err(|e| match e {
            Error::OutOfMemory { .. } => Error::OutOfMemory { requested: bytes },
            other => other,
        })?;
        Ok(DeviceBuffer { mem, len, alive: Arc::new(()), _elem: PhantomData })
    }

    /// A copy of this buffer on `stream`'s device (this one or another).
    pub fn to_device(&self, stream: &Stream) -> Result<DeviceBuffer<T>> {
        let mut copy = DeviceBuffer::zeroed(stream, self.len)?;
        copy.as_slice_mut().copy_from_device(&self.as_slice())?;
        Ok(copy)
    }

    /// A copy of `data` in device memory.
    pub fn from_slice(stream: &Stream, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buf = DeviceBuffer::zeroed(stream, data.len())?;
        buf.copy_from_slice(data)?;
        Ok(buf)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies `data` (exactly `len()` elements) into the buffer.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        self.as_slice_mut().copy_from_slice(data)
    }

    /// Copies the buffer into `out` (exactly `len()` elements), waiting for queued work.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        self.as_slice().copy_to_slice(out)
    }

    /// The contents, after everything queued before has finished.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// Enqueues a copy of `src` (exactly `len()` elements of pinned memory) into the buffer on
    /// `stream` (see [`DeviceSliceMut::copy_from_pinned_async`]).
    pub fn copy_from_pinned_async<'p>(&mut self, src: impl Into<PinnedSlice<'p, T>>, stream: &Stream) -> Result<()> {
        self.as_slice_mut().copy_from_pinned_async(src, stream)
    }

    /// Enqueues a copy of the buffer into `dst` (exactly `len()` elements of pinned memory) on
    /// `stream` (see [`DeviceSlice::copy_to_pinned_async`]).
    pub fn copy_to_pinned_async<'p>(&self, dst: impl Into<PinnedSliceMut<'p, T>>, stream: &Stream) -> Result<()> {
        self.as_slice().copy_to_pinned_async(dst, stream)
    }

    /// A view of the whole buffer.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { buf: self, start: 0, len: self.len }
    }

    /// A mutable view of the whole buffer.
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        let len = self.len;
        DeviceSliceMut { buf: self, start: 0, len }
    }

    /// A view of `range`; `Err` when it is out of bounds.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        self.as_slice().into_slice(range)
    }

    /// A mutable view of `range`; `Err` when it is out of bounds.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        self.as_slice_mut().into_slice_mut(range)
    }

    /// The device address of the first element (for kernels taking raw pointers).
    pub fn device_address(&self) -> u64 {
        self.mem.address()
    }

    pub(crate) fn write_bytes(&mut self, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        self.mem.write(byte_offset, bytes)
    }

    pub(crate) fn read_bytes(&self, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        self.mem.read(byte_offset, out)
    }

    /// Whether this buffer lives on the stream's device.
    pub(crate) fn on_device_of(&self, stream: &Stream) -> bool {
        self.mem.device() == stream.inner.device().id()
    }
}

impl<T: DeviceRepr> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.len)
    }
}

fn check_len(what: &str, expected: usize, got: usize) -> Result<()> {
    if expected != got {
        return Err(Error::InvalidBuffer { reason: format!("{what}: the device view has {expected} elements, the host slice {got}") });
    }
    Ok(())
}

/// A view of elements `start..start + len` of a [`DeviceBuffer`].
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T: DeviceRepr> {
    pub(crate) buf: &'a DeviceBuffer<T>,
    pub(crate) start: usize,
    len: usize,
}

/// A mutable view of elements `start..start + len` of a [`DeviceBuffer`].
pub struct DeviceSliceMut<'a, T: DeviceRepr> {
    pub(crate) buf: &'a mut DeviceBuffer<T>,
    pub(crate) start: usize,
    len: usize,
}

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A narrower view; `range` is relative to this view.
    pub fn into_slice(self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'a, T>> {
        let (start, len) = bounds(range, self.len)?;
        Ok(DeviceSlice { buf: self.buf, start: self.start + start, len })
    }

    /// Copies the view into `out` (exactly `len()` elements), waiting for queued work. A type
    /// without padding ([`DeviceRepr::NO_PADDING`]) is copied straight into `out`; others are
    /// staged through bytes.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        check_len("copy_to_slice", self.len, out.len())?;
        let size = elem_size::<T>();
        if let Some(bytes) = as_bytes_mut(out) {
            return self.buf.read_bytes(self.start * size, bytes);
        }
        let mut bytes = vec![0u8; self.len * size];
        self.buf.read_bytes(self.start * size, &mut bytes)?;
        check_valid::<T>(&bytes)?;
        for (i, slot) in out.iter_mut().enumerate() {
            // SAFETY: `bytes` holds `len` elements laid out as T (the ABI layout, checked equal to
            // rustc's), each a valid T (`check_valid`).
            *slot = unsafe { std::ptr::read_unaligned(bytes.as_ptr().add(i * size) as *const T) };
        }
        Ok(())
    }

    pub fn to_vec(&self) -> Result<Vec<T>> {
        let size = elem_size::<T>();
        if T::NO_PADDING && cfg!(target_endian = "little") {
            let mut out: Vec<T> = Vec::with_capacity(self.len);
            let spare = out.spare_capacity_mut();
            // SAFETY: the spare capacity holds `len` elements; zeroing makes its bytes
            // initialised, so they may be viewed as `u8` and overwritten by the read.
            let bytes = unsafe {
                std::ptr::write_bytes(spare.as_mut_ptr(), 0, self.len);
                std::slice::from_raw_parts_mut(spare.as_mut_ptr() as *mut u8, self.len * size)
            };
            self.buf.read_bytes(self.start * size, bytes)?;
            // SAFETY: the read filled all `len` elements with values of T (the device writes
            // only values of T, as in the staged path).
            unsafe { out.set_len(self.len) };
            return Ok(out);
        }
        let mut bytes = vec![0u8; self.len * size];
        self.buf.read_bytes(self.start * size, &mut bytes)?;
        check_valid::<T>(&bytes)?;
        // SAFETY: as in `copy_to_slice`.
        Ok((0..self.len).map(|i| unsafe { std::ptr::read_unaligned(bytes.as_ptr().add(i * size) as *const T) }).collect())
    }

    /// Enqueues a copy of the view into `dst` (a whole [`PinnedBuffer`](crate::PinnedBuffer)
    /// as `&mut buffer`, or [`slice_mut`](crate::PinnedBuffer::slice_mut) of one; the same
    /// number of elements) on `stream`, after the work queued there before; it may still run
    /// when this returns (CUDA's `cudaMemcpyAsync`, device to host). The pinned buffer waits
    /// for it before the host reads it (see [`pinned`](crate::PinnedBuffer)).
    pub fn copy_to_pinned_async<'p>(&self, dst: impl Into<PinnedSliceMut<'p, T>>, stream: &Stream) -> Result<()> {
        let dst = dst.into();
        let (offset, bytes) = dst.buf.byte_range(dst.start, dst.len, "copy_to_pinned_async", self.len)?;
        if !self.buf.on_device_of(stream) {
            return Err(Error::InvalidBuffer { reason: "copy_to_pinned_async: the device buffer lives on a different device than the stream".into() });
        }
        if bytes == 0 {
            return Ok(());
        }
        let shared = &dst.buf.shared;
        let capturing = stream.note_capture((shared, true), &self.buf.alive);
        if !capturing {
            shared.order_before(&stream.inner)?;
        }
        stream.inner.copy_dtoh_async(&*self.buf.mem, self.start * elem_size::<T>(), &shared.mem, offset, bytes)?;
        if !capturing {
            shared.record(&stream.inner)?;
        }
        Ok(())
    }

    /// The device address of the view's first element.
    pub fn device_address(&self) -> u64 {
        self.buf.device_address() + (self.start * elem_size::<T>()) as u64
    }
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A narrower mutable view; `range` is relative to this view.
    pub fn into_slice_mut(self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'a, T>> {
        let (start, len) = bounds(range, self.len)?;
        Ok(DeviceSliceMut { buf: self.buf, start: self.start + start, len })
    }

    /// A shared view of the same elements.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { buf: self.buf, start: self.start, len: self.len }
    }

    /// A shorter-lived mutable view of the same elements.
    pub fn reborrow(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut { buf: self.buf, start: self.start, len: self.len }
    }

    /// Copies `data` (exactly `len()` elements) into the view. A type without padding
    /// ([`DeviceRepr::NO_PADDING`]) is copied straight from `data`; others are serialised
    /// first, with zeroed padding.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        check_len("copy_from_slice", self.len, data.len())?;
        let size = elem_size::<T>();
        if let Some(bytes) = as_bytes(data) {
            return self.buf.write_bytes(self.start * size, bytes);
        }
        let mut bytes = vec![0u8; data.len() * size];
        for (i, v) in data.iter().enumerate() {
            v.write_bytes(&mut bytes[i * size..(i + 1) * size]);
        }
        self.buf.write_bytes(self.start * size, &bytes)
    }

    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        self.as_slice().copy_to_slice(out)
    }

    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// Enqueues a copy of `src` (a whole [`PinnedBuffer`](crate::PinnedBuffer) as `&buffer`,
    /// or [`slice`](crate::PinnedBuffer::slice) of one; the same number of elements) into this
    /// view on `stream`, after the work queued there before; it may still run when this returns
    /// (CUDA's `cudaMemcpyAsync`, host to device), and overlaps kernels on other streams. The
    /// pinned buffer waits for it before the host writes it.
    pub fn copy_from_pinned_async<'p>(&mut self, src: impl Into<PinnedSlice<'p, T>>, stream: &Stream) -> Result<()> {
        let src = src.into();
        let (src_offset, bytes) = src.buf.byte_range(src.start, src.len, "copy_from_pinned_async", self.len)?;
        if !self.buf.on_device_of(stream) {
            return Err(Error::InvalidBuffer { reason: "copy_from_pinned_async: the device buffer lives on a different device than the stream".into() });
        }
        if bytes == 0 {
            return Ok(());
        }
        let shared = &src.buf.shared;
        let capturing = stream.note_capture((shared, false), &self.buf.alive);
        if !capturing {
            shared.order_before(&stream.inner)?;
        }
        let offset = self.start * elem_size::<T>();
        stream.inner.copy_htod_async(&shared.mem, src_offset, &mut *self.buf.mem, offset, bytes)?;
        if !capturing {
            shared.record(&stream.inner)?;
        }
        Ok(())
    }

    /// Copies `src` (exactly `len()` elements) into this view, on the same device or from
    /// another: device to device where the backend can (same device; CUDA peers, as
    /// `cudaMemcpyPeer`), else through the host.
    pub fn copy_from_device(&mut self, src: &DeviceSlice<'_, T>) -> Result<()> {
        check_len("copy_from_device", self.len, src.len())?;
        let size = elem_size::<T>();
        let (offset, src_offset, bytes) = (self.start * size, src.start * size, self.len * size);
        if bytes == 0 || self.buf.mem.copy_from(offset, &*src.buf.mem, src_offset, bytes)? {
            return Ok(());
        }
        let mut staged = vec![0u8; bytes];
        src.buf.read_bytes(src_offset, &mut staged)?;
        self.buf.write_bytes(offset, &staged)
    }
}

/// `data` as its bytes, where those are exactly the device's: a type without padding, on a
/// little-endian host (every host CUDA supports).
fn as_bytes<T: DeviceRepr>(data: &[T]) -> Option<&[u8]> {
    if !(T::NO_PADDING && cfg!(target_endian = "little")) {
        return None;
    }
    // SAFETY: every byte of a padding-free T is initialised; the length is the slice's size.
    Some(unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) })
}

/// `out` as bytes to overwrite, where the device's bytes of T are T's (as [`as_bytes`]).
fn as_bytes_mut<T: DeviceRepr>(out: &mut [T]) -> Option<&mut [u8]> {
    if !(T::NO_PADDING && cfg!(target_endian = "little")) {
        return None;
    }
    // SAFETY: as in `as_bytes`; the device writes only values of T into them (the assumption
    // the staged path makes too).
    Some(unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, std::mem::size_of_val(out)) })
}
