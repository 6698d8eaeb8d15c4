//! Page-locked host memory from the driver (`cuMemHostAlloc`, portable: every context's
//! streams may copy from and to it asynchronously).

use super::driver_error;
use crate::backend::PinnedImpl;
use crate::error::{Error, Result};
use cudarc::driver::{result, sys, CudaContext};
use std::sync::Arc;

pub(crate) struct CudaPinned {
    ptr: *mut u8,
    bytes: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: the allocation is owned like a `Box<[u8]>`; the typed `PinnedBuffer` decides who
// touches it when (it waits for the copies that use it).
unsafe impl Send for CudaPinned {}
unsafe impl Sync for CudaPinned {}

impl CudaPinned {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<CudaPinned> {
        crate::host_memory::check_host_memory(bytes)?;
        ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // SAFETY: a plain allocation call; the pointer is checked below.
        let ptr = unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }.map_err(|e| match driver_error("cuMemHostAlloc", e) {
            Error::OutOfMemory { .. } => Error::OutOfHostMemory { requested: bytes, available: crate::host_memory::host_memory_bytes() },
            other => other,
        })? as *mut u8;
        if ptr.is_null() {
            return Err(Error::OutOfHostMemory { requested: bytes, available: crate::host_memory::host_memory_bytes() });
        }
        // SAFETY: `bytes` bytes were just allocated at `ptr`; the driver does not zero them.
        unsafe { std::ptr::write_bytes(ptr, 0, bytes) };
        Ok(CudaPinned { ptr, bytes, ctx: ctx.clone() })
    }
}

impl PinnedImpl for CudaPinned {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for CudaPinned {
    fn drop(&mut self) {
        // Copies that used it have finished: `PinnedBuffer` and graphs wait for them first.
        let _ = self.ctx.bind_to_thread();
        // SAFETY: allocated by `cuMemHostAlloc` in `new`, freed once.
        let _ = unsafe { result::free_host(self.ptr as *mut std::ffi::c_void) };
    }
}
