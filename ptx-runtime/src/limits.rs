//! Launch limits: the one table both backends check a launch against (`ptx_abi::launch`, which
//! the CPU emulator uses too), with its refusals as this crate's [`Error`].

use crate::error::{Error, Result};
pub use ptx_abi::launch::{max_shared_opt_in, sm_limits, SmLimits, DEFAULT_MAX_SHARED_BYTES, SM_LIMITS, MAX_BLOCK, MAX_GRID, MAX_SHARED_BYTES_ANY_ARCH, MAX_THREADS_PER_BLOCK, SHARED_OPT_IN};
use ptx_abi::launch::{self, LaunchBounds, LaunchError};

impl From<LaunchError> for Error {
    fn from(e: LaunchError) -> Error {
        match e {
            LaunchError::InvalidConfig(reason) => Error::InvalidConfig { reason },
            LaunchError::PtxLoad(log) => Error::PtxLoad { log },
        }
    }
}

/// Grid and block dimensions: none zero, none above its axis limit, at most 1024 threads.
pub fn check_dims(grid: [u32; 3], block: [u32; 3]) -> Result<()> {
    Ok(launch::check_dims(grid, block)?)
}

/// A block shape against the kernel's launch bounds (`.reqntid`, `.maxntid`).
pub fn check_bounds(kernel: &str, block: [u32; 3], bounds: &LaunchBounds) -> Result<()> {
    Ok(launch::check_bounds(kernel, block, bounds)?)
}

/// A launch's shared memory against the opt-in, or 48 KiB without one.
pub fn check_shared(sm: u32, static_bytes: u32, dynamic: u32, max_dynamic: Option<u32>) -> Result<()> {
    Ok(launch::check_shared(sm, static_bytes, dynamic, max_dynamic)?)
}

/// The opt-in itself: static plus `max_dynamic` within the architecture's limit.
pub fn check_max_dynamic(sm: u32, static_bytes: u32, max_dynamic: u32) -> Result<()> {
    Ok(launch::check_max_dynamic(sm, static_bytes, max_dynamic)?)
}
