//! CUDA driver errors as the runtime's [`Error`].

use crate::error::Error;
use cudarc::driver::{sys, DriverError};

/// The driver error from `call`, with CUDA's error name and message.
pub(crate) fn driver_error(call: &'static str, e: DriverError) -> Error {
    if e.0 == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
        return Error::OutOfMemory { requested: 0 };
    }
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let message = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Error::Cuda { call, name, message }
}
