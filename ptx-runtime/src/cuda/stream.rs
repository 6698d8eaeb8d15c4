//! CUDA streams behind the runtime's interface.

use super::memory::CudaMemory;
use super::{driver_error, CudaDevice};
use crate::backend::{DeviceImpl, MemoryImpl, StreamImpl};
use crate::config::LaunchConfig;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use cudarc::driver::CudaStream;
use std::any::Any;
use std::sync::Arc;

/// A cudarc stream and the device (context) it belongs to.
pub(crate) struct CudaStreamImpl {
    pub device: Arc<CudaDevice>,
    pub stream: Arc<CudaStream>,
}

impl StreamImpl for CudaStreamImpl {
    fn device(&self) -> Arc<dyn DeviceImpl> {
        self.device.clone()
    }

    fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(|e| driver_error("cuStreamSynchronize", e))
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn MemoryImpl>> {
        let slice = self.stream.alloc_zeros::<u8>(bytes).map_err(|e| match driver_error("cuMemAlloc", e) {
            Error::OutOfMemory { .. } => Error::OutOfMemory { requested: bytes },
            other => other,
        })?;
        Ok(Box::new(CudaMemory { device: self.device.id(), stream: self.stream.clone(), slice }))
    }

    fn launch(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()> {
        self.device.launch(&self.stream, kernel, config, params)
    }

    fn as_any(&self) -> &dyn Any {
        &self.stream
    }
}

/// A stream of the runtime around a cudarc stream (interop).
pub(crate) fn from_cudarc(stream: Arc<CudaStream>) -> Arc<dyn StreamImpl> {
    let device = Arc::new(CudaDevice::from_context(stream.context().clone()));
    Arc::new(CudaStreamImpl { device, stream })
}
