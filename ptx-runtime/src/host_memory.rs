//! How much memory the host has: the limit a page-locked allocation is checked against, by
//! both backends (`cuda::pinned`, `backend::cpu::pinned`) before they ask for it.

use crate::error::{Error, Result};

/// The host's physical memory in bytes, where the system says (Linux: `/proc/meminfo`): pinned
/// memory cannot be paged out, so no allocation beyond it can succeed.
pub(crate) fn host_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The `Err` for a pinned allocation of `bytes` the host cannot hold, if it cannot.
pub(crate) fn check_host_memory(bytes: usize) -> Result<()> {
    let available = host_memory_bytes();
    if bytes > isize::MAX as usize || available.is_some_and(|a| bytes as u64 > a) {
        return Err(Error::OutOfHostMemory { requested: bytes, available });
    }
    Ok(())
}
