//! The CPU backend behind the runtime's interface: an adapter over the PTX emulator (the
//! `ptx-cpu` crate), whose own API (`CpuDevice`) knows nothing of streams or typed buffers,
//! and whose errors become this crate's here.
//!
//! Every operation completes before it returns, so a stream is the device itself and there is
//! nothing to order between streams.

mod graph;
mod pinned;
mod texture;

use super::{BackendKind, DeviceId, DeviceImpl, EventImpl, GraphImpl, LaunchGuard, MemoryImpl, PinnedImpl, StreamImpl};
use graph::{CpuGraph, Op};
use crate::config::LaunchConfig;
use crate::cpu::{CpuDevice, CpuModule, Sanitizers};
use crate::properties::DeviceProperties;
use crate::error::{Error, Result};
use crate::kernel::{Kernel, ModuleCache};
use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The CPU backend's device and the modules parsed for it.
pub(crate) struct CpuBackend {
    device: CpuDevice,
    modules: ModuleCache<Arc<CpuModule>>,
}

/// The process's CPU backend: every `Device::cpu()` shares it, and its memory.
pub(crate) fn shared() -> Arc<CpuBackend> {
    static CPU: OnceLock<Arc<CpuBackend>> = OnceLock::new();
    CPU.get_or_init(new).clone()
}

/// Another CPU device, with memory and modules of its own (`Device::new_cpu`).
pub(crate) fn new() -> Arc<CpuBackend> {
    Arc::new(CpuBackend { device: CpuDevice::new(), modules: ModuleCache::default() })
}

impl CpuBackend {
    /// Runs a launch now (a stream's launch, or a graph's replay of one).
    /// Runs a launch now: under the stream's own sanitizers where it has them (an ordinary
    /// launch; a cooperative one runs the device's), else the device's.
    fn launch_now(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>], sanitizers: Option<Sanitizers>) -> Result<()> {
        let module = self.module(kernel)?;
        if cfg!(ptx_runtime_unoptimized) {
            unoptimized_notice(config);
        }
        let params: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
        let shared = (config.shared_bytes, config.max_dynamic_shared_bytes);
        let (grid, block) = (config.grid.to_array(), config.block.to_array());
        if config.cooperative {
            return Ok(self.device.launch_cooperative(&module, kernel.entry, grid, block, shared, &params)?);
        }
        let sanitizers = sanitizers.unwrap_or_else(|| self.device.sanitizers());
        Ok(self.device.launch_with_sanitizers(&module, kernel.entry, grid, block, shared, &params, sanitizers)?)
    }

    fn module(&self, kernel: &'static Kernel) -> Result<Arc<CpuModule>> {
        self.modules.get_or_load(kernel, || Ok(self.device.load_module(kernel.ptx)?)).map(|m| Arc::clone(&*m))
    }

    /// Links the PTX inputs with the emulator's linker and makes the result the module of
    /// every kernel among them.
    fn link_now(&self, inputs: &[crate::link::LinkInput]) -> Result<Option<String>> {
        use crate::link::LinkInput;
        if let Some(LinkInput::Binary { name, kind, .. }) = inputs.iter().find(|i| matches!(i, LinkInput::Binary { .. })) {
            return Err(Error::Link {
                log: format!("`{name}` is a {kind:?}: the CPU backend links PTX only; add the PTX of the same code instead (`nvcc -rdc=true -ptx`)"),
            });
        }
        let text = ptx_cpu::link(&LinkInput::ptx_inputs(inputs))?;
        let module = self.device.load_module(&text)?;
        for k in LinkInput::kernels(inputs) {
            if !module.entries().contains(&k.entry) {
                return Err(Error::Link { log: format!("the linked module has no kernel `{}`", k.entry) });
            }
        }
        for k in LinkInput::kernels(inputs) {
            self.modules.insert(k, Arc::new(module.clone()));
        }
        Ok(Some(text))
    }

    fn device_id(&self) -> DeviceId {
        DeviceId { kind: BackendKind::Cpu, id: self.device.id() }
    }
}

