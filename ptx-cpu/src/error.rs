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
    /// A device-side assertion failed (`__assertfail`): its message, file, line and function,
    /// and where in the launch it failed (`site`: the thread, the PTX line and, from the
    /// PTX's `.loc`, the source location with its column).
    Assert { message: String, file: String, line: u32, function: String, site: Option<Box<Site>> },
    /// Modules did not link: unresolved or duplicate symbols, declarations whose sizes differ
    /// from the definition's; one line per problem, naming the symbol and the modules.
    Link { log: String },
}

/// A place in the source, from the PTX's `.file`/`.loc` line information.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLoc {
    /// The file as the producer named it (nvcc: the path it compiled; `#[kernel]`: as rustc
    /// names it).
    pub file: String,
    pub line: u32,
    /// 1-based; 0 when the producer gave none.
    pub column: u32,
    /// For inlined code, the call it was inlined at.
    pub inlined_at: Option<Box<SourceLoc>>,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.column != 0 {
            write!(f, ":{}", self.column)?;
        }
        if let Some(at) = &self.inlined_at {
            write!(f, " (inlined at {at})")?;
        }
        Ok(())
    }
}

/// The thread and instruction a report is about (a failed assertion's).
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// The `.entry` symbol.
    pub kernel: String,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// 1-based line in the PTX text.
    pub line: Option<usize>,
    /// The source location of that line (`.loc`), when the PTX has line information.
    pub source: Option<SourceLoc>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(f, "kernel `{}`, block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz})", self.kernel)?;
        if let Some(l) = self.line {
            write!(f, ", PTX line {l}")?;
        }
        Ok(())
    }
}

/// How a failed assertion reads (shared with `ptx-runtime`'s error): the source location
/// first where the PTX has one, then the message, then the thread and PTX line.
#[doc(hidden)]
pub fn write_assert(f: &mut fmt::Formatter<'_>, message: &str, file: &str, line: u32, function: &str, site: Option<&Site>) -> fmt::Result {
    match site.and_then(|s| s.source.as_ref()) {
        Some(src) => write!(f, "{src}: device assertion failed in {function}: {message}")?,
        None if file.is_empty() => write!(f, "device assertion failed: {message}")?,
        None => write!(f, "device assertion failed at {file}:{line} in {function}: {message}")?,
    }
    if let Some(s) = site {
        write!(f, " ({s})")?;
    }
    Ok(())
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
    /// The source location of that line, from the PTX's `.loc` line information (nvcc
    /// `-lineinfo`, `#[kernel]`); `None` where the PTX has none. (Boxed: it keeps `Error`,
    /// which every step of the interpreter returns, small.)
    pub source: Option<Box<SourceLoc>>,
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
    /// Racecheck (a sanitizer): two threads of a block access the same memory, at least one
    /// of them writing, with no barrier between them.
    Race,
    /// Initcheck (a sanitizer): a read of device memory never written.
    Uninitialized,
    /// Leakcheck (a sanitizer): device `malloc` blocks of the launch still allocated at its end.
    Leak,
    /// A texture or surface instruction whose handle names no live object of the device
    /// (never created, destroyed, or an object of the other kind).
    InvalidHandle,
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
            FaultKind::Race => "data race",
            FaultKind::Uninitialized => "read of uninitialized memory",
            FaultKind::Leak => "device memory leak",
            FaultKind::InvalidHandle => "invalid texture or surface handle",
        })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        if let Some(src) = &self.source {
            write!(f, "{src}: ")?;
        }
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
            Error::Assert { message, file, line, function, site } => write_assert(f, message, file, *line, function, site.as_deref()),
            Error::Link { log } => write!(f, "PTX modules did not link:\n{log}"),
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
