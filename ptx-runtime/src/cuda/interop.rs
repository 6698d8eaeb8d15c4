//! cudarc interop: a runtime [`Stream`] around a cudarc stream and back, and cudarc's
//! `CudaSlice<T>` as a kernel argument on a CUDA stream.

use super::{as_cudarc, stream::from_cudarc};
use crate::arg::{Args, KernelArg};
use crate::error::{Error, Result};
use crate::repr::DeviceRepr;
use crate::stream::Stream;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use std::sync::Arc;

impl Stream {
    /// Wraps a cudarc stream, to share work with code that uses cudarc directly.
    pub fn from_cuda(stream: Arc<CudaStream>) -> Stream {
        Stream::wrap(from_cudarc(stream))
    }

    /// The cudarc stream underneath, on the CUDA backend.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        as_cudarc(&*self.inner)
    }
}

/// The cudarc stream of the launch `args` are for; a `CudaSlice` cannot go anywhere else.
pub(super) fn launch_stream<'a>(args: &Args<'a>) -> Result<&'a Arc<CudaStream>> {
    let stream: &'a Stream = args.stream;
    stream.cuda_stream().ok_or_else(|| Error::InvalidBuffer { reason: "a cudarc `CudaSlice` can only be passed to a launch on a CUDA stream".into() })
}

impl<T: DeviceRepr> KernelArg<&'static [T]> for &CudaSlice<T> {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        let stream = launch_stream(args)?;
        let (ptr, guard) = self.device_ptr(stream);
        args.guards.push(Box::new(guard));
        args.push_view(ptr, self.len());
        Ok(())
    }
}

impl<T: DeviceRepr> KernelArg<&'static mut [T]> for &mut CudaSlice<T> {
    fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
    where
        Self: 'a,
    {
        let stream = launch_stream(args)?;
        let len = self.len();
        let (ptr, guard) = self.device_ptr_mut(stream);
        args.guards.push(Box::new(guard));
        args.push_view(ptr, len);
        Ok(())
    }
}
