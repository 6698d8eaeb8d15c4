//! Occupancy: how many blocks of a kernel fit on one SM, and the block size that keeps the
//! most threads resident, as CUDA's `cudaOccupancy*` functions compute them.
//!
//! CUDA asks the driver, which counts registers too. The CPU backend computes the same from
//! the limits table for the module's architecture ([`limits::SM_LIMITS`](crate::limits::SM_LIMITS)),
//! the kernel's static shared memory and launch bounds; it has no registers, so for a kernel
//! that registers limit on a GPU its numbers are higher than the GPU's.

use crate::config::LaunchConfig;
use crate::devices::Device;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::stream::Stream;

/// The block size CUDA's `cudaOccupancyMaxPotentialBlockSize` suggests for a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PotentialBlockSize {
    /// Threads per block that keep the most threads resident per SM.
    pub block_threads: u32,
    /// The fewest blocks of that size that fill every SM (`minGridSize`).
    pub min_grid: u32,
}

impl Device {
    /// How many blocks of `kernel` one SM holds at once, with `block_threads` threads and
    /// `dynamic_shared_bytes` of dynamic shared memory per block: CUDA's
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`. `Err` for a block size outside
    /// 1..=1024 or the kernel's launch bounds, or more shared memory than a block may have.
    ///
    /// ```
    /// # fn main() -> ptx_runtime::Result<()> {
    /// use ptx_runtime::{device::*, Device};
    /// #[ptx_runtime::kernel]
    /// pub fn fill(x: &mut [u32]) {
    ///     let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    ///     if i < x.len() { x[i] = 1; }
    /// }
    /// // sm_75 (the CPU backend's default) holds 1024 threads per SM: four blocks of 256.
    /// assert_eq!(Device::cpu().max_active_blocks_per_sm(&fill::KERNEL, 256, 0)?, 4);
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_active_blocks_per_sm(&self, kernel: &'static Kernel, block_threads: u32, dynamic_shared_bytes: u32) -> Result<u32> {
        self.inner.max_active_blocks_per_sm(kernel, block_threads, dynamic_shared_bytes)
    }

    /// The block size that keeps the most threads of `kernel` resident per SM, with
    /// `dynamic_shared_bytes` of dynamic shared memory per block, and the grid that fills the
    /// device: CUDA's `cudaOccupancyMaxPotentialBlockSize` (the largest such size; a
    /// `#[kernel(block = ...)]` kernel's one size).
    pub fn max_potential_block_size(&self, kernel: &'static Kernel, dynamic_shared_bytes: u32) -> Result<PotentialBlockSize> {
        let (block_threads, min_grid) = self.inner.max_potential_block_size(kernel, dynamic_shared_bytes)?;
        Ok(PotentialBlockSize { block_threads, min_grid })
    }
}

impl LaunchConfig {
    /// One thread per element, with the block size of
    /// [`Device::max_potential_block_size`] for `kernel` on `stream`'s device (no dynamic
    /// shared memory), enough blocks to cover `n` elements. `Err` for a kernel whose required
    /// block (`#[kernel(block = ...)]`) is not one-dimensional.
    pub fn for_num_elems_max_occupancy(stream: &Stream, kernel: &'static Kernel, n: u32) -> Result<LaunchConfig> {
        if let Some(b) = kernel.bounds.block.filter(|b| b.y != 1 || b.z != 1) {
            return Err(Error::InvalidConfig {
                reason: format!(
                    "kernel `{}` requires blocks of ({}, {}, {}) threads; a one-thread-per-element configuration is one-dimensional (use LaunchConfig::new)",
                    kernel.entry, b.x, b.y, b.z
                ),
            });
        }
        let size = stream.device().max_potential_block_size(kernel, 0)?;
        Ok(LaunchConfig::for_num_elems_with_block(n, size.block_threads))
    }
}
