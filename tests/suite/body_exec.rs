//! Running generated PTX on the CPU backend, which executes the same text a GPU would.

use ptx_runtime::{Device, Stream};

/// A stream on the CPU backend. Every test that runs a body on the host also runs its PTX
/// here and compares.
pub fn cpu_stream() -> Stream {
    Device::cpu().stream()
}
