//! A pinned allocation and the copies still using it: what `PinnedBuffer`, the copies that
//! use it and the graphs that capture them share. It speaks to streams through the backend
//! interface only, so a stream's capture record can hold it without an import cycle.

use crate::backend::{EventImpl, PinnedImpl, StreamImpl};
use crate::error::Result;
use std::sync::{Arc, Mutex, RwLock};

/// A pinned allocation and the copies still using it.
pub(crate) struct PinnedShared {
    pub mem: Arc<dyn PinnedImpl>,
    /// Held (read or write) while the host borrows the memory; a graph replay, which may
    /// touch the memory without borrowing the buffer, takes it before it enqueues.
    pub host: RwLock<()>,
    /// Per stream (by identity), an event after the last copy on it that uses this memory.
    pending: Mutex<Vec<(usize, Arc<dyn EventImpl>)>>,
}

fn stream_key(stream: &Arc<dyn StreamImpl>) -> usize {
    Arc::as_ptr(stream) as *const () as usize
}

impl PinnedShared {
    /// `mem`, with no host borrow and no copy using it yet.
    pub fn new(mem: Arc<dyn PinnedImpl>) -> PinnedShared {
        PinnedShared { mem, host: RwLock::new(()), pending: Mutex::new(Vec::new()) }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Vec<(usize, Arc<dyn EventImpl>)>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `stream`'s next work wait for the copies pending on other streams.
    pub fn order_before(&self, stream: &Arc<dyn StreamImpl>) -> Result<()> {
        let key = stream_key(stream);
        for (k, event) in self.pending().iter() {
            if *k != key {
                stream.wait_event(&**event)?;
            }
        }
        Ok(())
    }

    /// Records that the work just queued on `stream` uses this memory.
    pub fn record(&self, stream: &Arc<dyn StreamImpl>) -> Result<()> {
        let event = stream.record_event()?;
        let key = stream_key(stream);
        let mut pending = self.pending();
        pending.retain(|(k, e)| *k != key && !e.is_complete().unwrap_or(false));
        pending.push((key, event));
        Ok(())
    }

    /// Waits until no copy uses this memory.
    pub fn wait(&self) -> Result<()> {
        let mut pending = self.pending();
        for (_, event) in pending.iter() {
            event.synchronize()?;
        }
        pending.clear();
        Ok(())
    }
}
