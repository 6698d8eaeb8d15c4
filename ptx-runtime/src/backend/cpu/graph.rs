//! Graphs on the CPU backend: while a stream captures, its launches and asynchronous copies
//! are recorded as [`Op`]s instead of running; a replay runs them in order, as the stream would
//! have.

use super::{CpuBackend, CpuMemory};
use crate::backend::{DeviceId, GraphImpl, MemoryImpl, PinnedImpl, StreamImpl};
use crate::config::LaunchConfig;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::cpu::Sanitizers;
use std::sync::Arc;

/// One operation of a CPU stream, run at once or recorded.
pub(crate) enum Op {
    /// `sanitizers`: the issuing stream's own, if it has them.
    Launch { kernel: &'static Kernel, config: LaunchConfig, params: Vec<Vec<u8>>, sanitizers: Option<Sanitizers> },
    ToDevice { src: Arc<dyn PinnedImpl>, src_offset: usize, dst: u64, bytes: usize },
    ToHost { src: u64, dst: Arc<dyn PinnedImpl>, dst_offset: usize, bytes: usize },
}

impl CpuBackend {
    /// Runs `op` now.
    pub(crate) fn run(&self, op: &Op) -> Result<()> {
        match op {
            Op::Launch { kernel, config, params, sanitizers } => self.launch_now(kernel, config, params, *sanitizers),
            Op::ToDevice { src, src_offset, dst, bytes } => Ok(self.device.write(*dst, super::pinned::bytes(&**src, *src_offset, *bytes)?)?),
            Op::ToHost { src, dst, dst_offset, bytes } => Ok(self.device.read(*src, super::pinned::bytes_mut(&**dst, *dst_offset, *bytes)?)?),
        }
    }
}

/// The address of byte `offset` of a CPU backend allocation of `backend`.
pub(crate) fn address(backend: &Arc<CpuBackend>, mem: &dyn MemoryImpl, offset: usize) -> Result<u64> {
    match mem.as_any().downcast_ref::<CpuMemory>() {
        Some(m) if Arc::ptr_eq(&m.backend, backend) => Ok(m.addr + offset as u64),
        _ => Err(Error::InvalidBuffer { reason: "an asynchronous copy between a stream and a buffer of different devices".into() }),
    }
}

/// A recorded sequence of operations.
pub(crate) struct CpuGraph {
    pub backend: Arc<CpuBackend>,
    pub ops: Vec<Op>,
}

impl GraphImpl for CpuGraph {
    fn device(&self) -> DeviceId {
        self.backend.device_id()
    }

    fn launch(&self, stream: &dyn StreamImpl) -> Result<()> {
        if stream.device().id() != self.device() {
            return Err(Error::InvalidOperation { reason: "a graph launched on a stream of another device".into() });
        }
        self.ops.iter().try_for_each(|op| self.backend.run(op))
    }
}
