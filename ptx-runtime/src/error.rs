//! The runtime's one error type. Every failure — no driver, no device, out of memory, a bad
//! launch configuration, PTX that does not load, a kernel that faults — is an `Err`, never a
//! panic.

use std::fmt;

/// Where and how a kernel faulted, and the kinds of fault (the CPU emulator's types, which
/// CUDA's reports fill in as far as they go).
pub use ptx_cpu::{Fault, FaultKind, Site, SourceLoc};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong on the host side of a launch or a transfer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver library could be loaded (`libcuda.so` / `nvcuda.dll`).
    NoDriver { detail: String },
    /// The driver has no device with this ordinal.
    NoDevice { ordinal: usize, count: usize },
    /// Device memory is exhausted.
    OutOfMemory { requested: usize },
    /// The host cannot provide this much page-locked memory (`available`: the host's
    /// physical memory, where known).
    OutOfHostMemory { requested: usize, available: Option<u64> },
    /// An operation the object's state does not allow: ending a capture that was not begun, a
    /// graph launched on another device's stream or replayed after a buffer it uses was dropped.
    InvalidOperation { reason: String },
    /// The launch configuration was rejected before launching (e.g. more than 1024 threads per
    /// block, a zero dimension, too much shared memory).
    InvalidConfig { reason: String },
    /// A buffer operation does not fit (lengths differ, range out of bounds).
    InvalidBuffer { reason: String },
    /// The PTX module did not load: the JIT's error log (CUDA) or the parser's message (CPU).
    PtxLoad { log: String },
    /// An instruction the CPU backend does not implement; never executed wrongly instead.
    Unsupported { instruction: String, line: usize },
    /// A kernel faulted while running.
    Fault(Fault),
    /// A device-side check failed (`assert!`, `panic!`, a failed bounds check): Rust's message,
    /// file, line and function, on both backends (reported through the function's slot,
    /// `ptx_abi::report`). On CUDA the context is unusable afterwards (a trap is sticky), and a
    /// `debug` kernel's `__assertfail` is reported without its details (`file` empty, `line` 0:
    /// the driver prints them to stdout). `site` (CPU backend) is the failing thread and PTX
    /// line, with the check's source location and column.
    Assert { message: String, file: String, line: u32, function: String, site: Option<Box<Site>> },
    /// Modules did not link ([`Linker`](crate::Linker)): unresolved, duplicate or mismatched
    /// symbols, one per line (CPU backend), or the driver linker's log (CUDA).
    Link { log: String },
    /// Any other CUDA driver error: the call, CUDA's error name and message.
    Cuda { call: &'static str, name: String, message: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver { detail } => write!(f, "no CUDA driver: {detail}"),
            Error::NoDevice { ordinal, count } => write!(f, "no CUDA device {ordinal} (the driver reports {count})"),
            Error::OutOfMemory { requested } => write!(f, "out of device memory allocating {requested} bytes"),
            Error::OutOfHostMemory { requested, available: Some(a) } => {
                write!(f, "out of host memory allocating {requested} bytes of page-locked memory (the host has {a} bytes)")
            }
            Error::OutOfHostMemory { requested, available: None } => write!(f, "out of host memory allocating {requested} bytes of page-locked memory"),
            Error::InvalidOperation { reason } => write!(f, "invalid operation: {reason}"),
            Error::InvalidConfig { reason } => write!(f, "invalid launch configuration: {reason}"),
            Error::InvalidBuffer { reason } => write!(f, "invalid buffer operation: {reason}"),
            Error::PtxLoad { log } => write!(f, "PTX failed to load:\n{log}"),
            Error::Unsupported { instruction, line } => {
                write!(f, "the CPU backend does not implement `{instruction}` (PTX line {line})")
            }
            Error::Fault(fault) => fault.fmt(f),
            Error::Assert { message, file, line, function, site } => ptx_cpu::write_assert(f, message, file, *line, function, site.as_deref()),
            Error::Link { log } => write!(f, "modules did not link:\n{log}"),
            Error::Cuda { call, name, message } => write!(f, "{call} failed: {name}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// A launch the limits table refuses (`ptx_abi::launch`).
impl From<ptx_abi::launch::LaunchError> for Error {
    fn from(e: ptx_abi::launch::LaunchError) -> Error {
        match e {
            ptx_abi::launch::LaunchError::InvalidConfig(reason) => Error::InvalidConfig { reason },
            ptx_abi::launch::LaunchError::PtxLoad(log) => Error::PtxLoad { log },
        }
    }
}

/// The CPU emulator's errors are this crate's, variant for variant.
impl From<ptx_cpu::Error> for Error {
    fn from(e: ptx_cpu::Error) -> Error {
        use ptx_cpu::Error as E;
        match e {
            E::OutOfMemory { requested } => Error::OutOfMemory { requested },
            E::InvalidConfig { reason } => Error::InvalidConfig { reason },
            E::InvalidBuffer { reason } => Error::InvalidBuffer { reason },
            E::PtxLoad { log } => Error::PtxLoad { log },
            E::Unsupported { instruction, line } => Error::Unsupported { instruction, line },
            E::Fault(f) => Error::Fault(f),
            E::Assert { message, file, line, function, site } => Error::Assert { message, file, line, function, site },
            E::Link { log } => Error::Link { log },
            // `Error` is non-exhaustive for the emulator's future variants; none exists today.
            #[allow(unreachable_patterns)]
            other => Error::InvalidConfig { reason: other.to_string() },
        }
    }
}
