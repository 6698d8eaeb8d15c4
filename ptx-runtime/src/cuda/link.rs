//! The driver's linker (`cuLinkCreate`, `cuLinkAddData`, `cuLinkComplete`, `cuLinkDestroy`),
//! wrapped so that the link state is always destroyed, every failure is an `Err` with the
//! linker's log, and the linked cubin is loaded before the state that owns it goes.

use super::error::driver_error;
use super::module::{c_text, LoadedModule, ModuleHandle};
use crate::error::{Error, Result};
use crate::link::{BinaryKind, LinkInput};
use cudarc::driver::{sys, CudaContext};
use std::ffi::{c_void, CString};
use std::sync::Arc;

const LOG_BYTES: usize = 16 * 1024;

/// A `CUlinkState` with the log buffers it writes into; destroyed on drop.
struct LinkState {
    state: sys::CUlinkState,
    // The driver writes into these until `cuLinkDestroy`: they live as long as the state.
    error_log: Vec<u8>,
    info_log: Vec<u8>,
}

impl LinkState {
    /// `cuLinkCreate` with error and info logs, line info kept (as module loads keep it).
    fn new(ctx: &Arc<CudaContext>) -> Result<LinkState> {
        ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let mut s = LinkState { state: std::ptr::null_mut(), error_log: vec![0u8; LOG_BYTES], info_log: vec![0u8; LOG_BYTES] };
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_LOG_VERBOSE,
            sys::CUjit_option::CU_JIT_GENERATE_LINE_INFO,
        ];
        // Sizes and flags travel as pointer-sized integers in the value slots.
        let mut values: [*mut c_void; 6] = [
            s.error_log.as_mut_ptr() as *mut c_void,
            std::ptr::without_provenance_mut(LOG_BYTES),
            s.info_log.as_mut_ptr() as *mut c_void,
            std::ptr::without_provenance_mut(LOG_BYTES),
            std::ptr::without_provenance_mut(1),
            std::ptr::without_provenance_mut(1),
        ];
        let mut state = std::ptr::null_mut();
        // SAFETY: the option and value arrays have the same length; the log buffers live in `s`
        // until the state is destroyed; the context is current.
        let status = unsafe { sys::cuLinkCreate_v2(options.len() as u32, options.as_mut_ptr(), values.as_mut_ptr(), &mut state) };
        status.result().map_err(|e| driver_error("cuLinkCreate", e))?;
        s.state = state;
        Ok(s)
    }

    /// The driver's error for `call`, with the linker's error log.
    fn error(&self, call: &'static str, e: cudarc::driver::DriverError) -> Error {
        let log = c_text(&self.error_log);
        let cuda = driver_error(call, e);
        Error::Link { log: if log.is_empty() { cuda.to_string() } else { format!("{cuda}\n{log}") } }
    }

    /// `cuLinkAddData` of one input; PTX must be NUL-terminated, which `data` then is.
    fn add(&mut self, kind: sys::CUjitInputType, data: &[u8], name: &str) -> Result<()> {
        let name = CString::new(name).map_err(|_| Error::Link { log: format!("the input name {name:?} contains a NUL byte") })?;
        // SAFETY: `data` is valid for its length during the call (the driver copies it); no
        // options are passed.
        let status = unsafe {
            sys::cuLinkAddData_v2(self.state, kind, data.as_ptr() as *mut c_void, data.len(), name.as_ptr(), 0, std::ptr::null_mut(), std::ptr::null_mut())
        };
        status.result().map_err(|e| self.error("cuLinkAddData", e))
    }

    /// `cuLinkComplete`, then loads the cubin (owned by the state, so loaded before drop);
    /// `ptx`: the PTX it was linked from, whose failure slots it arms.
    fn complete_and_load(&mut self, ctx: &Arc<CudaContext>, ptx: &str) -> Result<Arc<ModuleHandle>> {
        let mut cubin = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: the state is live; the out-pointers are valid.
        let status = unsafe { sys::cuLinkComplete(self.state, &mut cubin, &mut size) };
        status.result().map_err(|e| self.error("cuLinkComplete", e))?;
        let mut module = std::ptr::null_mut();
        // SAFETY: `cubin` points at `size` bytes the state owns until `cuLinkDestroy`.
        let status = unsafe { sys::cuModuleLoadData(&mut module, cubin as *const c_void) };
        status.result().map_err(|e| driver_error("cuModuleLoadData", e))?;
        Ok(Arc::new(ModuleHandle::new(ctx, module, ptx)?))
    }
}

impl Drop for LinkState {
    fn drop(&mut self) {
        if !self.state.is_null() {
            // SAFETY: created by `cuLinkCreate` and destroyed once.
            unsafe {
                let _ = sys::cuLinkDestroy(self.state);
            }
        }
    }
}

fn input_type(kind: BinaryKind) -> sys::CUjitInputType {
    match kind {
        BinaryKind::Cubin => sys::CUjitInputType::CU_JIT_INPUT_CUBIN,
        BinaryKind::Fatbin => sys::CUjitInputType::CU_JIT_INPUT_FATBINARY,
        BinaryKind::Object => sys::CUjitInputType::CU_JIT_INPUT_OBJECT,
        BinaryKind::Library => sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
    }
}

/// Links `inputs` in `ctx`: the PTX inputs joined first by `ptx_cpu::link_partial` (so PTX
/// links as on the CPU backend), then the binaries; one loaded module, and each kernel's
/// function in it. Returns the joined PTX too. The joined text's failure slots are armed
/// (`cuda::report`); a binary input brings no `//@report` lines, so its checks trap without a
/// location.
pub(crate) fn link(ctx: &Arc<CudaContext>, inputs: &[LinkInput]) -> Result<(Option<String>, Vec<LoadedModule>)> {
    let ptx_inputs = LinkInput::ptx_inputs(inputs);
    let joined = if ptx_inputs.is_empty() { None } else { Some(ptx_cpu::link_partial(&ptx_inputs)?) };
    let mut state = LinkState::new(ctx)?;
    if let Some(text) = &joined {
        let mut data = text.clone().into_bytes();
        data.push(0);
        state.add(sys::CUjitInputType::CU_JIT_INPUT_PTX, &data, "linked PTX")?;
    }
    for i in inputs {
        if let LinkInput::Binary { name, kind, bytes } = i {
            state.add(input_type(*kind), bytes, name)?;
        }
    }
    let module = state.complete_and_load(ctx, joined.as_deref().unwrap_or(""))?;
    let info = c_text(&state.info_log);
    drop(state);
    let kernels = LinkInput::kernels(inputs);
    let loaded = kernels.iter().map(|k| LoadedModule::function_of(module.clone(), k.entry, info.clone())).collect::<Result<Vec<_>>>()?;
    Ok((joined, loaded))
}
