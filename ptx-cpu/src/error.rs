//! The emulator's error type: every failure — a malformed module, a bad launch, memory that
//! does not fit, an instruction it does not implement, a kernel that faults or fails an
//! assertion — is an `Err`, never a panic. `ptx-runtime` converts it into its own `Error`,
//! variant for variant.

use ptx_abi::launch::LaunchError;
use std::fmt;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong loading PTX, moving memory or running a kernel.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The emulated device memory cannot hold the allocation.
    OutOfMemory { requested: usize },
    /// The launch configuration was rejected before launching (e.g. more than 1024 threads per
    /// block, a zero dimension, too much shared memory, outside the kernel's launch bounds).
    InvalidConfig { reason: String },
    /// A memory operation does not fit (an address outside every allocation, a bad free).
    InvalidBuffer { reason: String },
    /// The PTX module did not load: the parser's message, with the line.
    PtxLoad { log: String },
    /// An instruction the emulator does not implement; never executed wrongly instead.
    Unsupported { instruction: String, line: usize },
    /// A kernel faulted while running.
    Fault(Fault),
    /// A device-side assertion failed (`__assertfail`): its message, file, line and function.
    Assert { message: String, file: String, line: u32, function: String },
}

/// Where and how a kernel faulted. The CPU backend fills in every field it knows; CUDA reports
/// only the error name, in `detail`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    /// The `.entry` symbol.
    pub kernel: String,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// The faulting address, for memory faults.
    pub address: Option<u64>,
    /// 1-based line in the PTX text.
    pub line: Option<usize>,
    /// Extra explanation (the access size and space, the allocation it missed, ...).
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FaultKind {
    /// An access outside every allocation (or outside shared/local memory).
    OutOfBounds,
    /// An access not aligned to its size.
    Misaligned,
    /// `bar.sync` not reached by every thread of the block.
    BarrierDivergence,
    /// Threads wait on each other forever.
    Deadlock,
    /// `trap` executed.
    Trap,
    /// Use of memory after `free`, or `free` of something not allocated.
    InvalidFree,
    /// A warp-synchronous instruction (`shfl.sync`, `vote.sync`, `bar.warp.sync`, ...) whose
    /// member mask leaves out the executing thread, or whose threads disagree on the mask.
    InvalidWarpSync,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaultKind::OutOfBounds => "out-of-bounds access",
            FaultKind::Misaligned => "misaligned access",
            FaultKind::BarrierDivergence => "barrier not reached by every thread of the block",
            FaultKind::Deadlock => "deadlock",
            FaultKind::Trap => "trap",
            FaultKind::InvalidFree => "invalid free",
            FaultKind::InvalidWarpSync => "invalid warp-synchronous instruction",
        })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(f, "{} in kernel `{}`, block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz})", self.kind, self.kernel)?;
        if let Some(a) = self.address {
            write!(f, ", address {a:#x}")?;
        }
        if let Some(l) = self.line {
            write!(f, ", PTX line {l}")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfMemory { requested } => write!(f, "out of device memory allocating {requested} bytes"),
            Error::InvalidConfig { reason } => write!(f, "invalid launch configuration: {reason}"),
            Error::InvalidBuffer { reason } => write!(f, "invalid buffer operation: {reason}"),
            Error::PtxLoad { log } => write!(f, "PTX failed to load:\n{log}"),
            Error::Unsupported { instruction, line } => {
                write!(f, "the CPU backend does not implement `{instruction}` (PTX line {line})")
            }
            Error::Fault(fault) => fault.fmt(f),
            Error::Assert { message, file, line, function } => {
                write!(f, "device assertion failed at {file}:{line} in {function}: {message}")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<LaunchError> for Error {
    fn from(e: LaunchError) -> Error {
        match e {
            LaunchError::InvalidConfig(reason) => Error::InvalidConfig { reason },
            LaunchError::PtxLoad(log) => Error::PtxLoad { log },
        }
    }
}
