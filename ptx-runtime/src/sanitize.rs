//! Switching the CPU backend's sanitizers on (racecheck, initcheck, synccheck, leakcheck:
//! `docs/cpu-backend.md`, "Sanitizers") for a device or a stream. Off by default, or as
//! `PTX_SANITIZE` says for a whole run. On CUDA there are none to switch (run the program
//! under NVIDIA's `compute-sanitizer`): turning them off is a no-op there, turning them on
//! an `Err` saying so.

use crate::devices::Device;
use crate::error::Result;
use crate::stream::Stream;
use ptx_cpu::Sanitizers;

impl Device {
    /// The sanitizers every launch on this device runs, unless its stream sets its own
    /// ([`Stream::set_sanitizers`]). [`Device::cpu`] is shared by the whole process: set
    /// them on a device of your own ([`Device::new_cpu`]) to keep them to one test.
    ///
    /// ```
    /// use ptx_runtime::{Device, Sanitizers};
    /// let dev = Device::new_cpu();
    /// dev.set_sanitizers(Sanitizers { race: true, init: true, ..Sanitizers::NONE })?;
    /// # Ok::<(), ptx_runtime::Error>(())
    /// ```
    pub fn set_sanitizers(&self, sanitizers: Sanitizers) -> Result<()> {
        self.inner.set_sanitizers(sanitizers)
    }
}

impl Stream {
    /// The sanitizers of launches on this stream (and its clones); `None` goes back to the
    /// device's ([`Device::set_sanitizers`]).
    pub fn set_sanitizers(&self, sanitizers: Option<Sanitizers>) -> Result<()> {
        self.inner.set_sanitizers(sanitizers)
    }
}
