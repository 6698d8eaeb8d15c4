//! What a stream records while it captures a graph (see `graph`): the stream holds it, the
//! graph keeps it. Apart from both so that neither depends on the other through it.

use crate::pinned_shared::PinnedShared;
use std::sync::{Arc, Weak};

/// What a graph being captured will need: its pinned buffers (kept alive) and its device
/// buffers (checked alive at each replay).
#[derive(Default)]
pub(crate) struct Keep {
    /// Each pinned buffer, and whether the graph writes it.
    pub(crate) pinned: Vec<(Arc<PinnedShared>, bool)>,
    pub(crate) buffers: Vec<Weak<()>>,
}

impl Keep {
    pub(crate) fn add_buffer(&mut self, alive: &Arc<()>) {
        if !self.buffers.iter().any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(alive))) {
            self.buffers.push(Arc::downgrade(alive));
        }
    }
}
