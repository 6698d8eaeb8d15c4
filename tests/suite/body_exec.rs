//! Running generated PTX: the CPU backend, when its executor is part of the build.

use ptx_runtime::{Device, DeviceBuffer, Error, LaunchConfig, Stream};
use std::io::Write;
use std::sync::OnceLock;

#[ptx_runtime::kernel]
pub fn probe(out: &mut [u32]) {
    out[0] = 1;
}

/// A stream on the CPU backend, or `None` (said loudly) while the backend cannot execute
/// kernels yet.
pub fn cpu_stream() -> Option<Stream> {
    static READY: OnceLock<bool> = OnceLock::new();
    let stream = Device::cpu().stream();
    let ready = *READY.get_or_init(|| {
        let Ok(mut out) = DeviceBuffer::<u32>::zeroed(&stream, 1) else { return false };
        match probe::launch(&stream, LaunchConfig::new(1, 1), &mut out) {
            Ok(()) => true,
            Err(Error::Unsupported { line: 0, .. }) => false,
            Err(e) => panic!("the CPU backend failed on a trivial kernel: {e}"),
        }
    });
    if !ready {
        let _ = writeln!(std::io::stderr(), "SKIPPED (the CPU backend's executor is not in this build): running generated PTX");
        return None;
    }
    Some(stream)
}
