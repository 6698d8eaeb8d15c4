//! Devices: a CUDA GPU, or the CPU backend that executes the same PTX.

use crate::backend::{self, BackendKind, DeviceImpl};
use crate::cuda;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::properties::DeviceProperties;
use std::fmt;
use std::sync::Arc;

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
    pub(crate) inner: Arc<dyn DeviceImpl>,
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
        Ok(Device { inner: cuda::open(ordinal)? })
    }

    /// The CPU backend. There is one per process; every handle shares its memory.
    pub fn cpu() -> Device {
        Device { inner: backend::cpu::shared() }
    }

    /// Another CPU device, with its own memory and loaded modules, distinct from
    /// [`Device::cpu`] and from every other: several of them stand in for several GPUs where
    /// there are none (a multi-device program and its tests run anywhere).
    pub fn new_cpu() -> Device {
        Device { inner: backend::cpu::new() }
    }

    /// Every CUDA device, in ordinal order; where there is no driver or no GPU, the CPU
    /// backend alone. `PTX_DEVICE` does not apply (it names one device).
    pub fn all() -> Result<Vec<Device>> {
        match cuda::device_count() {
            Ok(n) if n > 0 => (0..n).map(Device::cuda).collect(),
            _ => Ok(vec![Device::cpu()]),
        }
    }

    /// The first of [`Device::all`] whose properties satisfy `pred` (e.g. a compute
    /// capability of at least 8.0); `Err(NoDevice)` if none does.
    pub fn select_by(pred: impl Fn(&DeviceProperties) -> bool) -> Result<Device> {
        let all = Device::all()?;
        let count = all.len();
        for d in all {
            if pred(&d.properties()?) {
                return Ok(d);
            }
        }
        Err(Error::NoDevice { ordinal: count, count })
    }

    /// What the device is: name, compute capability, multiprocessors, memory, limits.
    pub fn properties(&self) -> Result<DeviceProperties> {
        self.inner.properties()
    }

    /// Whether kernels on this device can access `peer`'s memory directly (CUDA peer access
    /// between two GPUs that have it; never on the CPU backend).
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        self.inner.can_access_peer(&*peer.inner)
    }

    /// Enables access from this device's kernels to `peer`'s memory
    /// (`cuCtxEnablePeerAccess`); `Err` between devices that have none. Copies between devices
    /// ([`DeviceSliceMut::copy_from_device`](crate::DeviceSliceMut::copy_from_device)) do not
    /// need it.
    pub fn enable_peer_access(&self, peer: &Device) -> Result<()> {
        self.inner.enable_peer_access(&*peer.inner)
    }

    pub fn kind(&self) -> BackendKind {
        self.inner.id().kind
    }

    /// A human-readable name: the GPU's, or the CPU backend's.
    pub fn name(&self) -> String {
        self.inner.name()
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    /// The CUDA JIT's informational log for `kernel` (registers, spills, as ptxas reports
    /// them), loading its module if needed. `None` on the CPU backend.
    pub fn jit_info_log(&self, kernel: &'static Kernel) -> Result<Option<String>> {
        self.inner.jit_info_log(kernel)
    }

    /// Sets the size of the device heap that device code's `malloc` allocates from (PTX
    /// Interoperability §3), in bytes. CUDA: `cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)` (8 MiB
    /// by default; it must be set before a kernel that uses `malloc` is launched). CPU backend:
    /// [`CpuDevice::set_heap_size`](crate::cpu::CpuDevice::set_heap_size), which fails while
    /// blocks from an earlier launch are still allocated.
    pub fn set_heap_size(&self, bytes: usize) -> Result<()> {
        self.inner.set_heap_size(bytes)
    }

    /// The size of the device heap, in bytes (see [`set_heap_size`](Device::set_heap_size)).
    pub fn heap_size(&self) -> Result<usize> {
        self.inner.heap_size()
    }

    /// Number of kernel modules loaded on this device so far (each kernel's once).
    pub fn modules_loaded(&self) -> usize {
        self.inner.modules_loaded()
    }
}

/// Two handles are equal when they name the same device.
impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.inner.id() == other.inner.id()
    }
}

impl Eq for Device {}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({}: {})", self.kind(), self.name())
    }
}
