//! Failure slots on CUDA (`crate::report`): each slot a loaded module declares points at a word
//! of host-mapped memory (`cuda::words`; the pointer written by `cuda::slots`), which a failing
//! kernel writes before it traps. The trap leaves the context unusable, but not the host's
//! memory: the first driver error that surfaces afterwards (at the launch, a synchronisation, a
//! copy) reads the words, and becomes the check's `Error::Assert` with its message, file, line
//! and function (`driver_error`).
//!
//! Every armed module is kept in a process-wide registry, under its context (a sticky error in
//! one device's context reads that context's words, and leaves another device's failure to
//! that device's own error), and weakly: `ModuleHandle` holds the strong reference, so the
//! words of a module are read while it is loaded.

use super::slots::Slots;
use super::words;
use crate::error::{Error, Result};
use crate::report::{self, Armed, Words};
use cudarc::driver::{sys, CudaContext};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

static ARMED: Registry = Registry::new();

/// Points the slots that `ptx` (the text `module` was loaded from) describes at words of their
/// own, and registers the module under `ctx` for [`reported`]. `ctx` is current.
pub(crate) fn arm(ctx: &CudaContext, module: sys::CUmodule, ptx: &str) -> Result<Arc<Armed>> {
    let armed = report::arm(ptx, &HostWords { slots: Some(Slots::new(module)) })?;
    ARMED.add(ctx.cu_ctx() as usize, &armed);
    Ok(armed)
}

/// The failed check a kernel of the current context reported, if one did since the last call:
/// every word read is zeroed, so only the first error after a failure carries its location.
pub(crate) fn reported() -> Option<Error> {
    // Nothing armed, nothing to read; nor, then, a driver to ask for the context (unit tests
    // have none).
    if ARMED.is_empty() {
        return None;
    }
    ARMED.reported(current_context(), &HostWords { slots: None })
}

/// The context current on this thread, where the failing call ran (every call binds its
/// context first), as the registry keys it; `None` if the driver names none.
fn current_context() -> Option<usize> {
    let mut ctx = std::ptr::null_mut();
    // SAFETY: writes one handle; valid in a context a kernel's error has left unusable.
    unsafe { sys::cuCtxGetCurrent(&mut ctx) }.result().ok()?;
    (!ctx.is_null()).then_some(ctx as usize)
}

/// Armed modules with their contexts' handles (as addresses, only compared).
struct Registry(Mutex<Vec<(usize, Weak<Armed>)>>);

impl Registry {
    const fn new() -> Registry {
        Registry(Mutex::new(Vec::new()))
    }

    fn lock(&self) -> MutexGuard<'_, Vec<(usize, Weak<Armed>)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers `armed` under `context`, forgetting modules unloaded since.
    fn add(&self, context: usize, armed: &Arc<Armed>) {
        let mut all = self.lock();
        all.retain(|(_, a)| a.strong_count() > 0);
        all.push((context, Arc::downgrade(armed)));
    }

    fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The failed check the words of `context`'s modules name (every context's, when it is
    /// unknown). Every word is read, and so zeroed; the first that names a site wins.
    fn reported(&self, context: Option<usize>, words: &dyn Words) -> Option<Error> {
        let live: Vec<Arc<Armed>> = {
            let all = self.lock();
            all.iter().filter(|(c, _)| context.is_none_or(|context| *c == context)).filter_map(|(_, a)| a.upgrade()).collect()
        };
        let mut found = None;
        for armed in &live {
            let read = report::read(armed, words);
            found = found.or(read);
        }
        found
    }
}

/// The process's words (`cuda::words`) and a loaded module's slots (`None`: reading only,
/// which needs no module: the words are host memory).
struct HostWords {
    slots: Option<Slots>,
}

impl Words for HostWords {
    fn word(&self) -> Result<(u64, u64)> {
        words::word()
    }

    fn point(&self, slot: &str, pointer: u64) -> Result<bool> {
        match &self.slots {
            Some(slots) => slots.write(slot, pointer),
            None => Ok(false),
        }
    }

    fn take(&self, address: u64) -> u32 {
        words::take(address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fake::FakeWords as Fake;
    use cudarc::driver::DriverError;

    const A: &str = "//@report a$report 1 10 5 \"src/a.rs\" \"c::a\" \"index out of bounds\"\n.const .align 8 .u64 a$report;\n";
    const B: &str = "//@report b$report 1 20 9 \"src/b.rs\" \"c::b\" \"attempt to divide by zero\"\n.const .align 8 .u64 b$report;\n";

    #[test]
    fn a_sticky_error_after_a_reported_failure_is_the_checks_assert() {
        let (fake, registry) = (Fake::default(), Registry::new());
        let armed = report::arm(A, &fake).unwrap();
        registry.add(1, &armed);
        let error = |e| super::super::error::driver_error_reading("cuStreamSynchronize", DriverError(e), || registry.reported(Some(1), &fake));
        fake.fail("a$report", 1);
        match error(sys::CUresult::CUDA_ERROR_LAUNCH_FAILED) {
            Error::Assert { message, file, line, function, site: None } => {
                assert_eq!((file.as_str(), line, function.as_str()), ("src/a.rs", 10, "c::a"));
                assert!(message.starts_with("index out of bounds; ") && message.contains("unusable"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // Read once: the next error (the context stays failed) is the driver's own.
        assert!(!matches!(error(sys::CUresult::CUDA_ERROR_ASSERT), Error::Assert { line: 10, .. }));
        // Only sticky errors read the words.
        fake.fail("a$report", 1);
        assert!(!matches!(error(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY), Error::Assert { .. }));
        assert!(registry.reported(Some(1), &fake).is_some(), "left for the next sticky error");
    }

    #[test]
    fn each_context_reads_its_own_modules() {
        let (fake, registry) = (Fake::default(), Registry::new());
        let (a, b) = (report::arm(A, &fake).unwrap(), report::arm(B, &fake).unwrap());
        registry.add(1, &a);
        registry.add(2, &b);
        fake.fail("a$report", 1);
        assert!(registry.reported(Some(2), &fake).is_none(), "another device's failure");
        assert!(matches!(registry.reported(Some(1), &fake), Some(Error::Assert { line: 10, .. })));
        // With the context unknown, every module's words.
        fake.fail("b$report", 1);
        assert!(matches!(registry.reported(None, &fake), Some(Error::Assert { line: 20, .. })));
        assert!(registry.reported(None, &fake).is_none());
    }

    #[test]
    fn an_unloaded_module_is_forgotten() {
        let (fake, registry) = (Fake::default(), Registry::new());
        let armed = report::arm(A, &fake).unwrap();
        registry.add(1, &armed);
        drop(armed);
        fake.fail("a$report", 1);
        assert!(registry.reported(Some(1), &fake).is_none());
        registry.add(1, &report::arm(B, &fake).unwrap());
        assert_eq!(registry.lock().len(), 1, "pruned");
    }
}
