//! CUDA streams behind the runtime's interface.

use super::event::CudaEventImpl;
use super::graph::CudaGraphImpl;
use super::memory::CudaMemory;
use super::{driver_error, CudaDevice};
use crate::backend::{DeviceImpl, EventImpl, GraphImpl, MemoryImpl, PinnedImpl, StreamImpl};
use crate::config::LaunchConfig;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use cudarc::driver::{sys, CudaStream, DevicePtr, DevicePtrMut};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// A cudarc stream and the device (context) it belongs to.
pub(crate) struct CudaStreamImpl {
    pub device: Arc<CudaDevice>,
    pub stream: Arc<CudaStream>,
    capture: Mutex<Option<Capture>>,
}

/// What a capture in progress keeps: the pinned memory its copies use.
///
/// cudarc's event tracking stays on for the context during a capture (it is shared by every
/// thread using the device); the capturing stream alone leaves it: its launches and copies take
/// the buffers' addresses as they are (`CudaMemory::ptr`), without waiting for or recording
/// events, since a capturing stream may not wait for an event recorded outside its capture.
struct Capture {
    pinned: Vec<Arc<dyn PinnedImpl>>,
}

impl CudaStreamImpl {
    pub fn new(device: Arc<CudaDevice>, stream: Arc<CudaStream>) -> CudaStreamImpl {
        CudaStreamImpl { device, stream, capture: Mutex::new(None) }
    }

    fn capture(&self) -> std::sync::MutexGuard<'_, Option<Capture>> {
        self.capture.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `pinned` alive with the graph if the stream is capturing; whether it is.
    fn keep(&self, pinned: &Arc<dyn PinnedImpl>) -> bool {
        match self.capture().as_mut() {
            Some(c) => {
                c.pinned.push(pinned.clone());
                true
            }
            None => false,
        }
    }
}

fn cuda_memory<'a>(mem: &'a dyn MemoryImpl, what: &str) -> Result<&'a CudaMemory> {
    mem.as_any().downcast_ref::<CudaMemory>().ok_or_else(|| Error::InvalidBuffer { reason: format!("{what}: a CPU backend buffer with a CUDA stream") })
}

impl StreamImpl for CudaStreamImpl {
    fn device(&self) -> Arc<dyn DeviceImpl> {
        self.device.clone()
    }

    fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(|e| driver_error("cuStreamSynchronize", e))
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn MemoryImpl>> {
        // A buffer asked for during a capture is made now, as on the CPU backend, not as a node
        // of the graph: on the device's own stream, which is not capturing, and waited for
        // there (the capturing stream cannot wait for work outside its capture). It is then
        // used on this stream like any other buffer of it.
        let capturing = self.is_capturing();
        let stream = if capturing { self.device.service_stream()?.clone() } else { self.stream.clone() };
        let slice = stream.alloc_zeros::<u8>(bytes).map_err(|e| match driver_error("cuMemAlloc", e) {
            Error::OutOfMemory { .. } => Error::OutOfMemory { requested: bytes },
            other => other,
        })?;
        if capturing {
            stream.synchronize().map_err(|e| driver_error("cuStreamSynchronize", e))?;
        }
        // The buffer's later reads and writes are ordered on this stream, as for any buffer.
        Ok(Box::new(CudaMemory::new(self.device.id(), self.stream.clone(), slice)))
    }

