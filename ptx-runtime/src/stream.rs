//! Streams: ordered queues of copies and launches on one device.
//!
//! Launching is in `launch.rs` (`Stream::launch_kernel`), next to the arguments it takes; the
//! cudarc interop (`Stream::from_cuda`, `cuda_stream`) in `cuda/interop.rs`.

use crate::backend::StreamImpl;
use crate::devices::Device;
use crate::error::Result;
use crate::capture::Keep;
use std::sync::{Arc, Mutex};

/// A stream on a device. Cheap to clone.
///
/// On CUDA, launches and copies are queued and run in order; reading results back
/// ([`DeviceBuffer::to_vec`](crate::DeviceBuffer::to_vec)) waits for them. On the CPU backend
/// every operation completes before it returns.
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<dyn StreamImpl>,
    /// While this stream captures a graph: what the graph will need alive (shared by clones).
    pub(crate) capture: Arc<Mutex<Option<Keep>>>,
}

impl Device {
    /// The device's default stream.
    pub fn stream(&self) -> Stream {
        Stream::wrap(self.inner.clone().default_stream())
    }

    /// A new stream: work on different streams may overlap.
    pub fn new_stream(&self) -> Result<Stream> {
        Ok(Stream::wrap(self.inner.clone().new_stream()?))
    }
}

impl Stream {
    pub(crate) fn wrap(inner: Arc<dyn StreamImpl>) -> Stream {
        Stream { inner, capture: Arc::new(Mutex::new(None)) }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> Device {
        Device { inner: self.inner.device() }
    }

    /// Waits for everything queued on this stream; reports a kernel that failed.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }
}
