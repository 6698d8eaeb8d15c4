//! CUDA streams behind the runtime's interface.

use super::event::CudaEventImpl;
use super::memory::CudaMemory;
use super::{driver_error, CudaDevice};
use crate::backend::{DeviceImpl, EventImpl, MemoryImpl, StreamImpl};
use crate::config::LaunchConfig;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use cudarc::driver::{sys, CudaStream};
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

    fn record_event(&self) -> Result<Arc<dyn EventImpl>> {
        let event = self.stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| driver_error("cuEventRecord", e))?;
        Ok(Arc::new(CudaEventImpl { device: self.device.id(), event }))
    }

    fn wait_event(&self, event: &dyn EventImpl) -> Result<()> {
        // cuStreamWaitEvent may wait for another context's event (another GPU's).
        let event = event
            .as_any()
            .downcast_ref::<CudaEventImpl>()
            .ok_or_else(|| Error::InvalidConfig { reason: "a CUDA stream cannot wait for an event of the CPU backend".into() })?;
        self.stream.wait(&event.event).map_err(|e| driver_error("cuStreamWaitEvent", e))
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
