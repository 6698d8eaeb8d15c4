//! CUDA allocations behind the runtime's interface: a cudarc `CudaSlice<u8>`, allocated,
//! copied and freed in order on the stream it was made on.

use super::driver_error;
use crate::backend::{DeviceId, LaunchGuard, MemoryImpl, StreamImpl};
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use std::sync::Arc;

pub(crate) struct CudaMemory {
    pub device: DeviceId,
    pub stream: Arc<CudaStream>,
    pub slice: CudaSlice<u8>,
}

impl MemoryImpl for CudaMemory {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn address(&self) -> u64 {
        let (ptr, _sync) = self.slice.device_ptr(&self.stream);
        ptr
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

    fn launch_address<'a>(&'a self, stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>) {
        match super::as_cudarc(stream) {
            Some(s) => {
                let (ptr, guard) = self.slice.device_ptr(s);
                (ptr, Some(Box::new(guard)))
            }
            None => (self.address(), None),
        }
    }

    fn launch_address_mut<'a>(&'a mut self, stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>) {
        match super::as_cudarc(stream) {
            Some(s) => {
                let (ptr, guard) = self.slice.device_ptr_mut(s);
                (ptr, Some(Box::new(guard)))
            }
            None => (self.address(), None),
        }
    }
}
