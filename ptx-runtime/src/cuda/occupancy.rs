//! Occupancy through the driver's calculator (`cuOccupancy*`), which counts registers too.
//!
//! The block size, launch bounds and shared memory are checked against the same table as on
//! the CPU backend first, so a bad request is the same `Err` on both.

use super::error::driver_error;
use super::CudaDevice;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::limits;
use cudarc::driver::sys;
use std::ffi::c_int;

impl CudaDevice {
    fn sm(&self) -> Result<u32> {
        let (major, minor) = self.ctx.compute_capability().map_err(|e| driver_error("cuDeviceGetAttribute", e))?;
        Ok((major.max(0) * 10 + minor.max(0)) as u32)
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`, after the checks both backends make.
    pub fn max_active_blocks(&self, kernel: &'static Kernel, block_threads: u32, dynamic: u32) -> Result<u32> {
        let module = self.module(kernel)?;
        let sm = self.sm()?;
        ptx_abi::launch::max_active_blocks(sm, kernel.entry, &kernel.bounds, block_threads, module.static_shared, dynamic)?;
        self.ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // The driver refuses dynamic shared memory past the function's opt-in: raise it (held
        // locked, as a launch holds it; the next launch sets what it needs).
        let mut max_dynamic = module.max_dynamic.lock().unwrap_or_else(|e| e.into_inner());
        if dynamic > *max_dynamic {
            module.set_max_dynamic(dynamic)?;
            *max_dynamic = dynamic;
        }
        let mut blocks: c_int = 0;
        // SAFETY: a live function of this context (bound above) and an out-pointer to an int;
        // `block_threads` is at most 1024 (checked).
        unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, module.function, block_threads as c_int, dynamic as usize) }
            .result()
            .map_err(|e| driver_error("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
        Ok(blocks.max(0) as u32)
    }

    /// `cuOccupancyMaxPotentialBlockSize`: `(block_threads, min_grid)`.
    pub fn max_potential_block_size(&self, kernel: &'static Kernel, dynamic: u32) -> Result<(u32, u32)> {
        let module = self.module(kernel)?;
        let sm = self.sm()?;
        limits::check_shared(sm, module.static_shared, dynamic, Some(dynamic))?;
        self.ctx.bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        let mut max_dynamic = module.max_dynamic.lock().unwrap_or_else(|e| e.into_inner());
        if dynamic > *max_dynamic {
            module.set_max_dynamic(dynamic)?;
            *max_dynamic = dynamic;
        }
        let (mut min_grid, mut block): (c_int, c_int) = (0, 0);
        // SAFETY: as above; no per-block-size callback, and no block size limit beyond the
        // function's own (its `.maxntid`/`.reqntid` and registers).
        unsafe { sys::cuOccupancyMaxPotentialBlockSize(&mut min_grid, &mut block, module.function, None, dynamic as usize, 0) }
            .result()
            .map_err(|e| driver_error("cuOccupancyMaxPotentialBlockSize", e))?;
        Ok((block.max(0) as u32, min_grid.max(0) as u32))
    }
}
