//! CUDA driver errors as the runtime's [`Error`].

use crate::error::Error;
use cudarc::driver::{sys, DriverError};

/// The driver error from `call`, with CUDA's error name and message.
pub(crate) fn driver_error(call: &'static str, e: DriverError) -> Error {
    if e.0 == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
        return Error::OutOfMemory { requested: 0 };
    }
    if e.0 == sys::cudaError_enum::CUDA_ERROR_ASSERT {
        return device_assert(call);
    }
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let message = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Error::Cuda { call, name, message }
}

/// A device-side `__assertfail` (`assert!`, `panic!`, a failed bounds check) as CUDA reports
/// it: `CUDA_ERROR_ASSERT` at the next synchronisation, without the assertion's details — the
/// driver prints those (`file:line: function: block: [..], thread: [..] Assertion `message`
/// failed.`) to the process's standard output. The error says where to find them; the
/// context is unusable afterwards (CUDA's errors from a kernel are sticky).
fn device_assert(call: &'static str) -> Error {
    Error::Assert {
        message: format!(
            "device-side assertion failed (CUDA_ERROR_ASSERT, reported by {call}); CUDA does not return the message and location: the driver printed them to standard output. The context cannot run further work"
        ),
        file: String::new(),
        line: 0,
        function: String::new(),
        site: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_assert_is_an_assert_error() {
        let e = driver_error("cuStreamSynchronize", DriverError(sys::cudaError_enum::CUDA_ERROR_ASSERT));
        let Error::Assert { message, line, .. } = &e else { panic!("{e:?}") };
        assert!(message.contains("CUDA_ERROR_ASSERT") && message.contains("cuStreamSynchronize"), "{message}");
        assert_eq!(*line, 0);
        assert!(e.to_string().starts_with("device assertion failed: device-side"), "{e}");
    }
}
