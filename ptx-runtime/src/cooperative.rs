//! Cooperative launches: grids whose blocks are all resident at once, so they may wait for each
//! other with [`grid_sync`](crate::device::grid_sync) (CUDA's `cudaLaunchCooperativeKernel`
//! and cooperative groups' `this_grid().sync()`).
//!
//! A block waiting at a grid barrier holds its SM until every other block arrives, so a grid
//! with more blocks than the device holds at once would wait forever. The launcher therefore
//! checks co-residency first, with the occupancy calculator
//! ([`Device::max_active_blocks_per_sm`] × multiprocessors), and returns `Err` for a grid that
//! cannot be resident, as CUDA does (`CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`), instead of
//! hanging. The CPU backend runs every block of a cooperative grid interleaved with the others
//! (each for a time slice in turn), never one after another.

use crate::config::LaunchConfig;
use crate::devices::Device;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::stream::Stream;

impl Device {
    /// Whether this device can launch cooperative kernels (`cudaDevAttrCooperativeLaunch`;
    /// every GPU CUDA 13 supports, and the CPU backend).
    pub fn supports_cooperative_launch(&self) -> Result<bool> {
        self.inner.supports_cooperative_launch()
    }

    /// The most blocks of `kernel` a cooperative launch with `block_threads` threads and
    /// `dynamic_shared_bytes` of dynamic shared memory per block may have: blocks per SM (as
    /// [`max_active_blocks_per_sm`](Device::max_active_blocks_per_sm) counts them) times the
    /// multiprocessors (on the CPU backend, its worker threads).
    ///
    /// ```
    /// # fn main() -> ptx_runtime::Result<()> {
    /// use ptx_runtime::{device::*, Device, DeviceBuffer, LaunchConfig};
    /// #[ptx_runtime::kernel]
    /// pub fn shift(x: &mut [u32], out: &mut [u32]) {
    ///     let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    ///     x[i] = i as u32;
    ///     grid_sync(); // every block's write is visible after this
    ///     out[i] = x[(i + 1) % x.len()];
    /// }
    /// let device = Device::cpu();
    /// let stream = device.stream();
    /// let blocks = device.max_cooperative_grid(&shift::KERNEL, 64, 0)?.min(4);
    /// let n = (blocks * 64) as usize;
    /// let (mut x, mut out) = (DeviceBuffer::<u32>::zeroed(&stream, n)?, DeviceBuffer::<u32>::zeroed(&stream, n)?);
    /// shift::launch(&stream, LaunchConfig::new(blocks, 64).cooperative(), &mut x, &mut out)?;
    /// assert_eq!(out.to_vec()?[n - 1], 0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_cooperative_grid(&self, kernel: &'static Kernel, block_threads: u32, dynamic_shared_bytes: u32) -> Result<u32> {
        let per_sm = self.max_active_blocks_per_sm(kernel, block_threads, dynamic_shared_bytes)?;
        let sms = self.properties()?.multiprocessors;
        Ok(per_sm.saturating_mul(sms))
    }
}

impl Stream {
    /// `Err` unless every block of `config`'s grid can be resident at once.
    pub(crate) fn check_co_resident(&self, kernel: &'static Kernel, config: &LaunchConfig) -> Result<()> {
        let device = self.device();
        if !device.supports_cooperative_launch()? {
            return Err(Error::InvalidConfig { reason: format!("{} cannot launch cooperative kernels", device.name()) });
        }
        let threads = u32::try_from(config.block.volume()).unwrap_or(u32::MAX);
        let max = device.max_cooperative_grid(kernel, threads, config.shared_bytes)?;
        let grid = config.grid.volume();
        if grid > max as u64 {
            return Err(Error::InvalidConfig {
                reason: format!(
                    "a cooperative launch of `{}` with {grid} blocks of {threads} threads: at most {max} such blocks can be resident at once on {} (Device::max_cooperative_grid), and a grid barrier needs all of them; launch fewer blocks and loop over the data in the kernel",
                    kernel.entry,
                    device.name()
                ),
            });
        }
        Ok(())
    }
}
