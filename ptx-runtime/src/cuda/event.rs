//! CUDA events behind the runtime's interface (created with timing enabled).

use super::driver_error;
use crate::backend::{DeviceId, EventImpl};
use crate::error::{Error, Result};
use cudarc::driver::CudaEvent;
use std::any::Any;
use std::time::Duration;

pub(crate) struct CudaEventImpl {
    pub device: DeviceId,
    pub event: CudaEvent,
}

impl EventImpl for CudaEventImpl {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn synchronize(&self) -> Result<()> {
        self.event.synchronize().map_err(|e| driver_error("cuEventSynchronize", e))
    }

    fn is_complete(&self) -> Result<bool> {
        self.event.try_is_complete().map_err(|e| driver_error("cuEventQuery", e))
    }

    fn elapsed_since(&self, start: &dyn EventImpl) -> Result<Duration> {
        let start = start
            .as_any()
            .downcast_ref::<CudaEventImpl>()
            .filter(|s| s.device == self.device)
            .ok_or_else(|| Error::InvalidConfig { reason: "elapsed time between events of different devices".into() })?;
        let ms = start.event.elapsed_ms(&self.event).map_err(|e| driver_error("cuEventElapsedTime", e))?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
