//! CUDA driver errors as the runtime's [`Error`].

use crate::error::Error;
use cudarc::driver::{sys, DriverError};

/// The driver error from `call`, with CUDA's error name and message; after a kernel's failed
/// check, the check's `Error::Assert` (read from its slot's word, `cuda::report`), whose
/// `message` is Rust's (`index out of bounds`, say) followed by what the trap did: the
/// context is unusable, every later call on the device in this process fails.
pub(crate) fn driver_error(call: &'static str, e: DriverError) -> Error {
    driver_error_reading(call, e, super::report::reported)
}

/// [`driver_error`], with the failed check a kernel reported read by `reported`, and only for
/// the errors a trap leaves (a unit test's registry, in place of the process's).
pub(super) fn driver_error_reading(call: &'static str, e: DriverError, reported: impl FnOnce() -> Option<Error>) -> Error {
    if e.0 == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
        return Error::OutOfMemory { requested: 0 };
    }
    if is_sticky(e.0) || e.0 == sys::cudaError_enum::CUDA_ERROR_ASSERT {
        if let Some(failed) = reported() {
            return trapped(failed, call, e);
        }
    }
    if e.0 == sys::cudaError_enum::CUDA_ERROR_ASSERT {
        return device_assert(call);
    }
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let mut message = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if is_sticky(e.0) {
        message.push_str("; a kernel faulted");
        message.push_str(UNUSABLE);
    }
    Error::Cuda { call, name, message }
}

/// A failed check's `Error::Assert`, its message (the check's own) followed by how it surfaced
/// and what the trap did to the context: `Error::Assert` has no field for either.
fn trapped(failed: Error, call: &'static str, e: DriverError) -> Error {
    match failed {
        Error::Assert { mut message, file, line, function, site } => {
            message.push_str(&format!("; the check trapped ({:?}, reported by {call})", e.0));
            message.push_str(UNUSABLE);
            Error::Assert { message, file, line, function, site }
        }
        other => other,
    }
}

/// What a sticky error means for the caller, after what caused it.
const UNUSABLE: &str = ", which leaves this device's context unusable: every later call on the device in this process fails (CUDA's kernel errors are sticky), so the process must end to use the GPU again";

/// The errors a faulting kernel leaves in its context for good (the driver API reference:
/// "the context cannot be used, so it must be destroyed").
fn is_sticky(e: sys::cudaError_enum) -> bool {
    use sys::cudaError_enum as E;
    matches!(
        e,
        E::CUDA_ERROR_LAUNCH_FAILED
            | E::CUDA_ERROR_ILLEGAL_ADDRESS
            | E::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | E::CUDA_ERROR_MISALIGNED_ADDRESS
            | E::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | E::CUDA_ERROR_INVALID_PC
            | E::CUDA_ERROR_HARDWARE_STACK_ERROR
            | E::CUDA_ERROR_LAUNCH_TIMEOUT
    )
}

/// A device-side `__assertfail` (`assert!`, `panic!`, a failed bounds check) as CUDA reports
/// it: `CUDA_ERROR_ASSERT` at the next synchronisation, without the assertion's details — the
/// driver prints those (`file:line: function: block: [..], thread: [..] Assertion `message`
/// failed.`) to the process's standard output. The error says where to find them; the
/// context is unusable afterwards (CUDA's errors from a kernel are sticky).
fn device_assert(call: &'static str) -> Error {
    Error::Assert {
        message: format!(
            "device-side assertion failed (CUDA_ERROR_ASSERT, reported by {call}); CUDA does not return the message and location: the driver printed them to standard output. The context is unusable afterwards: every later call on the device in this process fails (CUDA's kernel errors are sticky)"
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

    /// (Without a driver: CUDA's own name and message of an error come from libcuda.)
    #[test]
    fn a_kernel_fault_says_the_context_is_unusable() {
        use sys::cudaError_enum as E;
        for e in [E::CUDA_ERROR_LAUNCH_FAILED, E::CUDA_ERROR_ILLEGAL_INSTRUCTION, E::CUDA_ERROR_ILLEGAL_ADDRESS, E::CUDA_ERROR_MISALIGNED_ADDRESS] {
            assert!(is_sticky(e), "{e:?}");
        }
        for e in [E::CUDA_ERROR_INVALID_VALUE, E::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, E::CUDA_ERROR_NOT_READY] {
            assert!(!is_sticky(e), "{e:?}");
        }
        assert!(UNUSABLE.contains("unusable") && UNUSABLE.contains("sticky"));
    }

    #[test]
    fn a_reported_check_keeps_its_message_first() {
        let check = || Some(Error::Assert { message: "index out of bounds".into(), file: "src/a.rs".into(), line: 3, function: "c::f".into(), site: None });
        let e = driver_error_reading("cuLaunchKernel", DriverError(sys::cudaError_enum::CUDA_ERROR_ILLEGAL_INSTRUCTION), check);
        let Error::Assert { message, line: 3, .. } = &e else { panic!("{e:?}") };
        assert!(message.starts_with("index out of bounds; the check trapped (CUDA_ERROR_ILLEGAL_INSTRUCTION, reported by cuLaunchKernel), which leaves"), "{message}");
        assert!(e.to_string().starts_with("device assertion failed at src/a.rs:3 in c::f: index out of bounds; "), "{e}");
        // Errors a trap does not leave read no report.
        let never = || -> Option<Error> { panic!("read") };
        assert!(matches!(driver_error_reading("cuMemAlloc", DriverError(sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY), never), Error::OutOfMemory { .. }));
    }

    #[test]
    fn a_device_assert_is_an_assert_error() {
        let e = driver_error("cuStreamSynchronize", DriverError(sys::cudaError_enum::CUDA_ERROR_ASSERT));
        let Error::Assert { message, line, .. } = &e else { panic!("{e:?}") };
        assert!(message.contains("CUDA_ERROR_ASSERT") && message.contains("cuStreamSynchronize"), "{message}");
        assert_eq!(*line, 0);
        assert!(e.to_string().starts_with("device assertion failed: device-side"), "{e}");
    }
}
