//! The one interface between the user-facing types and a backend.
//!
//! [`Device`](crate::Device), [`Stream`](crate::Stream), [`DeviceBuffer`](crate::DeviceBuffer)
//! and [`Args`](crate::Args) are backend-neutral: each holds a trait object from here and
//! never asks which backend it is. A backend implements three traits:
//!
//! ```text
//! DeviceImpl   a device: its name, heap, module cache, streams
//! StreamImpl   an ordered queue: allocations, launches, events, synchronisation
//! MemoryImpl   one allocation: reads, writes, its address for a launch
//! EventImpl    a point in a stream's work: completion, timing
//! PinnedImpl   page-locked host memory, the source or target of asynchronous copies
//! GraphImpl    a captured sequence of a stream's work, replayed on a stream
//! ArrayImpl    a CUDA array; MipmappedImpl a mipmapped one; ObjectImpl a texture or surface object (texture.rs)
//! ```
//!
//! The CUDA backend implements them in `cuda/`; the CPU backend (`cpu/`, a PTX emulator with
//! its own API) through the adapter in [`cpu`]. Nothing outside those two places names a
//! backend, except the cudarc interop calls, which ask `cuda/` for the cudarc object behind a
//! trait object ([`StreamImpl::as_any`]).

pub(crate) mod cpu;
pub(crate) mod texture;

use crate::config::LaunchConfig;
use crate::properties::DeviceProperties;
use crate::error::Result;
use crate::kernel::Kernel;
use ptx_cpu::Sanitizers;
use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Which backend a [`Device`](crate::Device) runs kernels on.
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

/// Which device an object belongs to: equal for objects of the same device (the same CUDA
/// context, the same CPU device), different otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DeviceId {
    pub kind: BackendKind,
    pub id: u64,
}