    fn launch(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()> {
        self.device.launch(&self.stream, kernel, config, params, false)
    }

    fn launch_cooperative(&self, kernel: &'static Kernel, config: &LaunchConfig, params: &[Vec<u8>]) -> Result<()> {
        self.device.launch(&self.stream, kernel, config, params, true)
    }

    fn copy_htod_async(&self, src: &Arc<dyn PinnedImpl>, src_offset: usize, dst: &mut dyn MemoryImpl, offset: usize, bytes: usize) -> Result<()> {
        if src_offset.checked_add(bytes).is_none_or(|end| end > src.bytes()) {
            return Err(Error::InvalidBuffer { reason: "copy_htod_async: outside the pinned allocation".into() });
        }
        let dst = dst.as_any_mut().downcast_mut::<CudaMemory>().ok_or_else(|| Error::InvalidBuffer { reason: "copy_htod_async: a CPU backend buffer with a CUDA stream".into() })?;
        let capturing = self.keep(src);
        self.stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let mut view = dst.slice.slice_mut(offset..offset + bytes);
        let (ptr, _record) = if capturing { (dst.ptr + offset as u64, None) } else { let (p, r) = view.device_ptr_mut(&self.stream); (p, Some(r)) };
        // SAFETY: both ranges are in bounds; the pinned memory lives until the copy has
        // finished (the typed layer waits for it, a graph keeps it alive).
        let status = unsafe { sys::cuMemcpyHtoDAsync_v2(ptr, src.as_ptr().add(src_offset) as *const std::ffi::c_void, bytes, self.stream.cu_stream()) };
        status.result().map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
    }

    fn copy_dtoh_async(&self, src: &dyn MemoryImpl, offset: usize, dst: &Arc<dyn PinnedImpl>, dst_offset: usize, bytes: usize) -> Result<()> {
        if dst_offset.checked_add(bytes).is_none_or(|end| end > dst.bytes()) {
            return Err(Error::InvalidBuffer { reason: "copy_dtoh_async: outside the pinned allocation".into() });
        }
        let src = cuda_memory(src, "copy_dtoh_async")?;
        let capturing = self.keep(dst);
        self.stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let view = src.slice.slice(offset..offset + bytes);
        let (ptr, _record) = if capturing { (src.ptr + offset as u64, None) } else { let (p, r) = view.device_ptr(&self.stream); (p, Some(r)) };
        // SAFETY: as in `copy_htod_async`; the typed layer gives the copy exclusive use of the
        // pinned range.
        let status = unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_ptr().add(dst_offset) as *mut std::ffi::c_void, ptr, bytes, self.stream.cu_stream()) };
        status.result().map_err(|e| driver_error("cuMemcpyDtoHAsync", e))
    }

    fn begin_capture(&self) -> Result<()> {
        let mut capture = self.capture();
        if capture.is_some() {
            return Err(Error::InvalidOperation { reason: "begin_capture on a stream that is already capturing".into() });
        }
        // Relaxed: a buffer allocated during the capture is made at once (`cuMemAlloc` on this
        // thread, outside the graph), which the thread-local and global modes refuse
        // (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, seen on an H200).
        self.stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED).map_err(|e| driver_error("cuStreamBeginCapture", e))?;
        *capture = Some(Capture { pinned: Vec::new() });
        Ok(())
    }

    fn end_capture(&self) -> Result<Box<dyn GraphImpl>> {
        let capture = self.capture().take();
        let capture = capture.ok_or_else(|| Error::InvalidOperation { reason: "end_capture on a stream that is not capturing".into() })?;
        let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
        let graph = graph.map_err(|e| driver_error("cuStreamEndCapture", e))?;
        let graph = graph.ok_or_else(|| Error::InvalidOperation { reason: "the capture recorded no graph".into() })?;
        Ok(Box::new(CudaGraphImpl { device: self.device.id(), graph: Mutex::new(graph), _pinned: capture.pinned }))
    }

    fn is_capturing(&self) -> bool {
        self.capture().is_some()
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

    fn alloc_array(&self, desc: &crate::backend::texture::ArrayDesc) -> Result<Box<dyn crate::backend::texture::ArrayImpl>> {
        super::texture::alloc_array(&self.device, &self.stream, desc)
    }

    fn alloc_mipmapped(&self, desc: &crate::backend::texture::ArrayDesc, levels: u32) -> Result<Box<dyn crate::backend::texture::MipmappedImpl>> {
        super::texture::alloc_mipmapped(&self.device, &self.stream, desc, levels)
    }

    fn create_texture(&self, resource: crate::backend::texture::TexResource<'_>, sampler: &ptx_cpu::texture::Sampler) -> Result<Box<dyn crate::backend::texture::ObjectImpl>> {
        super::texture::create_texture(&self.device, &self.stream, resource, sampler)
    }

    fn create_surface(&self, array: &dyn crate::backend::texture::ArrayImpl) -> Result<Box<dyn crate::backend::texture::ObjectImpl>> {
        super::texture::create_surface(&self.device, &self.stream, array)
    }
}

/// A stream of the runtime around a cudarc stream (interop).
pub(crate) fn from_cudarc(stream: Arc<CudaStream>) -> Arc<dyn StreamImpl> {
    let device = Arc::new(CudaDevice::from_context(stream.context().clone()));
    Arc::new(CudaStreamImpl::new(device, stream))
}
