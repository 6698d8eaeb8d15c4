//! CUDA allocations behind the runtime's interface: a cudarc `CudaSlice<u8>`, allocated,
//! copied and freed in order on the stream it was made on.

use super::driver_error;
use crate::backend::{DeviceId, LaunchGuard, MemoryImpl, StreamImpl};
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use std::any::Any;
use std::sync::Arc;

pub(crate) struct CudaMemory {
    pub device: DeviceId,
    pub stream: Arc<CudaStream>,
    pub slice: CudaSlice<u8>,
    /// The allocation's address, read once: a use on a capturing stream takes it from here,
    /// outside cudarc's event tracking (a capturing stream may neither wait for nor record an
    /// event of work outside its capture; docs/runtime-streams.md).
    pub ptr: u64,
}

impl CudaMemory {
    /// `slice` used in order on `stream`. The slice was allocated on `stream`, or, when
    /// `stream` was capturing, on the device's own stream (`CudaStreamImpl::alloc_zeroed`).
    pub fn new(device: DeviceId, stream: Arc<CudaStream>, slice: CudaSlice<u8>) -> CudaMemory {
        let ptr = {
            // On the stream the slice was allocated on, which is not capturing: waits for its
            // zeroing (already ordered there) and records a read there, neither of which
            // orders anything new.
            let own = slice.stream().clone();
            let (ptr, _record) = slice.device_ptr(&own);
            ptr
        };
        CudaMemory { device, stream, slice, ptr }
    }
}

impl MemoryImpl for CudaMemory {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn address(&self) -> u64 {
        self.ptr
    }

    fn write(&mut self, offset: usize, bytes: &[u8]) -> Result<()> {
        let mut dst = self.slice.slice_mut(offset..offset + bytes.len());
        self.stream.memcpy_htod(bytes, &mut dst).map_err(|e| driver_error("cuMemcpyHtoD", e))
    }

    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let src = self.slice.slice(offset..offset + out.len());
        self.stream.memcpy_dtoh(&src, out).map_err(|e| driver_error("cuMemcpyDtoH", e))?;
        self.stream.synchronize().map_err(|e| driver_error("cuStreamSynchronize", e))
    }

    fn copy_from(&mut self, offset: usize, src: &dyn MemoryImpl, src_offset: usize, bytes: usize) -> Result<bool> {
        let Some(s) = src.as_any().downcast_ref::<CudaMemory>() else { return Ok(false) };
        // cudarc orders the copy after `src`'s work and uses a peer copy across contexts.
        let from = s.slice.slice(src_offset..src_offset + bytes);
        let mut to = self.slice.slice_mut(offset..offset + bytes);
        self.stream.memcpy_dtod(&from, &mut to).map_err(|e| driver_error("cuMemcpyDtoDAsync", e))?;
        Ok(true)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn launch_address<'a>(&'a self, stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>) {
        if stream.is_capturing() {
            return (self.ptr, None);
        }
        match super::as_cudarc(stream) {
            Some(s) => {
                let (ptr, guard) = self.slice.device_ptr(s);
                (ptr, Some(Box::new(guard)))
            }
            None => (self.address(), None),
        }
    }

    fn launch_address_mut<'a>(&'a mut self, stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>) {
        if stream.is_capturing() {
            return (self.ptr, None);
        }
        match super::as_cudarc(stream) {
            Some(s) => {
                let (ptr, guard) = self.slice.device_ptr_mut(s);
                (ptr, Some(Box::new(guard)))
            }
            None => (self.address(), None),
        }
    }
}
