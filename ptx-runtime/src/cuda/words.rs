//! Words of host-mapped memory: pinned host memory that a kernel writes through a device
//! address and the host reads, even after the kernel's trap has left its context unusable
//! (`cuda::report` points failure slots at them).
//!
//! Words come from pages of `cuMemHostAlloc(PORTABLE | DEVICEMAP)` memory, handed out four
//! bytes at a time, a new page when one is full. Pages are never freed, on purpose: a failure
//! is read after the launch, possibly after the module that owned the word is gone, and a
//! trapped context frees nothing anyway. The leak is one 4 KiB page per 1024 slots armed (one
//! slot per function that can fail, per module load).
//!
//! One pool serves every context: portable memory is pinned for all of them, and under unified
//! addressing (every 64-bit platform CUDA supports) a mapped page's device address is the same
//! in each context.

use super::error::driver_error;
use crate::error::{Error, Result};
use cudarc::driver::{result, sys};
use std::sync::{Mutex, MutexGuard};

/// Words per page.
const PAGE_WORDS: usize = 1024;

/// One page of host-mapped memory: its address on the host and on the device.
#[derive(Clone, Copy)]
struct Page {
    host: u64,
    device: u64,
}

impl Page {
    /// Whether `host` is the host address of one of this page's words.
    fn holds(&self, host: u64) -> bool {
        host.checked_sub(self.host).is_some_and(|at| at < 4 * PAGE_WORDS as u64 && at % 4 == 0)
    }
}

/// Every page allocated (the last one current) and how many of the current page's words are
/// handed out.
struct Pool {
    pages: Vec<Page>,
    used: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { pages: Vec::new(), used: 0 });

fn pool() -> MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new zeroed word: its device address (for a slot) and its host address (for [`take`]).
/// A context is current (a new page is mapped in it).
pub(crate) fn word() -> Result<(u64, u64)> {
    let next = pool().next();
    if let Some(word) = next {
        return Ok(word);
    }
    // Allocated with the pool unlocked: an allocation's error may read the words
    // (`driver_error`, after a trap), which locks it.
    let page = new_page()?;
    Ok(pool().start(page))
}

/// The word at `host` (a host address [`word`] returned), zeroed again; 0 for any address
/// that is not one of the pool's words.
pub(crate) fn take(host: u64) -> u32 {
    pool().take(host)
}

impl Pool {
    /// The current page's next word (device and host address), if it has one left.
    fn next(&mut self) -> Option<(u64, u64)> {
        let page = *self.pages.last()?;
        if self.used == PAGE_WORDS {
            return None;
        }
        let at = 4 * self.used as u64;
        self.used += 1;
        Some((page.device + at, page.host + at))
    }

    /// Makes `page` the current page, and hands out its first word.
    fn start(&mut self, page: Page) -> (u64, u64) {
        self.pages.push(page);
        self.used = 1;
        (page.device, page.host)
    }

    /// Reads and zeroes a word, with volatile accesses: the device writes it behind the
    /// compiler's back. The lock held makes each read-and-zero whole for the host's threads.
    fn take(&self, host: u64) -> u32 {
        if !self.pages.iter().any(|p| p.holds(host)) {
            return 0;
        }
        let word = std::ptr::with_exposed_provenance_mut::<u32>(host as usize);
        // SAFETY: a word-aligned word inside a page of this pool, which is never freed.
        unsafe {
            let v = std::ptr::read_volatile(word);
            std::ptr::write_volatile(word, 0);
            v
        }
    }
}

/// A zeroed page of pinned host memory the device can write, mapped in the current context.
fn new_page() -> Result<Page> {
    let bytes = PAGE_WORDS * 4;
    let out_of_memory = || Error::OutOfHostMemory { requested: bytes, available: crate::host_memory::host_memory_bytes() };
    let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
    // SAFETY: a plain allocation; the pointer is checked below.
    let host = unsafe { result::malloc_host(bytes, flags) }.map_err(|e| match driver_error("cuMemHostAlloc", e) {
        Error::OutOfMemory { .. } => out_of_memory(),
        other => other,
    })?;
    if host.is_null() {
        return Err(out_of_memory());
    }
    // SAFETY: `bytes` bytes were just allocated at `host`; the driver does not zero them.
    unsafe { std::ptr::write_bytes(host as *mut u8, 0, bytes) };
    let mut device = 0;
    // SAFETY: `host` was allocated with DEVICEMAP; the flags argument must be 0.
    let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0) }.result();
    if let Err(e) = mapped {
        // SAFETY: allocated above and handed to no one.
        let _ = unsafe { result::free_host(host) };
        return Err(driver_error("cuMemHostGetDevicePointer", e));
    }
    Ok(Page { host: host.expose_provenance() as u64, device })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_hands_out_each_word_once() {
        let mut pool = Pool { pages: Vec::new(), used: 0 };
        assert_eq!(pool.next(), None, "no page yet");
        assert_eq!(pool.start(Page { host: 0x1000, device: 0x9000 }), (0x9000, 0x1000));
        let words: Vec<_> = std::iter::from_fn(|| pool.next()).collect();
        assert_eq!(words.len(), PAGE_WORDS - 1);
        assert_eq!(words.first(), Some(&(0x9004, 0x1004)));
        assert_eq!(words.last(), Some(&(0x9000 + 4 * 1023, 0x1000 + 4 * 1023)));
        assert_eq!(pool.next(), None, "full");
    }

    #[test]
    fn a_word_is_read_once_and_only_a_word_of_ours() {
        let mut memory = vec![0u32; PAGE_WORDS];
        let host = memory.as_mut_ptr().expose_provenance() as u64;
        let pool = Pool { pages: vec![Page { host, device: 0x9000 }], used: 0 };
        memory[3] = 7;
        assert_eq!(pool.take(host + 12), 7);
        assert_eq!(memory[3], 0);
        assert_eq!(pool.take(host + 12), 0);
        for not_a_word in [0, host - 4, host + 13, host + 4 * PAGE_WORDS as u64] {
            assert_eq!(pool.take(not_a_word), 0, "{not_a_word:#x}");
        }
    }
}
