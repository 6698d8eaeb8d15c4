//! Streams: ordered queues of copies and launches on one device.

use crate::arg::Args;
use crate::config::LaunchConfig;
use crate::cuda::{driver_error, CudaDevice};
use crate::devices::{CpuBackend, Device, DeviceBackend};
use crate::error::Result;
use crate::kernel::Kernel;
use cudarc::driver::CudaStream;
use std::sync::Arc;

/// A stream on a device. Cheap to clone.
///
/// On CUDA, launches and copies are queued and run in order; reading results back
/// ([`DeviceBuffer::to_vec`](crate::DeviceBuffer::to_vec)) waits for them. On the CPU backend
/// every operation completes before it returns.
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: StreamInner,
}

#[derive(Clone)]
pub(crate) enum StreamInner {
    Cuda(Arc<CudaDevice>, Arc<CudaStream>),
    Cpu(Arc<CpuBackend>),
}

impl Stream {
    pub(crate) fn default_for(device: &Device) -> Stream {
        let inner = match &device.backend {
            DeviceBackend::Cuda(d) => StreamInner::Cuda(d.clone(), d.ctx.default_stream()),
            DeviceBackend::Cpu(c) => StreamInner::Cpu(c.clone()),
        };
        Stream { inner }
    }

    pub(crate) fn new_for(device: &Device) -> Result<Stream> {
        let inner = match &device.backend {
            DeviceBackend::Cuda(d) => {
                StreamInner::Cuda(d.clone(), d.ctx.new_stream().map_err(|e| driver_error("cuStreamCreate", e))?)
            }
            DeviceBackend::Cpu(c) => StreamInner::Cpu(c.clone()),
        };
        Ok(Stream { inner })
    }

    /// Wraps a cudarc stream, to share work with code that uses cudarc directly.
    pub fn from_cuda(stream: Arc<CudaStream>) -> Stream {
        let device = Arc::new(CudaDevice::from_context(stream.context().clone()));
        Stream { inner: StreamInner::Cuda(device, stream) }
    }

    /// The cudarc stream underneath, on the CUDA backend.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &self.inner {
            StreamInner::Cuda(_, s) => Some(s),
            StreamInner::Cpu(_) => None,
        }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> Device {
        let backend = match &self.inner {
            StreamInner::Cuda(d, _) => DeviceBackend::Cuda(d.clone()),
            StreamInner::Cpu(c) => DeviceBackend::Cpu(c.clone()),
        };
        Device { backend }
    }

    /// Waits for everything queued on this stream; reports a kernel that failed.
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner {
            StreamInner::Cuda(_, s) => s.synchronize().map_err(|e| driver_error("cuStreamSynchronize", e)),
            StreamInner::Cpu(_) => Ok(()),
        }
    }

    /// Launches `kernel` with arguments already encoded. The launchers `#[kernel]` generates
    /// (`k::launch`) call this; use it directly only to launch a [`Kernel`] by hand. The
    /// configuration is checked against CUDA's limits and the kernel's launch bounds first.
    pub fn launch_kernel(&self, kernel: &'static Kernel, config: LaunchConfig, args: Args<'_>) -> Result<()> {
        config.validate()?;
        crate::limits::check_bounds(kernel.entry, config.block.to_array(), &kernel.bounds)?;
        match &self.inner {
            StreamInner::Cuda(d, s) => d.launch(s, kernel, &config, args.params()),
            StreamInner::Cpu(c) => {
                let module = c.module(kernel)?;
                let params: Vec<&[u8]> = args.params().iter().map(Vec::as_slice).collect();
                let shared = (config.shared_bytes, config.max_dynamic_shared_bytes);
                c.device.launch_opt_in(&module, kernel.entry, config.grid.to_array(), config.block.to_array(), shared, &params)
            }
        }
    }
}
