//! The CUDA backend: the driver API through cudarc, loaded at run time.
//!
//! The crate builds and runs on machines without CUDA: before touching the driver we probe for
//! the library (`is_culib_present`), since cudarc panics when a driver call finds none.
//! Contexts, streams and memory use cudarc's safe layer (the device's primary context,
//! stream-ordered allocation, event tracking across streams); modules are loaded with
//! `cuModuleLoadDataEx` to capture the JIT's logs, and kernels launched with `cuLaunchKernel`.

#[cfg(feature = "cust")]
mod cust;
mod error;
mod event;
mod graph;
mod interop;
mod link;
mod memory;
mod module;
mod occupancy;
mod pinned;
mod report;
mod slots;
mod stream;
mod texture;
mod words;

pub(crate) use error::driver_error;
pub(crate) use module::LoadedModule;

use crate::backend::{BackendKind, DeviceId, DeviceImpl, StreamImpl};
use crate::config::LaunchConfig;
use crate::properties::DeviceProperties;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, ModuleCache};
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

/// One CUDA device: its primary context and the modules loaded into it.
pub(crate) struct CudaDevice {
    pub ctx: Arc<CudaContext>,
    modules: ModuleCache<LoadedModule>,
    /// A non-blocking stream of the runtime's own (see `service_stream`): it keeps this context
    /// object in cudarc's multi-stream mode for its whole life, and serves the allocations
    /// asked for on a stream that is capturing.
    service: std::sync::OnceLock<Arc<CudaStream>>,
}

/// Whether a CUDA driver library can be loaded at all.
pub(crate) fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

/// Number of CUDA devices, or why there are none to ask.
pub(crate) fn device_count() -> Result<usize> {
    if !driver_present() {
        return Err(Error::NoDriver {
            detail: "libcuda could not be loaded (no NVIDIA driver on this machine); use `Device::cpu()` (or `PTX_DEVICE=cpu`) to run on the CPU backend".into(),
        });
    }
    result::init().map_err(|e| driver_error("cuInit", e))?;
    let n = result::device::get_count().map_err(|e| driver_error("cuDeviceGetCount", e))?;
    Ok(n.max(0) as usize)
}

