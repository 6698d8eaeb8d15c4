//! The device heap: `malloc` and `free` on the system calls of the same names (PTX
//! Interoperability §3).
//!
//! ```
//! use ptx_runtime::device::*;
//! use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};
//!
//! #[kernel]
//! pub fn scratch(n: usize, out: &mut [f32]) {
//!     let p = malloc::<f32>(n);           // n elements from the device heap, or null when full
//!     if !p.is_null() {
//!         unsafe {
//!             *p.add(n - 1) = 1.5;
//!             out[0] = *p.add(n - 1);
//!             free(p);
//!         }
//!     }
//! }
//!
//! fn main() -> ptx_runtime::Result<()> {
//!     let stream = Device::cpu().stream();
//!     let mut out = DeviceBuffer::<f32>::zeroed(&stream, 1)?;
//!     scratch::launch(&stream, LaunchConfig::new(1, 1), 100, &mut out)?;
//!     assert_eq!(out.to_vec()?, [1.5]);
//!     Ok(())
//! }
//! ```
//!
//! The heap's size is set on the host before launching, with
//! [`Device::set_heap_size`](crate::Device::set_heap_size) (CUDA's
//! `cudaLimitMallocHeapSize`, 8 MiB by default). Blocks outlive the launch that allocated them
//! until freed, as in CUDA.

use ptx_macros::__device_api as device_api;
use std::alloc::Layout;

/// Bytes before each host block that remember its size (and keep the 16-byte alignment the
/// device heap guarantees).
const HEADER: usize = 16;

/// Allocates `count` elements of `T` from the device heap (`malloc(count * size_of::<T>())`).
/// Returns null when the heap cannot hold them. Blocks are 16-byte aligned; the memory is
/// uninitialized.
///
/// On the host the block comes from the host allocator (with the same alignment).
#[device_api]
#[inline]
pub fn malloc<T: Copy>(count: usize) -> *mut T {
    let Some(bytes) = count.checked_mul(std::mem::size_of::<T>()).and_then(|b| b.checked_add(HEADER)) else {
        return std::ptr::null_mut();
    };
    let Ok(layout) = Layout::from_size_align(bytes, HEADER) else { return std::ptr::null_mut() };
    // SAFETY: the layout has a non-zero size (the header).
    let base = unsafe { std::alloc::alloc(layout) };
    if base.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the block holds the header and is aligned for a `usize`.
    unsafe {
        (base as *mut usize).write(bytes);
        base.add(HEADER) as *mut T
    }
}

/// Returns a block [`malloc`] gave to the heap (`free(ptr)`). A null pointer is ignored.
///
/// # Safety
/// `p` is null or a block `malloc` returned that was not freed yet (a double free faults on
/// the device: `FaultKind::InvalidFree` on the CPU backend).
#[device_api]
#[inline]
pub unsafe fn free<T>(p: *mut T) {
    if p.is_null() {
        return;
    }
    let base = (p as *mut u8).sub(HEADER);
    let bytes = (base as *const usize).read();
    std::alloc::dealloc(base, Layout::from_size_align_unchecked(bytes, HEADER));
}
