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

/// What a capture in progress keeps: the pinned memory its copies use, and whether cudarc's
/// event tracking was on (it is off during a capture: a capturing stream may not wait for an
/// event recorded outside it).
struct Capture {
    pinned: Vec<Arc<dyn PinnedImpl>>,
    tracking: bool,
}

impl CudaStreamImpl {
    pub fn new(device: Arc<CudaDevice>, stream: Arc<CudaStream>) -> CudaStreamImpl {
        CudaStreamImpl { device, stream, capture: Mutex::new(None) }
    }

    fn capture(&self) -> std::sync::MutexGuard<'_, Option<Capture>> {
        self.capture.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn keep(&self, pinned: &Arc<dyn PinnedImpl>) {
        if let Some(c) = self.capture().as_mut() {
            c.pinned.push(pinned.clone());
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
        let slice = self.stream.alloc_zeros::<u8>(bytes).map_err(|e| match driver_error("cuMemAlloc", e) {
            Error::OutOfMemory { .. } => Error::OutOfMemory { requested: bytes },
            other => other,
        })?;
        Ok(Box::new(CudaMemory { device: self.device.id(), stream: self.stream.clone(), slice }))
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
        self.keep(src);
        self.stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let mut view = dst.slice.slice_mut(offset..offset + bytes);
        let (ptr, _record) = view.device_ptr_mut(&self.stream);
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
        self.keep(dst);
        self.stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let view = src.slice.slice(offset..offset + bytes);
        let (ptr, _record) = view.device_ptr(&self.stream);
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
        let ctx = self.stream.context();
        let tracking = ctx.is_event_tracking();
        if tracking {
            // SAFETY: turned back on by `end_capture`; while it is off, the buffers' uses on
            // the capturing stream are recorded into the graph (nothing runs), so no ordering
            // against other streams is lost for them.
            unsafe { ctx.disable_event_tracking() };
        }
        if let Err(e) = self.stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) {
            if tracking {
                // SAFETY: restores the setting found above.
                unsafe { ctx.enable_event_tracking() };
            }
            return Err(driver_error("cuStreamBeginCapture", e));
        }
        *capture = Some(Capture { pinned: Vec::new(), tracking });
        Ok(())
    }

    fn end_capture(&self) -> Result<Box<dyn GraphImpl>> {
        let capture = self.capture().take();
        let capture = capture.ok_or_else(|| Error::InvalidOperation { reason: "end_capture on a stream that is not capturing".into() })?;
        let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
        if capture.tracking {
            // SAFETY: restores the setting `begin_capture` found.
            unsafe { self.stream.context().enable_event_tracking() };
        }
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
