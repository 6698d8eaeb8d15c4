//! PTX modules JIT-compiled by the driver, with the JIT's logs.

use super::error::driver_error;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use cudarc::driver::{sys, CudaContext};
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

const LOG_BYTES: usize = 16 * 1024;

/// A loaded module and the kernel's function in it.
pub(crate) struct LoadedModule {
    /// Shared by the kernels of one linked module.
    #[allow(dead_code)]
    module: Arc<ModuleHandle>,
    pub function: sys::CUfunction,
    /// The JIT's informational log (ptxas's report of registers and spills, when verbose).
    pub info_log: String,
    /// The kernel's static shared memory in bytes (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
    pub static_shared: u32,
    /// The function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` as last set; the lock
    /// is held from setting it through the launch, so concurrent launches cannot undo it.
    pub max_dynamic: Mutex<u32>,
}

/// A loaded `CUmodule`, unloaded when the last kernel using it goes.
pub(crate) struct ModuleHandle {
    ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    /// Its failure slots' words (`cuda::report`): held here, so that the registry (which holds
    /// them weakly) reads them while the module is loaded.
    #[allow(dead_code)]
    reports: Arc<crate::report::Armed>,
}

// SAFETY: CUDA module and function handles may be used from any thread once the owning context
// is current; every use binds the context first.
unsafe impl Send for LoadedModule {}
unsafe impl Sync for LoadedModule {}
unsafe impl Send for ModuleHandle {}
unsafe impl Sync for ModuleHandle {}

impl ModuleHandle {
    /// Takes ownership of a module loaded in `ctx` (current) from `ptx`, and points its
    /// failure slots at words the runtime reads after a launch fails (`cuda::report`). An
    /// error unloads it.
    pub fn new(ctx: &Arc<CudaContext>, module: sys::CUmodule, ptx: &str) -> Result<ModuleHandle> {
        match super::report::arm(ctx, module, ptx) {
            Ok(reports) => Ok(ModuleHandle { ctx: ctx.clone(), module, reports }),
            Err(e) => {
                // SAFETY: loaded in this (current) context, and not used again.
                unsafe {
                    let _ = sys::cuModuleUnload(module);
                }
                Err(e)
            }
        }
    }
}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the module was loaded in this context and is unloaded once.
            unsafe {
                let _ = sys::cuModuleUnload(self.module);
            }
        }
    }
}

impl LoadedModule {
    /// `cuModuleLoadDataEx` with error and info log buffers, then `cuModuleGetFunction`.
    pub fn load(ctx: &Arc<CudaContext>, kernel: &'static Kernel) -> Result<LoadedModule> {
        ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let image = CString::new(kernel.ptx).map_err(|_| Error::PtxLoad { log: "the PTX text contains a NUL byte".into() })?;
        let mut error_log = vec![0u8; LOG_BYTES];
        let mut info_log = vec![0u8; LOG_BYTES];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_LOG_VERBOSE,
            // Keep the PTX's `.loc` line info (Rust lines in Nsight Compute, compute-sanitizer,
            // cuda-gdb; docs/debugging.md): ptxas's `-lineinfo`, which changes no machine code.
            sys::CUjit_option::CU_JIT_GENERATE_LINE_INFO,
            // Last: passed only for debug builds (see `count`).
            sys::CUjit_option::CU_JIT_GENERATE_DEBUG_INFO,
        ];
        // The driver reads sizes and flags as pointer-sized integers stored in the value slots.
        let mut values: [*mut c_void; 7] = [
            error_log.as_mut_ptr() as *mut c_void,
            LOG_BYTES as *mut c_void,
            info_log.as_mut_ptr() as *mut c_void,
            LOG_BYTES as *mut c_void,
            std::ptr::without_provenance_mut(1),
            std::ptr::without_provenance_mut(1),
            std::ptr::without_provenance_mut(1),
        ];
        // A debug build's module (`.target sm_XX, debug`): the JIT keeps its DWARF, as `ptxas -g`.
        let debug = kernel.ptx.lines().any(|l| l.starts_with(".target") && l.ends_with(", debug"));
        let count = if debug { options.len() } else { options.len() - 1 };
        let mut module = std::ptr::null_mut();
        // An embedded cubin for this device first (docs/cubins.md); the PTX when there is none
        // or the driver refuses it.
        let cc = ctx.compute_capability().map(|(a, b)| (a.max(0) as u32, b.max(0) as u32)).ok();
        let mut status = sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU;
        if let Some(cubin) = cc.and_then(|cc| crate::cubin::image_for(kernel, cc)) {
            // SAFETY: a complete cubin (an ELF image, whose header gives its size) embedded for
            // the program's lifetime; the log buffers and context as below.
            status = unsafe {
                sys::cuModuleLoadDataEx(&mut module, cubin.image.as_ptr() as *const c_void, count as u32, options.as_mut_ptr(), values.as_mut_ptr())
            };
        }
        if status.result().is_err() {
            // SAFETY: `image` is NUL-terminated PTX; the log buffers outlive the call and their
            // sizes are given; the context is current.
            status = unsafe {
                sys::cuModuleLoadDataEx(&mut module, image.as_ptr() as *const c_void, count as u32, options.as_mut_ptr(), values.as_mut_ptr())
            };
        }
        if let Err(e) = status.result() {
            let log = c_text(&error_log);
            let cuda = driver_error("cuModuleLoadDataEx", e);
            return Err(Error::PtxLoad { log: if log.is_empty() { cuda.to_string() } else { format!("{cuda}\n{log}") } });
        }
        LoadedModule::function_of(Arc::new(ModuleHandle::new(ctx, module, kernel.ptx)?), kernel.entry, c_text(&info_log))
    }

    /// The kernel `entry` of a loaded module (one the linker made holds several).
    pub fn function_of(module: Arc<ModuleHandle>, entry: &str, info_log: String) -> Result<LoadedModule> {
        let name = CString::new(entry).map_err(|_| Error::PtxLoad { log: "the entry name contains a NUL byte".into() })?;
        let mut function = std::ptr::null_mut();
        module.ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // SAFETY: `module` is loaded in the current context; `name` is NUL-terminated.
        let status = unsafe { sys::cuModuleGetFunction(&mut function, module.module, name.as_ptr()) };
        let mut loaded = LoadedModule { module, function, info_log, static_shared: 0, max_dynamic: Mutex::new(0) };
        status.result().map_err(|e| driver_error("cuModuleGetFunction", e))?;
        loaded.static_shared = loaded.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
        let max = loaded.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?;
        loaded.max_dynamic = Mutex::new(max);
        Ok(loaded)
    }

    fn attribute(&self, attr: sys::CUfunction_attribute) -> Result<u32> {
        let mut v = 0i32;
        // SAFETY: `function` is a live function of this context.
        unsafe { sys::cuFuncGetAttribute(&mut v, attr, self.function) }.result().map_err(|e| driver_error("cuFuncGetAttribute", e))?;
        Ok(v.max(0) as u32)
    }

    /// Sets `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` (the opt-in to more than 48 KiB).
    pub fn set_max_dynamic(&self, bytes: u32) -> Result<()> {
        let v = i32::try_from(bytes).map_err(|_| Error::InvalidConfig { reason: format!("{bytes} bytes of dynamic shared memory") })?;
        // SAFETY: as in `attribute`.
        unsafe { sys::cuFuncSetAttribute(self.function, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v) }
            .result()
            .map_err(|e| driver_error("cuFuncSetAttribute", e))
    }
}

pub(crate) fn c_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim().to_owned()
}