impl DeviceImpl for CpuBackend {
    fn id(&self) -> DeviceId {
        self.device_id()
    }

    fn name(&self) -> String {
        "CPU backend (PTX executed on the host)".into()
    }

    /// What a module without a `.target` is held to (modules are held to their own target);
    /// memory is the host's.
    fn properties(&self) -> Result<DeviceProperties> {
        let sm = crate::cpu::DEFAULT_SM;
        Ok(DeviceProperties {
            name: self.name(),
            compute_capability: (sm / 10, sm % 10),
            multiprocessors: self.device.parallelism() as u32,
            total_memory: None,
            max_threads_per_block: crate::limits::MAX_THREADS_PER_BLOCK as u32,
            max_shared_bytes_per_block: crate::limits::max_shared_opt_in(sm),
            warp_size: 32,
        })
    }

    fn can_access_peer(&self, _peer: &dyn DeviceImpl) -> Result<bool> {
        Ok(false)
    }

    fn enable_peer_access(&self, peer: &dyn DeviceImpl) -> Result<()> {
        Err(Error::InvalidConfig {
            reason: format!("peer access from the CPU backend to {}: CPU devices have separate memories; copy between them (`copy_from_device`)", peer.name()),
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn jit_info_log(&self, _kernel: &'static Kernel) -> Result<Option<String>> {
        Ok(None)
    }

    fn set_heap_size(&self, bytes: usize) -> Result<()> {
        Ok(self.device.set_heap_size(bytes)?)
    }

    fn heap_size(&self) -> Result<usize> {
        Ok(self.device.heap_size())
    }

    fn modules_loaded(&self) -> usize {
        self.modules.len()
    }

    /// From the limits table for the module's architecture; registers are not counted.
    fn max_active_blocks_per_sm(&self, kernel: &'static Kernel, block_threads: u32, dynamic_shared: u32) -> Result<u32> {
        Ok(self.module(kernel)?.max_active_blocks(kernel.entry, block_threads, dynamic_shared)?)
    }

    /// As CUDA's calculator picks it; the grid fills the backend's workers, its "SMs".
    fn max_potential_block_size(&self, kernel: &'static Kernel, dynamic_shared: u32) -> Result<(u32, u32)> {
        let (block, per_sm) = self.module(kernel)?.max_potential_block_size(kernel.entry, dynamic_shared)?;
        Ok((block, per_sm.saturating_mul(self.device.parallelism() as u32)))
    }

    fn default_stream(self: Arc<Self>) -> Arc<dyn StreamImpl> {
        Arc::new(CpuStream::new(self))
    }

    fn new_stream(self: Arc<Self>) -> Result<Arc<dyn StreamImpl>> {
        Ok(Arc::new(CpuStream::new(self)))
    }

    /// One priority: every operation runs to completion when it is issued.
    fn stream_priority_range(&self) -> Result<(i32, i32)> {
        Ok((0, 0))
    }

    fn new_stream_with_priority(self: Arc<Self>, _priority: i32) -> Result<Arc<dyn StreamImpl>> {
        self.new_stream()
    }

    fn set_sanitizers(&self, sanitizers: Sanitizers) -> Result<()> {
        self.device.set_sanitizers(sanitizers);
        Ok(())
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<Arc<dyn PinnedImpl>> {
        Ok(Arc::new(pinned::CpuPinned::new(bytes)?))
    }

    /// Every block of a cooperative grid runs interleaved with the others.
    fn supports_cooperative_launch(&self) -> Result<bool> {
        Ok(true)
    }

    fn link(&self, inputs: &[crate::link::LinkInput]) -> Result<Option<String>> {
        self.link_now(inputs)
    }
}

/// A stream of the CPU backend: the device, since every operation is synchronous, and the
/// operations recorded while it captures a graph, and the sanitizers of its launches where they
/// differ from the device's.
struct CpuStream(Arc<CpuBackend>, Mutex<Option<Vec<Op>>>, Mutex<Option<Sanitizers>>);

impl CpuStream {
    fn new(backend: Arc<CpuBackend>) -> CpuStream {
        CpuStream(backend, Mutex::new(None), Mutex::new(None))
    }

    /// Runs `op` now, or records it while capturing.
    fn issue(&self, op: Op) -> Result<()> {
        let mut capture = self.1.lock().unwrap_or_else(|e| e.into_inner());
        match capture.as_mut() {
            Some(ops) => {
                ops.push(op);
                Ok(())
            }
            None => {
                drop(capture);
                self.0.run(&op)
            }
        }
    }

    /// The sanitizers this stream's launches run, if it has its own.
    fn sanitizers(&self) -> Option<Sanitizers> {
        *self.2.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl StreamImpl for CpuStream {
    fn device(&self) -> Arc<dyn DeviceImpl> {
        self.0.clone()
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn MemoryImpl>> {
        let addr = self.0.device.alloc(bytes)?;
        Ok(Box::new(CpuMemory { backend: self.0.clone(), addr }))
    }

    /// Zeroed too, but never written as far as initcheck is concerned.
    fn alloc_uninit(&self, bytes: usize) -> Result<Box<dyn MemoryImpl>> {
        let addr = self.0.device.alloc_uninit(bytes)?;
        Ok(Box::new(CpuMemory { backend: self.0.clone(), addr }))
    }

    fn set_sanitizers(&self, sanitizers: Option<Sanitizers>) -> Result<()> {
        *self.2.lock().unwrap_or_else(|e| e.into_inner()) = sanitizers;
        Ok(())
    }

    fn launch(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()> {
        self.issue(Op::Launch { kernel, config: *config, params: params.to_vec(), sanitizers: self.sanitizers() })
    }

    fn launch_cooperative(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()> {
        self.issue(Op::Launch { kernel, config: LaunchConfig { cooperative: true, ..*config }, params: params.to_vec(), sanitizers: self.sanitizers() })
    }

    fn copy_htod_async(&self, src: &Arc<dyn PinnedImpl>, src_offset: usize, dst: &mut dyn MemoryImpl, offset: usize, bytes: usize) -> Result<()> {
        let dst = graph::address(&self.0, dst, offset)?;
        self.issue(Op::ToDevice { src: src.clone(), src_offset, dst, bytes })
    }

    fn copy_dtoh_async(&self, src: &dyn MemoryImpl, offset: usize, dst: &Arc<dyn PinnedImpl>, dst_offset: usize, bytes: usize) -> Result<()> {
        let src = graph::address(&self.0, src, offset)?;
        self.issue(Op::ToHost { src, dst: dst.clone(), dst_offset, bytes })
    }

    fn begin_capture(&self) -> Result<()> {
        let mut capture = self.1.lock().unwrap_or_else(|e| e.into_inner());
        if capture.is_some() {
            return Err(Error::InvalidOperation { reason: "begin_capture on a stream that is already capturing".into() });
        }
        *capture = Some(Vec::new());
        Ok(())
    }

    fn end_capture(&self) -> Result<Box<dyn GraphImpl>> {
        let ops = self.1.lock().unwrap_or_else(|e| e.into_inner()).take();
        let ops = ops.ok_or_else(|| Error::InvalidOperation { reason: "end_capture on a stream that is not capturing".into() })?;
        Ok(Box::new(CpuGraph { backend: self.0.clone(), ops }))
    }

    fn is_capturing(&self) -> bool {
        self.1.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    fn alloc_array(&self, desc: &super::texture::ArrayDesc) -> Result<Box<dyn super::texture::ArrayImpl>> {
        texture::alloc_array(&self.0, desc)
    }

    fn alloc_mipmapped(&self, desc: &super::texture::ArrayDesc, levels: u32) -> Result<Box<dyn super::texture::MipmappedImpl>> {
        texture::alloc_mipmapped(&self.0, desc, levels)
    }

    fn create_texture(&self, resource: super::texture::TexResource<'_>, sampler: &ptx_cpu::texture::Sampler) -> Result<Box<dyn super::texture::ObjectImpl>> {
        texture::create_texture(&self.0, resource, sampler)
    }

    fn create_surface(&self, array: &dyn super::texture::ArrayImpl) -> Result<Box<dyn super::texture::ObjectImpl>> {
        texture::create_surface(&self.0, array)
    }

    fn record_event(&self) -> Result<Arc<dyn EventImpl>> {
        Ok(Arc::new(CpuEvent { device: self.0.device_id(), at: Instant::now() }))
    }

    fn wait_event(&self, event: &dyn EventImpl) -> Result<()> {
        same_device(self.0.device_id(), event.device(), "a stream cannot wait for an event of another device")
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An event of the CPU backend: the moment it was recorded, when the work before it had
/// already finished.
struct CpuEvent {
    device: DeviceId,
    at: Instant,
}

impl EventImpl for CpuEvent {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn is_complete(&self) -> Result<bool> {
        Ok(true)
    }

    fn elapsed_since(&self, start: &dyn EventImpl) -> Result<Duration> {
        same_device(self.device, start.device(), "elapsed time between events of different devices")?;
        let start = start.as_any().downcast_ref::<CpuEvent>().map(|e| e.at).unwrap_or(self.at);
        Ok(self.at.saturating_duration_since(start))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn same_device(a: DeviceId, b: DeviceId, what: &str) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(Error::InvalidConfig { reason: format!("{what} ({} and {})", a.kind, b.kind) })
    }
}

/// Threads in a launch from which an unoptimised CPU backend is noticeably slow.
const LARGE_LAUNCH_THREADS: u64 = 1 << 16;

/// Says once per process, on standard error, that the emulator runs unoptimised (cargo's dev
/// profile builds dependencies at `opt-level = 0`), which makes large launches 8 to 15 times
/// slower than in a release build (`cargo xtask bench-cpu`), and how to fix it.
fn unoptimized_notice(config: &LaunchConfig) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    let [g, b] = [config.grid.to_array(), config.block.to_array()];
    let threads = g.iter().chain(&b).map(|&d| d as u64).product::<u64>();
    if threads >= LARGE_LAUNCH_THREADS {
        ONCE.call_once(|| {
            eprintln!(
                "ptx-runtime: the CPU backend was built without optimisation (a dev build), so large launches run \
                 8 to 15 times slower than in a release build. To optimise just this crate in dev builds, add to your \
                 Cargo.toml:\n\n    [profile.dev.package.ptx-runtime]\n    opt-level = 3\n"
            );
        });
    }
}

/// An allocation in the CPU backend's global memory (zeroed by `CpuDevice::alloc`).
struct CpuMemory {
    backend: Arc<CpuBackend>,
    addr: u64,
}

impl MemoryImpl for CpuMemory {
    fn device(&self) -> DeviceId {
        self.backend.device_id()
    }

    fn address(&self) -> u64 {
        self.addr
    }

    fn write(&mut self, offset: usize, bytes: &[u8]) -> Result<()> {
        Ok(self.backend.device.write(self.addr + offset as u64, bytes)?)
    }

    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        Ok(self.backend.device.read(self.addr + offset as u64, out)?)
    }

    fn copy_from(&mut self, offset: usize, src: &dyn MemoryImpl, src_offset: usize, bytes: usize) -> Result<bool> {
        match src.as_any().downcast_ref::<CpuMemory>() {
            Some(s) if Arc::ptr_eq(&s.backend, &self.backend) => {
                self.backend.device.copy(self.addr + offset as u64, s.addr + src_offset as u64, bytes)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn launch_address<'a>(&'a self, _stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>) {
        (self.addr, None)
    }

    fn launch_address_mut<'a>(&'a mut self, _stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>) {
        (self.addr, None)
    }
}

impl Drop for CpuMemory {
    fn drop(&mut self) {
        let _ = self.backend.device.free(self.addr);
    }
}
