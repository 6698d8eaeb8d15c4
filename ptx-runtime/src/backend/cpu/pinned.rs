//! The CPU backend's "pinned" memory: ordinary host memory, zeroed and 256-byte aligned (as
//! `cuMemHostAlloc` gives page-aligned memory), checked against the host's physical memory.

use crate::backend::PinnedImpl;
use crate::error::{Error, Result};
use std::alloc::Layout;
use std::ptr::NonNull;

pub(crate) struct CpuPinned {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the allocation is owned, like a `Box<[u8]>`; who may touch it when is the typed
// `PinnedBuffer`'s business (it waits for the copies that use it).
unsafe impl Send for CpuPinned {}
unsafe impl Sync for CpuPinned {}

impl CpuPinned {
    pub fn new(bytes: usize) -> Result<CpuPinned> {
        crate::host_memory::check_host_memory(bytes)?;
        let too_much = || Error::OutOfHostMemory { requested: bytes, available: crate::host_memory::host_memory_bytes() };
        let layout = Layout::from_size_align(bytes.max(1), 256).map_err(|_| too_much())?;
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }).ok_or_else(too_much)?;
        Ok(CpuPinned { ptr, layout })
    }
}

impl PinnedImpl for CpuPinned {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    fn bytes(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for CpuPinned {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// `bytes` bytes of `mem` from `offset`, to read.
pub(crate) fn bytes(mem: &dyn PinnedImpl, offset: usize, bytes: usize) -> Result<&[u8]> {
    check(mem, offset, bytes)?;
    // SAFETY: in bounds, initialised (zeroed at allocation); the typed layer keeps host writes
    // away while a copy uses the memory.
    Ok(unsafe { std::slice::from_raw_parts(mem.as_ptr().add(offset), bytes) })
}

/// `bytes` bytes of `mem` from `offset`, to overwrite.
#[allow(clippy::mut_from_ref)]
pub(crate) fn bytes_mut(mem: &dyn PinnedImpl, offset: usize, bytes: usize) -> Result<&mut [u8]> {
    check(mem, offset, bytes)?;
    // SAFETY: in bounds; the typed layer gives a copy that writes the memory exclusive use of
    // it (a `&mut PinnedBuffer`, or a graph holding its write lock).
    Ok(unsafe { std::slice::from_raw_parts_mut(mem.as_ptr().add(offset), bytes) })
}

fn check(mem: &dyn PinnedImpl, offset: usize, bytes: usize) -> Result<()> {
    if offset.checked_add(bytes).is_none_or(|end| end > mem.bytes()) {
        return Err(Error::InvalidBuffer { reason: format!("{bytes} bytes at {offset} are outside the pinned allocation of {}", mem.bytes()) });
    }
    Ok(())
}