/// A device.
pub(crate) trait DeviceImpl: Send + Sync {
    fn id(&self) -> DeviceId;
    fn name(&self) -> String;
    fn properties(&self) -> Result<DeviceProperties>;
    /// Whether kernels on this device can read and write `peer`'s memory directly.
    fn can_access_peer(&self, peer: &dyn DeviceImpl) -> Result<bool>;
    /// Lets kernels on this device access `peer`'s memory; `Err` where it cannot.
    fn enable_peer_access(&self, peer: &dyn DeviceImpl) -> Result<()>;
    /// The backend's own device object.
    fn as_any(&self) -> &dyn Any;
    /// Waits for all work on the device.
    fn synchronize(&self) -> Result<()>;
    /// The JIT's informational log for `kernel`'s module, loading it; `None` where there is no
    /// JIT.
    fn jit_info_log(&self, kernel: &'static Kernel) -> Result<Option<String>>;
    fn set_heap_size(&self, bytes: usize) -> Result<()>;
    fn heap_size(&self) -> Result<usize>;
    fn modules_loaded(&self) -> usize;
    /// How many blocks of `kernel` one SM holds at once with `block_threads` threads and
    /// `dynamic_shared` bytes of dynamic shared memory per block; `Err` for a block size or
    /// shared memory no launch could have.
    fn max_active_blocks_per_sm(&self, kernel: &'static Kernel, block_threads: u32, dynamic_shared: u32) -> Result<u32>;
    /// The block size that keeps the most threads of `kernel` resident per SM, and the grid
    /// that fills every SM with it: `(block_threads, min_grid)`.
    fn max_potential_block_size(&self, kernel: &'static Kernel, dynamic_shared: u32) -> Result<(u32, u32)>;
    /// The device's default stream.
    fn default_stream(self: Arc<Self>) -> Arc<dyn StreamImpl>;
    /// A new stream, whose work may overlap other streams'.
    fn new_stream(self: Arc<Self>) -> Result<Arc<dyn StreamImpl>>;
    /// The stream priorities the device has, as CUDA numbers them: `(least, greatest)`, the
    /// greatest priority being the smallest number.
    fn stream_priority_range(&self) -> Result<(i32, i32)>;
    /// A new stream of `priority`, which is within [`stream_priority_range`](Self::stream_priority_range).
    fn new_stream_with_priority(self: Arc<Self>, priority: i32) -> Result<Arc<dyn StreamImpl>>;
    /// Switches the CPU backend's sanitizers for the device's launches; elsewhere turning
    /// them off is a no-op and turning them on an error (a GPU runs `compute-sanitizer`).
    fn set_sanitizers(&self, sanitizers: Sanitizers) -> Result<()> {
        no_sanitizers(sanitizers)
    }
    /// `bytes` (at least one) zeroed bytes of page-locked host memory; `Err(OutOfHostMemory)`
    /// where the host cannot provide them.
    fn alloc_pinned(&self, bytes: usize) -> Result<Arc<dyn PinnedImpl>>;
    /// Whether the device can launch cooperative kernels (`cuLaunchCooperativeKernel`).
    fn supports_cooperative_launch(&self) -> Result<bool>;
    /// Links the inputs into one module, which the kernels among them launch in from then on;
    /// the linked PTX where there is one ([`crate::Linker`]).
    fn link(&self, inputs: &[crate::link::LinkInput]) -> Result<Option<String>>;
}

/// What a backend without the CPU sanitizers answers.
fn no_sanitizers(sanitizers: Sanitizers) -> Result<()> {
    if !sanitizers.any() {
        return Ok(());
    }
    Err(crate::Error::InvalidConfig {
        reason: format!(
            "the sanitizers ({sanitizers}) run on the CPU backend; on a GPU run the program under NVIDIA's compute-sanitizer (--tool racecheck, initcheck, synccheck, or memcheck --leak-check full)"
        ),
    })
}

/// An ordered queue of work on one device.
pub(crate) trait StreamImpl: Send + Sync {
    fn device(&self) -> Arc<dyn DeviceImpl>;
    /// Waits for everything queued; reports a kernel that failed.
    fn synchronize(&self) -> Result<()>;
    /// Allocates `bytes` (at least one) zeroed bytes, ordered on this stream.
    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn MemoryImpl>>;
    /// Enqueues a launch whose configuration has passed [`LaunchConfig::validate`]; `params`
    /// are the parameters' bytes, each exactly as the ABI lays it out.
    fn launch(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()>;
    /// Records the work queued so far into a new event.
    fn record_event(&self) -> Result<Arc<dyn EventImpl>>;
    /// Makes later work on this stream wait for `event`'s work (an event of the same device).
    fn wait_event(&self, event: &dyn EventImpl) -> Result<()>;
    /// Allocates `bytes` (at least one) bytes with no initial contents, as `cudaMalloc`
    /// does; a backend that cannot tell them from zeroed ones gives zeroed ones.
    fn alloc_uninit(&self, bytes: usize) -> Result<Box<dyn MemoryImpl>> {
        self.alloc_zeroed(bytes)
    }
    /// The sanitizers of this stream's launches (`None`: the device's); see
    /// [`DeviceImpl::set_sanitizers`].
    fn set_sanitizers(&self, sanitizers: Option<Sanitizers>) -> Result<()> {
        no_sanitizers(sanitizers.unwrap_or_default())
    }
    /// The backend's own stream object, for interop (CUDA: the cudarc `Arc<CudaStream>`).
    fn as_any(&self) -> &dyn Any;
    /// Enqueues a cooperative launch (`cuLaunchCooperativeKernel`): every block of the grid is
    /// resident at once and the kernel finds the grid's barrier workspace in `%envreg1:2`. The
    /// caller has checked co-residency.
    fn launch_cooperative(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()>;
    /// Enqueues a copy of `bytes` bytes from `src` at `src_offset` to `dst` at `offset` (both
    /// in bounds); it may still run when this returns. The host memory stays alive as long as
    /// the `Arc` (a capture keeps a clone); keeping the host from touching it until the copy
    /// has finished is the caller's part (`PinnedBuffer` waits for the events it records).
    fn copy_htod_async(&self, src: &Arc<dyn PinnedImpl>, src_offset: usize, dst: &mut dyn MemoryImpl, offset: usize, bytes: usize) -> Result<()>;
    /// As [`copy_htod_async`](Self::copy_htod_async), from the device to host memory.
    fn copy_dtoh_async(&self, src: &dyn MemoryImpl, offset: usize, dst: &Arc<dyn PinnedImpl>, dst_offset: usize, bytes: usize) -> Result<()>;
    /// Starts recording the work queued on this stream into a graph instead of running it.
    fn begin_capture(&self) -> Result<()>;
    /// Ends the recording and instantiates what was recorded.
    fn end_capture(&self) -> Result<Box<dyn GraphImpl>>;
    /// Whether the stream is recording (between `begin_capture` and `end_capture`).
    fn is_capturing(&self) -> bool;
    /// A CUDA array (`cuArray3DCreate`) of this stream's device, its copies ordered on it.
    fn alloc_array(&self, desc: &texture::ArrayDesc) -> Result<Box<dyn texture::ArrayImpl>>;
    /// A mipmapped array of `levels` levels, level 0 of `desc` (`cuMipmappedArrayCreate`).
    fn alloc_mipmapped(&self, desc: &texture::ArrayDesc, levels: u32) -> Result<Box<dyn texture::MipmappedImpl>>;
    /// A texture object over a resource of this stream's device (`cuTexObjectCreate`).
    fn create_texture(&self, resource: texture::TexResource<'_>, sampler: &ptx_cpu::texture::Sampler) -> Result<Box<dyn texture::ObjectImpl>>;
    /// A surface object over an array of this stream's device (`cuSurfObjectCreate`).
    fn create_surface(&self, array: &dyn texture::ArrayImpl) -> Result<Box<dyn texture::ObjectImpl>>;
}

/// Page-locked host memory: CUDA's `cuMemHostAlloc` (portable, so every context's streams copy
/// from and to it asynchronously), ordinary aligned host memory on the CPU backend. Freed when
/// the last `Arc` goes.
pub(crate) trait PinnedImpl: Send + Sync {
    /// The first of [`bytes`](Self::bytes) bytes, zeroed at allocation, valid while `self` lives.
    fn as_ptr(&self) -> *mut u8;
    fn bytes(&self) -> usize;
}

/// An instantiated graph: the launches and copies a stream recorded, replayed as one unit.
pub(crate) trait GraphImpl: Send + Sync {
    fn device(&self) -> DeviceId;
    /// Enqueues one replay on `stream` (a stream of the same device).
    fn launch(&self, stream: &dyn StreamImpl) -> Result<()>;
}

/// Keeps a launch's use of an allocation ordered before later work on other streams, for as
/// long as the launch's arguments live (CUDA: cudarc's event guard).
pub(crate) trait LaunchGuard {}
impl<T> LaunchGuard for T {}

/// A device allocation. Dropping it frees it (ordered after the work queued on its stream).
pub(crate) trait MemoryImpl: Send + Sync {
    fn device(&self) -> DeviceId;
    /// The device address of byte 0.
    fn address(&self) -> u64;
    /// Copies `bytes` to byte `offset` (in bounds).
    fn write(&mut self, offset: usize, bytes: &[u8]) -> Result<()>;
    /// Copies bytes from `offset` into `out` (in bounds), after the work queued before.
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()>;
    /// Copies `bytes` from `src` at `src_offset` to `offset` (both in bounds) without the
    /// host, where the backend can (same device, or CUDA peers); `Ok(false)` where it cannot,
    /// and the caller copies through the host.
    fn copy_from(&mut self, offset: usize, src: &dyn MemoryImpl, src_offset: usize, bytes: usize) -> Result<bool>;
    /// The backend's own allocation object.
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The address for a launch on `stream` that reads the allocation, and what orders the
    /// launch against other streams.
    fn launch_address<'a>(&'a self, stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>);
    /// As [`launch_address`](MemoryImpl::launch_address), for a launch that writes it.
    fn launch_address_mut<'a>(&'a mut self, stream: &'a dyn StreamImpl) -> (u64, Option<Box<dyn LaunchGuard + 'a>>);
}

/// The work a stream had queued when the event was recorded.
pub(crate) trait EventImpl: Send + Sync {
    fn device(&self) -> DeviceId;
    /// Waits until the recorded work has finished.
    fn synchronize(&self) -> Result<()>;
    /// Whether the recorded work has finished, without waiting.
    fn is_complete(&self) -> Result<bool>;
    /// The time from `start` (an event of the same device) to this one, once both finished.
    fn elapsed_since(&self, start: &dyn EventImpl) -> Result<Duration>;
    /// The backend's own event object.
    fn as_any(&self) -> &dyn Any;
}
