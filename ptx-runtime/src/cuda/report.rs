//! Failure slots on CUDA (`crate::report`): each slot a loaded module declares points at a word
//! of host-mapped memory, which a failing kernel writes before it traps. The trap leaves the
//! context unusable, but not the host's memory: the first driver error that surfaces afterwards
//! (the launch, a synchronisation, a copy) reads the words, and becomes the check's
//! `Error::Assert` with its message, file, line and function.
//!
//! The words come from pages of `cuMemHostAlloc(PORTABLE | DEVICEMAP)` memory, 1024 words
//! each, never freed: a failure may be read after every module is gone, and a page is four
//! KiB however many modules the process loads. Every armed module stays in a process-wide list
//! (weakly: a module unloaded with its words unset reports nothing).

use super::error::driver_error;
use crate::error::{Error, Result};
use crate::report::{self, Armed, Words};
use cudarc::driver::{result, sys};
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, Weak};

/// Words per page of host-mapped memory.
const PAGE_WORDS: usize = 1024;

/// The current page's host and device addresses and how many of its words are handed out.
struct Pool {
    page: Option<(u64, u64)>,
    used: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { page: None, used: PAGE_WORDS });
static ARMED: Mutex<Vec<Weak<Armed>>> = Mutex::new(Vec::new());

/// Points the slots that `ptx` (the text `module` was loaded from) describes at words of their
/// own, and keeps the module where [`reported`] reads it. The module's context is current.
pub(crate) fn arm(module: sys::CUmodule, ptx: &str) -> Result<Arc<Armed>> {
    let armed = report::arm(ptx, &ModuleWords(module))?;
    let mut all = ARMED.lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|a| a.strong_count() > 0);
    all.push(Arc::downgrade(&armed));
    Ok(armed)
}

/// The failed check a word names, if a kernel wrote one (each read zeroes the words, so only
/// the first error after a failure carries it).
pub(crate) fn reported() -> Option<Error> {
    let all: Vec<Arc<Armed>> = ARMED.lock().unwrap_or_else(|e| e.into_inner()).iter().filter_map(Weak::upgrade).collect();
    let mut found = None;
    for armed in &all {
        // Reading needs no module: the words are host memory.
        let e = report::read(armed, &ModuleWords(std::ptr::null_mut()), None);
        found = found.or(e);
    }
    found
}

/// A module's slots (`point`), and the process's words (`word`, `take`).
struct ModuleWords(sys::CUmodule);

impl Words for ModuleWords {
    fn word(&self) -> Result<(u64, u64)> {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if pool.used == PAGE_WORDS || pool.page.is_none() {
            pool.page = Some(new_page()?);
            pool.used = 0;
        }
        let (host, device) = pool.page.ok_or(Error::OutOfHostMemory { requested: PAGE_WORDS * 4, available: None })?;
        let at = 4 * pool.used as u64;
        pool.used += 1;
        Ok((device + at, host + at))
    }

    fn point(&self, slot: &str, pointer: u64) -> Result<bool> {
        let Ok(name) = CString::new(slot) else { return Ok(false) };
        let (mut at, mut bytes) = (0, 0usize);
        // SAFETY: the module is loaded in the current context; `name` is NUL-terminated.
        let found = unsafe { sys::cuModuleGetGlobal_v2(&mut at, &mut bytes, self.0, name.as_ptr()) };
        if found == sys::CUresult::CUDA_ERROR_NOT_FOUND || (found.result().is_ok() && bytes != 8) {
            return Ok(false);
        }
        found.result().map_err(|e| driver_error("cuModuleGetGlobal", e))?;
        // SAFETY: `at` is the slot's 8 bytes of device memory; the source is 8 bytes.
        let copied = unsafe { sys::cuMemcpyHtoD_v2(at, &pointer as *const u64 as *const c_void, 8) };
        copied.result().map_err(|e| driver_error("cuMemcpyHtoD", e))?;
        Ok(true)
    }

    fn take(&self, address: u64) -> u32 {
        let word = address as *mut u32;
        // SAFETY: `address` is a word of a page `new_page` allocated and never freed; the
        // device writes it, hence the volatile accesses.
        unsafe {
            let v = std::ptr::read_volatile(word);
            std::ptr::write_volatile(word, 0);
            v
        }
    }
}

/// A zeroed page of host memory the device can write: its host and device addresses.
fn new_page() -> Result<(u64, u64)> {
    let bytes = PAGE_WORDS * 4;
    // SAFETY: a plain allocation; the flags are valid for `cuMemHostAlloc`.
    let host = unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP) }.map_err(|e| driver_error("cuMemHostAlloc", e))?;
    // SAFETY: `host` is `bytes` bytes just allocated.
    unsafe { std::ptr::write_bytes(host as *mut u8, 0, bytes) };
    let mut device = 0;
    // SAFETY: `host` was allocated with DEVICEMAP in a context that is current.
    let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0) };
    mapped.result().map_err(|e| driver_error("cuMemHostGetDevicePointer", e))?;
    Ok((host as u64, device))
}
