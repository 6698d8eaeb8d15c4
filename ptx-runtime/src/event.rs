//! Events: points in a stream's work, to order work across streams and to time it on the
//! device (CUDA's `cudaEventRecord`, `cudaStreamWaitEvent`, `cudaEventElapsedTime`).

use crate::backend::EventImpl;
use crate::devices::Device;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::sync::Arc;
use std::time::Duration;

/// The work a stream had queued when the event was recorded. Cheap to clone.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::Device;
/// let device = Device::cpu();
/// let (a, b) = (device.new_stream()?, device.new_stream()?);
/// let start = a.record_event()?;
/// // ... launches on `a` ...
/// let done = a.record_event()?;
/// b.wait_event(&done)?; // work queued on `b` from now on starts after `a`'s
/// let took = done.elapsed_since(&start)?;
/// assert!(took.as_secs() < 60);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Event {
    inner: Arc<dyn EventImpl>,
}

impl Stream {
    /// Records the work queued on this stream so far (`cudaEventRecord`).
    pub fn record_event(&self) -> Result<Event> {
        Ok(Event { inner: self.inner.record_event()? })
    }

    /// Makes the work queued on this stream from now on wait until `event`'s work has finished
    /// (`cudaStreamWaitEvent`); the host does not wait. `Err` for an event of the other backend.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.inner.wait_event(&*event.inner)
    }
}

impl Event {
    /// Waits until the recorded work has finished; reports a kernel that failed.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    /// Whether the recorded work has finished, without waiting.
    pub fn is_complete(&self) -> Result<bool> {
        self.inner.is_complete()
    }

    /// The device time from `start` to this event, once both have finished (waits for them).
    /// CUDA measures it on the GPU, to about half a microsecond; the CPU backend, whose work
    /// finishes as it is issued, takes the host's clock at each record. `Err` for events of
    /// different devices.
    pub fn elapsed_since(&self, start: &Event) -> Result<Duration> {
        self.inner.elapsed_since(&*start.inner)
    }
}

impl Device {
    /// The stream priorities the device supports, as CUDA numbers them: `(least, greatest)`,
    /// where the greatest priority is the smallest number (e.g. `(0, -5)`). The CPU backend
    /// has one priority, `(0, 0)`.
    pub fn stream_priority_range(&self) -> Result<(i32, i32)> {
        self.inner.stream_priority_range()
    }

    /// A new stream whose work the device prefers (smaller number) or defers (larger) against
    /// other streams' (`cudaStreamCreateWithPriority`). `Err` outside
    /// [`stream_priority_range`](Device::stream_priority_range), which CUDA would clamp
    /// silently.
    pub fn new_stream_with_priority(&self, priority: i32) -> Result<Stream> {
        let (least, greatest) = self.stream_priority_range()?;
        if priority < greatest || priority > least {
            return Err(Error::InvalidConfig {
                reason: format!("stream priority {priority} is outside the device's range {greatest}..={least} (smaller is higher)"),
            });
        }
        Ok(Stream::wrap(self.inner.clone().new_stream_with_priority(priority)?))
    }
}