impl CudaDevice {
    pub fn open(ordinal: usize) -> Result<CudaDevice> {
        let count = device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| driver_error("cuDevicePrimaryCtxRetain", e))?;
        // cudarc's first `new_stream` on a context object calls `cuCtxSynchronize` (so that the
        // work of buffers made before it is done before their uses start being tracked). That
        // synchronizes every stream of the primary context, which CUDA refuses while another
        // thread captures one of them (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and that capture
        // is invalidated). This context object is new and holds no buffer, so entering
        // multi-stream mode here needs no synchronization: the first stream is made with
        // tracking off for that one call, and kept for the device's life so that the count of
        // streams never falls back to zero (docs/runtime-streams.md).
        // SAFETY: nothing else has this context object yet: no buffer exists whose uses the
        // setting could leave untracked, and no other thread can read it.
        unsafe { ctx.disable_event_tracking() };
        let service = ctx.new_stream();
        // SAFETY: as above; restores the default.
        unsafe { ctx.enable_event_tracking() };
        let service = service.map_err(|e| driver_error("cuStreamCreate", e))?;
        Ok(CudaDevice { ctx, modules: ModuleCache::default(), service: std::sync::OnceLock::from(service) })
    }

    /// A device around an existing context (cudarc interop).
    pub fn from_context(ctx: Arc<CudaContext>) -> CudaDevice {
        CudaDevice { ctx, modules: ModuleCache::default(), service: std::sync::OnceLock::new() }
    }

    /// The runtime's own non-blocking stream of this device (made on first use for a context
    /// that came from cudarc, with cudarc's `new_stream`).
    pub fn service_stream(&self) -> Result<&Arc<CudaStream>> {
        if let Some(s) = self.service.get() {
            return Ok(s);
        }
        let s = self.ctx.new_stream().map_err(|e| driver_error("cuStreamCreate", e))?;
        Ok(self.service.get_or_init(|| s))
    }

    pub fn name(&self) -> String {
        let cc = self.ctx.compute_capability().map(|(a, b)| format!(" (sm_{a}{b})")).unwrap_or_default();
        format!("{}{cc}", self.ctx.name().unwrap_or_else(|_| format!("CUDA device {}", self.ctx.ordinal())))
    }

    /// Loads the kernel's module into this context, once.
    pub fn module(&self, kernel: &'static Kernel) -> Result<Arc<LoadedModule>> {
        self.modules.get_or_load(kernel, || LoadedModule::load(&self.ctx, kernel))
    }

    pub fn modules_loaded(&self) -> usize {
        self.modules.len()
    }

    /// Enqueues a launch on `stream`. `params` are the kernel's parameters, each exactly as the
    /// ABI lays it out.
    /// `cooperative`: with `cuLaunchCooperativeKernel` (co-residency already checked).
    pub fn launch(&self, stream: &CudaStream, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>], cooperative: bool) -> Result<()> {
        let module = self.module(kernel)?;
        self.ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // The same limits table and `Err` as the CPU backend, before the driver sees the launch.
        let (major, minor) = self.ctx.compute_capability().map_err(|e| driver_error("cuDeviceGetAttribute", e))?;
        let sm = (major.max(0) * 10 + minor.max(0)) as u32;
        crate::limits::check_shared(sm, module.static_shared, config.shared_bytes, config.max_dynamic_shared_bytes)?;
        // The function attribute: the opt-in, else CUDA's default (48 KiB less the static part).
        let wanted = config
            .max_dynamic_shared_bytes
            .unwrap_or(crate::limits::DEFAULT_MAX_SHARED_BYTES.saturating_sub(module.static_shared));
        let mut max_dynamic = module.max_dynamic.lock().unwrap_or_else(|e| e.into_inner());
        if *max_dynamic != wanted {
            module.set_max_dynamic(wanted)?;
            *max_dynamic = wanted;
        }
        let mut pointers: Vec<*mut c_void> = params.iter().map(|p| p.as_ptr() as *mut c_void).collect();
        let (g, b) = (config.grid, config.block);
        // SAFETY: the function belongs to this context; `pointers` holds one pointer per
        // parameter to bytes laid out as the `.entry` declares them, alive until the call
        // returns (the driver copies them).
        if cooperative {
            let status = unsafe {
                sys::cuLaunchCooperativeKernel(module.function, g.x, g.y, g.z, b.x, b.y, b.z, config.shared_bytes, stream.cu_stream(), pointers.as_mut_ptr())
            };
            return status.result().map_err(|e| driver_error("cuLaunchCooperativeKernel", e));
        }
        let status = unsafe {
            sys::cuLaunchKernel(
                module.function,
                g.x,
                g.y,
                g.z,
                b.x,
                b.y,
                b.z,
                config.shared_bytes,
                stream.cu_stream(),
                pointers.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        status.result().map_err(|e| driver_error("cuLaunchKernel", e))
    }
}

/// The cudarc stream behind `stream`, if it is a CUDA stream (whose `as_any` is its cudarc
/// stream).
pub(crate) fn as_cudarc(stream: &dyn StreamImpl) -> Option<&Arc<CudaStream>> {
    stream.as_any().downcast_ref::<Arc<CudaStream>>()
}

/// CUDA device `ordinal`, behind the runtime's interface.
pub(crate) fn open(ordinal: usize) -> Result<Arc<dyn DeviceImpl>> {
    Ok(Arc::new(CudaDevice::open(ordinal)?))
}

impl DeviceImpl for CudaDevice {
    fn id(&self) -> DeviceId {
        DeviceId { kind: BackendKind::Cuda, id: self.ctx.cu_ctx() as usize as u64 }
    }

    fn name(&self) -> String {
        CudaDevice::name(self)
    }

    fn properties(&self) -> Result<DeviceProperties> {
        use sys::CUdevice_attribute as A;
        let attr = |a| self.ctx.attribute(a).map(|v| v.max(0) as u32).map_err(|e| driver_error("cuDeviceGetAttribute", e));
        let (major, minor) = self.ctx.compute_capability().map_err(|e| driver_error("cuDeviceGetAttribute", e))?;
        Ok(DeviceProperties {
            name: self.ctx.name().map_err(|e| driver_error("cuDeviceGetName", e))?,
            compute_capability: (major.max(0) as u32, minor.max(0) as u32),
            multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            total_memory: Some(self.ctx.total_mem().map_err(|e| driver_error("cuDeviceTotalMem", e))? as u64),
            max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_shared_bytes_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            warp_size: attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        })
    }

    fn can_access_peer(&self, peer: &dyn DeviceImpl) -> Result<bool> {
        let Some(peer) = peer.as_any().downcast_ref::<CudaDevice>() else { return Ok(false) };
        if peer.ctx.cu_device() == self.ctx.cu_device() {
            return Ok(false);
        }
        let mut can = 0;
        // SAFETY: two valid device handles and an out-pointer to an int.
        let status = unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.ctx.cu_device(), peer.ctx.cu_device()) };
        status.result().map_err(|e| driver_error("cuDeviceCanAccessPeer", e))?;
        Ok(can != 0)
    }

    fn enable_peer_access(&self, peer: &dyn DeviceImpl) -> Result<()> {
        if !self.can_access_peer(peer)? {
            return Err(Error::InvalidConfig { reason: format!("{} cannot access the memory of {} (no peer access between them)", self.name(), peer.name()) });
        }
        let Some(peer) = peer.as_any().downcast_ref::<CudaDevice>() else { return Ok(()) };
        self.ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // SAFETY: the peer's context is alive (we hold it); flags must be 0.
        let status = unsafe { sys::cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) };
        match status {
            sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            s => s.result().map_err(|e| driver_error("cuCtxEnablePeerAccess", e)),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn synchronize(&self) -> Result<()> {
        self.ctx.synchronize().map_err(|e| driver_error("cuCtxSynchronize", e))
    }

    fn jit_info_log(&self, kernel: &'static Kernel) -> Result<Option<String>> {
        Ok(Some(self.module(kernel)?.info_log.clone()))
    }

    fn set_heap_size(&self, bytes: usize) -> Result<()> {
        self.ctx.set_limit(sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE, bytes).map_err(|e| driver_error("cuCtxSetLimit", e))
    }

    fn heap_size(&self) -> Result<usize> {
        self.ctx.get_limit(sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE).map_err(|e| driver_error("cuCtxGetLimit", e))
    }

    fn modules_loaded(&self) -> usize {
        CudaDevice::modules_loaded(self)
    }

    fn max_active_blocks_per_sm(&self, kernel: &'static Kernel, block_threads: u32, dynamic_shared: u32) -> Result<u32> {
        self.max_active_blocks(kernel, block_threads, dynamic_shared)
    }

    fn max_potential_block_size(&self, kernel: &'static Kernel, dynamic_shared: u32) -> Result<(u32, u32)> {
        CudaDevice::max_potential_block_size(self, kernel, dynamic_shared)
    }

    fn default_stream(self: Arc<Self>) -> Arc<dyn StreamImpl> {
        let stream = self.ctx.default_stream();
        Arc::new(stream::CudaStreamImpl::new(self, stream))
    }

    fn new_stream(self: Arc<Self>) -> Result<Arc<dyn StreamImpl>> {
        let stream = self.ctx.new_stream().map_err(|e| driver_error("cuStreamCreate", e))?;
        Ok(Arc::new(stream::CudaStreamImpl::new(self, stream)))
    }

    fn stream_priority_range(&self) -> Result<(i32, i32)> {
        self.ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        result::stream::get_priority_range().map_err(|e| driver_error("cuCtxGetStreamPriorityRange", e))
    }

    fn new_stream_with_priority(self: Arc<Self>, priority: i32) -> Result<Arc<dyn StreamImpl>> {
        let stream = self.ctx.new_stream_with_priority(priority).map_err(|e| driver_error("cuStreamCreateWithPriority", e))?;
        Ok(Arc::new(stream::CudaStreamImpl::new(self, stream)))
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<Arc<dyn crate::backend::PinnedImpl>> {
        Ok(Arc::new(pinned::CudaPinned::new(&self.ctx, bytes)?))
    }

    fn supports_cooperative_launch(&self) -> Result<bool> {
        let v = self.ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).map_err(|e| driver_error("cuDeviceGetAttribute", e))?;
        Ok(v != 0)
    }

    fn link(&self, inputs: &[crate::link::LinkInput]) -> Result<Option<String>> {
        let (ptx, loaded) = link::link(&self.ctx, inputs)?;
        for (k, m) in crate::link::LinkInput::kernels(inputs).into_iter().zip(loaded) {
            self.modules.insert(k, Arc::new(m));
        }
        Ok(ptx)
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        // Modules unload through their own Drop, with the context bound.
        drop(self.modules.drain());
    }
}
