//! The `cust` feature (docs/cust.md): cust's device buffers and slices as kernel arguments,
//! and launches ordered on a `cust::stream::Stream`.
//!
//! cust 0.3 works in the device's primary context, the one the CUDA backend uses, so a cust
//! allocation is an ordinary device address there. A cust stream cannot be wrapped as a
//! runtime stream without tying a borrowed handle to every buffer allocated on it, so
//! [`Stream::on_cust`] runs the work on a stream of its own, fenced by events on both sides:
//! it starts after everything queued on the cust stream so far, and everything queued on the
//! cust stream afterwards waits for it, which is what launching on the cust stream means.

use super::{driver_error, interop::launch_stream};
use crate::arg::{Args, KernelArg};
use crate::error::{Error, Result};
use crate::repr::DeviceRepr;
use crate::stream::Stream;
use cudarc::driver::{sys, CudaContext, CudaStream};
use cust::memory::{DeviceBuffer as CustBuffer, DeviceCopy, DeviceSlice as CustSlice};
use std::sync::Arc;

impl Stream {
    /// Runs `work` on a runtime stream ordered on `cust_stream`: what `work` enqueues (kernel
    /// launches, copies) starts after everything already queued on `cust_stream`, and work
    /// queued on `cust_stream` afterwards waits for it. The host does not wait. `Err` when the
    /// cust stream is not in a device's primary context (cust's legacy contexts).
    pub fn on_cust<R>(cust_stream: &cust::stream::Stream, work: impl FnOnce(&Stream) -> Result<R>) -> Result<R> {
        let theirs = cust_stream.as_inner() as sys::CUstream;
        let ctx = primary_context_of(theirs)?;
        let ours = ctx.new_stream().map_err(|e| driver_error("cuStreamCreate", e))?;
        fence(theirs, &ours, true)?;
        let result = work(&Stream::from_cuda(ours.clone()));
        // Fenced even after an error, so nothing `work` enqueued escapes the cust stream's order.
        fence(theirs, &ours, false)?;
        fence_into(ours.cu_stream(), theirs)?;
        result
    }
}

/// The primary context a raw stream belongs to, as the cudarc context the runtime uses.
fn primary_context_of(stream: sys::CUstream) -> Result<Arc<CudaContext>> {
    let mut cu_ctx = std::ptr::null_mut();
    // SAFETY: `stream` is a live stream handle owned by the cust `Stream` borrowed by the caller.
    unsafe { sys::cuStreamGetCtx(stream, &mut cu_ctx) }.result().map_err(|e| driver_error("cuStreamGetCtx", e))?;
    let count = CudaContext::device_count().map_err(|e| driver_error("cuDeviceGetCount", e))?;
    for ordinal in 0..count.max(0) as usize {
        let ctx = CudaContext::new(ordinal).map_err(|e| driver_error("cuDevicePrimaryCtxRetain", e))?;
        if ctx.cu_ctx() == cu_ctx {
            return Ok(ctx);
        }
    }
    Err(Error::InvalidOperation { reason: "the cust stream is not in a device's primary context (a cust legacy context?): create it after `cust::quick_init()` or `cust::context::Context::new`".into() })
}

/// Makes `waiter` wait for the work queued on `signaller` so far (an event recorded there).
fn fence_into(signaller: sys::CUstream, waiter: sys::CUstream) -> Result<()> {
    let mut event = std::ptr::null_mut();
    // SAFETY: both streams are live in the current context (bound by `fence`); the event is
    // created, recorded, waited on and destroyed here (the driver frees it once it completes).
    unsafe {
        sys::cuEventCreate(&mut event, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result().map_err(|e| driver_error("cuEventCreate", e))?;
        let recorded = sys::cuEventRecord(event, signaller).result().map_err(|e| driver_error("cuEventRecord", e));
        let waited = recorded.and_then(|_| sys::cuStreamWaitEvent(waiter, event, 0).result().map_err(|e| driver_error("cuStreamWaitEvent", e)));
        let _ = sys::cuEventDestroy_v2(event);
        waited
    }
}

/// Binds `ours`'s context, then (when `into_ours`) makes `ours` wait for `theirs`.
fn fence(theirs: sys::CUstream, ours: &Arc<CudaStream>, into_ours: bool) -> Result<()> {
    ours.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
    if into_ours {
        fence_into(theirs, ours.cu_stream())?;
    }
    Ok(())
}

/// The device address of a cust slice, checked to live in the launch's context.
fn cust_address<T: DeviceCopy>(args: &Args<'_>, slice: &CustSlice<T>) -> Result<u64> {
    let stream = launch_stream(args).map_err(|_| Error::InvalidBuffer { reason: "a cust buffer can only be passed to a launch on a CUDA stream".into() })?;
    let address = slice.as_device_ptr().as_raw();
    if slice.len() == 0 {
        return Ok(address);
    }
    let mut owner: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: the attribute is a `CUcontext` written into `owner`; `address` is a device
    // address cust allocated.
    let status = unsafe {
        sys::cuPointerGetAttribute(&mut owner as *mut sys::CUcontext as *mut std::ffi::c_void, sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_CONTEXT, address)
    };
    status.result().map_err(|e| driver_error("cuPointerGetAttribute", e))?;
    if owner != stream.context().cu_ctx() {
        return Err(Error::InvalidBuffer { reason: "a cust buffer passed to a kernel lives on a different device than the launch's stream".into() });
    }
    Ok(address)
}

impl<T: DeviceRepr + DeviceCopy> KernelArg<&'static [T]> for &CustSlice<T> {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        let address = cust_address(args, self)?;
        args.push_view(address, self.len());
        Ok(())
    }
}

impl<T: DeviceRepr + DeviceCopy> KernelArg<&'static mut [T]> for &mut CustSlice<T> {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        let address = cust_address(args, self)?;
        args.push_view(address, self.len());
        Ok(())
    }
}

impl<T: DeviceRepr + DeviceCopy> KernelArg<&'static [T]> for &CustBuffer<T> {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        <&CustSlice<T> as KernelArg<&'static [T]>>::push(self, args)
    }
}

impl<T: DeviceRepr + DeviceCopy> KernelArg<&'static mut [T]> for &mut CustBuffer<T> {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        <&mut CustSlice<T> as KernelArg<&'static mut [T]>>::push(self, args)
    }
}
