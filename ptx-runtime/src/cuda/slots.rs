//! A loaded module's failure slots (`ptx_abi::report`), written from the host: each is an
//! 8-byte `.const` variable (`cuModuleGetGlobal`), written by a copy on a non-blocking stream
//! of its own, waited for at once.
//!
//! Not a synchronous `cuMemcpyHtoD`: that runs on the legacy default stream, so it would wait
//! for the work queued on `Device::stream()` (which is that stream; a kernel polling the host
//! there would never let it finish), and it is invalid while a blocking stream of the caller's
//! captures (docs/runtime-streams.md). A non-blocking stream waits for no other stream.

use super::error::driver_error;
use crate::error::Result;
use cudarc::driver::result::stream::{self, StreamKind};
use cudarc::driver::{result, sys};
use std::cell::Cell;
use std::ffi::CString;

/// A module's slots, and the stream their copies use (made at the first copy: most modules of
/// `debug` kernels and check-free kernels have no slot).
pub(crate) struct Slots {
    module: sys::CUmodule,
    stream: Cell<sys::CUstream>,
}

impl Slots {
    /// The slots of `module`, loaded in the context current while `self` is used and dropped.
    pub fn new(module: sys::CUmodule) -> Slots {
        Slots { module, stream: Cell::new(std::ptr::null_mut()) }
    }

    /// Writes `pointer` into the module's slot `name`; `false` if the module has no 8-byte
    /// global of that name (a slot of another size is left unarmed, its failures then trap
    /// without a location, rather than overwritten).
    pub fn write(&self, name: &str, pointer: u64) -> Result<bool> {
        let Some(at) = self.address(name)? else { return Ok(false) };
        let stream = self.stream()?;
        // SAFETY: `at` is the slot's 8 bytes of device memory in the current context; the
        // source is pageable, so the driver stages it before returning; `stream` is live.
        unsafe { result::memcpy_htod_async(at, &[pointer], stream) }.map_err(|e| driver_error("cuMemcpyHtoDAsync", e))?;
        // SAFETY: made by `stream::create` and not destroyed.
        unsafe { stream::synchronize(stream) }.map_err(|e| driver_error("cuStreamSynchronize", e))?;
        Ok(true)
    }

    /// The device address of the module's 8-byte global `name`, if it has one.
    fn address(&self, name: &str) -> Result<Option<u64>> {
        let Ok(name) = CString::new(name) else { return Ok(None) };
        let (mut at, mut bytes) = (0, 0usize);
        // SAFETY: the module is loaded in the current context; `name` is NUL-terminated.
        let status = unsafe { sys::cuModuleGetGlobal_v2(&mut at, &mut bytes, self.module, name.as_ptr()) };
        if status == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            return Ok(None);
        }
        status.result().map_err(|e| driver_error("cuModuleGetGlobal", e))?;
        Ok((bytes == 8).then_some(at))
    }

    fn stream(&self) -> Result<sys::CUstream> {
        if self.stream.get().is_null() {
            self.stream.set(stream::create(StreamKind::NonBlocking).map_err(|e| driver_error("cuStreamCreate", e))?);
        }
        Ok(self.stream.get())
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        let stream = self.stream.get();
        if !stream.is_null() {
            // SAFETY: made by `stream::create` in the current context, destroyed once.
            let _ = unsafe { stream::destroy(stream) };
        }
    }
}
