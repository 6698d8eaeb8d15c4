//! CUDA graphs from stream capture (cudarc's `begin_capture` / `end_capture`), replayed with
//! `cuGraphLaunch` on any stream of the same context.

use super::driver_error;
use crate::backend::{DeviceId, GraphImpl, PinnedImpl, StreamImpl};
use crate::error::{Error, Result};
use cudarc::driver::{result, CudaGraph};
use std::sync::{Arc, Mutex};

pub(crate) struct CudaGraphImpl {
    pub device: DeviceId,
    /// Graph objects are not internally synchronised: one replay is enqueued at a time.
    pub graph: Mutex<CudaGraph>,
    /// The pinned memory the graph's copies use, alive as long as the graph.
    pub _pinned: Vec<Arc<dyn PinnedImpl>>,
}

// SAFETY: the graph's handles are used only under the mutex (CUDA requires graph calls to be
// serialised, not confined to a thread).
unsafe impl Send for CudaGraphImpl {}
unsafe impl Sync for CudaGraphImpl {}

impl GraphImpl for CudaGraphImpl {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn launch(&self, stream: &dyn StreamImpl) -> Result<()> {
        let s = super::as_cudarc(stream).ok_or_else(|| Error::InvalidOperation { reason: "a CUDA graph launched on a CPU backend stream".into() })?;
        let graph = self.graph.lock().unwrap_or_else(|e| e.into_inner());
        s.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // SAFETY: the executable graph belongs to this context (checked by the caller) and
        // lives while the lock is held; the launch is ordered on `s`.
        unsafe { result::graph::launch(graph.cu_graph_exec(), s.cu_stream()) }.map_err(|e| driver_error("cuGraphLaunch", e))
    }
}
