//! Devices: a CUDA GPU, or the CPU backend that executes the same PTX.

use crate::cpu::{CpuDevice, CpuModule};
use crate::cuda::{self, CudaDevice};
use crate::error::{Error, Result};
use crate::kernel::{Kernel, ModuleCache};
use crate::stream::Stream;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Which backend a [`Device`] runs kernels on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// An NVIDIA GPU through the CUDA driver.
    Cuda,
    /// The CPU backend: the same PTX, interpreted.
    Cpu,
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cuda => "CUDA",
            BackendKind::Cpu => "CPU",
        })
    }
}

/// A device to run kernels on. Cheap to clone; clones share the device.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::{BackendKind, Device};
/// let device = Device::cpu();
/// assert_eq!(device.kind(), BackendKind::Cpu);
/// // Asking for CUDA where there is none is an error, not a panic:
/// if let Err(e) = Device::cuda(0) {
///     println!("no GPU: {e}");
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) backend: DeviceBackend,
}

#[derive(Clone)]
pub(crate) enum DeviceBackend {
    Cuda(Arc<CudaDevice>),
    Cpu(Arc<CpuBackend>),
}

/// The CPU backend's device and the modules parsed for it.
pub(crate) struct CpuBackend {
    pub device: CpuDevice,
    pub modules: ModuleCache<Arc<CpuModule>>,
}

impl CpuBackend {
    pub fn module(&self, kernel: &'static Kernel) -> Result<Arc<CpuModule>> {
        self.modules.get_or_load(kernel, || self.device.load_module(kernel.ptx)).map(|m| Arc::clone(&*m))
    }
}

/// The environment variable that overrides [`Device::select`]: `cpu`, `cuda` or `cuda:N`.
pub const DEVICE_ENV: &str = "PTX_DEVICE";

impl Device {
    /// The device to use by default: CUDA device 0 when a driver and a GPU are present, else the
    /// CPU backend. The environment variable `PTX_DEVICE` (`cpu`, `cuda`, `cuda:N`) overrides
    /// the choice; asking for CUDA where there is none is an error.
    pub fn select() -> Result<Device> {
        match std::env::var(DEVICE_ENV) {
            Ok(spec) => Device::from_spec(&spec),
            Err(_) => match cuda::device_count() {
                Ok(n) if n > 0 => Device::cuda(0),
                _ => Ok(Device::cpu()),
            },
        }
    }

    /// The device a `PTX_DEVICE` value names: `cpu`, `cuda` (device 0) or `cuda:N`.
    pub fn from_spec(spec: &str) -> Result<Device> {
        match spec.trim() {
            "cpu" => Ok(Device::cpu()),
            "cuda" => Device::cuda(0),
            other => match other.strip_prefix("cuda:").and_then(|n| n.parse().ok()) {
                Some(n) => Device::cuda(n),
                None => Err(Error::InvalidConfig { reason: format!("{DEVICE_ENV}={spec:?}: expected `cpu`, `cuda` or `cuda:N`") }),
            },
        }
    }

    /// CUDA device `ordinal`. `Err(NoDriver)` without a driver, `Err(NoDevice)` without such a
    /// device.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Ok(Device { backend: DeviceBackend::Cuda(Arc::new(CudaDevice::open(ordinal)?)) })
    }

    /// The CPU backend. There is one per process; every handle shares its memory.
    pub fn cpu() -> Device {
        static CPU: OnceLock<Arc<CpuBackend>> = OnceLock::new();
        let backend = CPU.get_or_init(|| Arc::new(CpuBackend { device: CpuDevice::new(), modules: ModuleCache::default() }));
        Device { backend: DeviceBackend::Cpu(backend.clone()) }
    }

    pub fn kind(&self) -> BackendKind {
        match &self.backend {
            DeviceBackend::Cuda(_) => BackendKind::Cuda,
            DeviceBackend::Cpu(_) => BackendKind::Cpu,
        }
    }

    /// A human-readable name: the GPU's, or the CPU backend's.
    pub fn name(&self) -> String {
        match &self.backend {
            DeviceBackend::Cuda(d) => d.name(),
            DeviceBackend::Cpu(_) => "CPU backend (PTX executed on the host)".into(),
        }
    }

    /// The device's default stream.
    pub fn stream(&self) -> Stream {
        Stream::default_for(self)
    }

    /// A new stream: work on different streams may overlap.
    pub fn new_stream(&self) -> Result<Stream> {
        Stream::new_for(self)
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<()> {
        match &self.backend {
            DeviceBackend::Cuda(d) => d.ctx.synchronize().map_err(|e| cuda::driver_error("cuCtxSynchronize", e)),
            DeviceBackend::Cpu(_) => Ok(()),
        }
    }

    /// The CUDA JIT's informational log for `kernel` (registers, spills, as ptxas reports
    /// them), loading its module if needed. `None` on the CPU backend.
    pub fn jit_info_log(&self, kernel: &'static Kernel) -> Result<Option<String>> {
        match &self.backend {
            DeviceBackend::Cuda(d) => Ok(Some(d.module(kernel)?.info_log.clone())),
            DeviceBackend::Cpu(_) => Ok(None),
        }
    }

    /// Sets the size of the device heap that device code's `malloc` allocates from (PTX
    /// Interoperability §3), in bytes. CUDA: `cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)` (8 MiB
    /// by default; it must be set before a kernel that uses `malloc` is launched). CPU backend:
    /// [`CpuDevice::set_heap_size`], which fails while blocks from an earlier launch are still
    /// allocated.
    pub fn set_heap_size(&self, bytes: usize) -> Result<()> {
        match &self.backend {
            DeviceBackend::Cuda(d) => d
                .ctx
                .set_limit(cudarc::driver::sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE, bytes)
                .map_err(|e| cuda::driver_error("cuCtxSetLimit", e)),
            DeviceBackend::Cpu(c) => c.device.set_heap_size(bytes),
        }
    }

    /// The size of the device heap, in bytes (see [`set_heap_size`](Device::set_heap_size)).
    pub fn heap_size(&self) -> Result<usize> {
        match &self.backend {
            DeviceBackend::Cuda(d) => d
                .ctx
                .get_limit(cudarc::driver::sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE)
                .map_err(|e| cuda::driver_error("cuCtxGetLimit", e)),
            DeviceBackend::Cpu(c) => Ok(c.device.heap_size()),
        }
    }

    /// Number of kernel modules loaded on this device so far (each kernel's once).
    pub fn modules_loaded(&self) -> usize {
        match &self.backend {
            DeviceBackend::Cuda(d) => d.modules_loaded(),
            DeviceBackend::Cpu(c) => c.modules.len(),
        }
    }

}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({}: {})", self.kind(), self.name())
    }
}
