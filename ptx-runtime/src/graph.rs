//! Graphs: a stream's launches and copies captured once, instantiated once and replayed many
//! times, each replay one submission (CUDA's stream capture, `cudaStreamBeginCapture` …
//! `cudaGraphInstantiate` … `cudaGraphLaunch`).
//!
//! While a stream captures, the launches and asynchronous copies queued on it are recorded,
//! not run: their arguments (buffer addresses, scalar values, pinned host memory) are fixed
//! into the graph. A replay runs them again in the recorded order, on any stream of the same
//! device, reading whatever the buffers hold then. The CUDA backend captures through the
//! driver; the CPU backend records the operations and runs them in order at each replay.
//!
//! What a graph needs stays checked: pinned buffers its copies use are kept alive by the graph
//! (and wait for its replays before the host touches them), and a replay after a device buffer
//! it uses was dropped is an `Err` instead of a use of freed memory. Synchronous operations
//! (`copy_from_slice`, `to_vec`) are not captured: do them outside the capture.
//!
//! A replay is ordered after the work queued before it on its stream, and nothing else: order
//! other streams' work against it with events. On CUDA, drop a device buffer a graph uses only
//! once the replays that use it have finished (synchronize their stream): a replay does not
//! hold the buffer's memory, only the check above keeps a later replay from using freed memory.

use crate::backend::GraphImpl;
use crate::capture::Keep;
use crate::error::{Error, Result};
use crate::pinned::PinnedShared;
use crate::stream::Stream;
use std::sync::{Arc, RwLockReadGuard, RwLockWriteGuard};

/// A captured, instantiated sequence of launches and copies; replay it with
/// [`launch`](Graph::launch).
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::device::*;
/// use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};
///
/// #[kernel]
/// pub fn add_one(x: &mut [u32]) {
///     let i = thread_idx_x() as usize;
///     if i < x.len() {
///         x[i] += 1;
///     }
/// }
///
/// let stream = Device::cpu().new_stream()?;
/// let mut x = DeviceBuffer::<u32>::zeroed(&stream, 32)?;
/// let graph = stream.capture(|s| {
///     add_one::launch(s, LaunchConfig::new(1, 32), &mut x)?;
///     add_one::launch(s, LaunchConfig::new(1, 32), &mut x)
/// })?;
/// assert_eq!(x.to_vec()?[0], 0, "capturing runs nothing");
/// for _ in 0..5 {
///     graph.launch(&stream)?;
/// }
/// assert_eq!(x.to_vec()?[0], 10);
/// # Ok(())
/// # }
/// ```
pub struct Graph {
    inner: Box<dyn GraphImpl>,
    keep: Keep,
}

impl Stream {
    /// Starts capturing: the launches and asynchronous copies queued on this stream (through
    /// this handle or its clones) from now on are recorded into a graph instead of running,
    /// until [`end_capture`](Stream::end_capture). `Err` if the stream already captures. CUDA
    /// refuses to capture the legacy default stream: capture a [`Device::new_stream`].
    pub fn begin_capture(&self) -> Result<()> {
        let mut capture = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        if capture.is_some() || self.inner.is_capturing() {
            return Err(Error::InvalidOperation { reason: "begin_capture on a stream that is already capturing (end the first capture with end_capture)".into() });
        }
        self.inner.begin_capture()?;
        *capture = Some(Keep::default());
        Ok(())
    }

    /// Ends the capture and instantiates the recorded work as a [`Graph`]. `Err` if the
    /// stream was not capturing, or if the driver refuses what was captured.
    pub fn end_capture(&self) -> Result<Graph> {
        let keep = self.capture.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(keep) = keep else {
            return Err(Error::InvalidOperation { reason: "end_capture on a stream that is not capturing (call begin_capture first)".into() });
        };
        let inner = self.inner.end_capture()?;
        Ok(Graph { inner, keep })
    }

    /// [`begin_capture`](Stream::begin_capture), `record(self)`, [`end_capture`](Stream::end_capture):
    /// the graph of what `record` queues. If `record` fails, the capture is ended and its
    /// error returned.
    pub fn capture(&self, record: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        self.begin_capture()?;
        let recorded = record(self);
        let graph = self.end_capture();
        recorded?;
        graph
    }

    /// Whether this stream is capturing a graph.
    pub fn is_capturing(&self) -> bool {
        self.capture.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// Notes what an operation about to be queued uses, if the stream captures; whether it
    /// captures (then the operation is recorded, not run, and nothing waits for it).
    pub(crate) fn note_capture(&self, pinned: (&Arc<PinnedShared>, bool), buffer: &Arc<()>) -> bool {
        let mut capture = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        let Some(keep) = capture.as_mut() else { return false };
        let (p, writes) = pinned;
        match keep.pinned.iter_mut().find(|(k, _)| Arc::ptr_eq(k, p)) {
            Some((_, w)) => *w |= writes,
            None => keep.pinned.push((p.clone(), writes)),
        }
        keep.add_buffer(buffer);
        true
    }

    /// Notes the device buffers a launch uses, if the stream captures.
    pub(crate) fn note_capture_buffers(&self, buffers: &[Arc<()>]) {
        let mut capture = self.capture.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(keep) = capture.as_mut() {
            for b in buffers {
                keep.add_buffer(b);
            }
        }
    }
}

impl Graph {
    /// Enqueues one replay of the graph on `stream`, after the work queued there before
    /// (`cudaGraphLaunch`). `Err` for a stream of another device than the one the graph was
    /// captured on, for a stream that is capturing, and when a device buffer the graph uses
    /// has been dropped since the capture.
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        let (mine, theirs) = (self.inner.device(), stream.inner.device().id());
        if mine != theirs {
            return Err(Error::InvalidOperation {
                reason: format!("a graph captured on a {} device launched on a stream of another device ({}): capture it again on that device's stream", mine.kind, theirs.kind),
            });
        }
        if stream.is_capturing() {
            return Err(Error::InvalidOperation { reason: "launching a graph into a stream that is capturing another graph is not supported".into() });
        }
        if let Some(i) = self.keep.buffers.iter().position(|b| b.strong_count() == 0) {
            return Err(Error::InvalidOperation {
                reason: format!("the graph uses a device buffer (the {}. it captured) that has been dropped since the capture", i + 1),
            });
        }
        // The host must not hold a pinned buffer the replay touches; the guards keep it from
        // borrowing one until the replay is enqueued, and the recorded events make later
        // borrows wait for the replay.
        let mut guards = Vec::new();
        for (p, writes) in &self.keep.pinned {
            let busy = || Error::InvalidOperation {
                reason: "the graph copies from or to a pinned buffer that the host is borrowing (a PinnedRef or PinnedMut is alive): drop the borrow before the replay".into(),
            };
            if *writes {
                guards.push(Held::Write(p.host.try_write().map_err(|_| busy())?));
            } else {
                guards.push(Held::Read(p.host.try_read().map_err(|_| busy())?));
            }
            p.order_before(&stream.inner)?;
        }
        self.inner.launch(&*stream.inner)?;
        for (p, _) in &self.keep.pinned {
            p.record(&stream.inner)?;
        }
        drop(guards);
        Ok(())
    }
}

impl Drop for Graph {
    /// Waits for the replays still copying from or to the graph's pinned buffers, whose memory
    /// may go with the graph (when their `PinnedBuffer`s were dropped first).
    fn drop(&mut self) {
        for (p, _) in &self.keep.pinned {
            let _ = p.wait();
        }
    }
}

/// A pinned buffer's host lock, held across a replay's enqueueing.
enum Held<'a> {
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}
