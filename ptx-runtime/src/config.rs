//! Launch configurations: grid and block dimensions and dynamic shared memory.

use crate::error::Result;
use crate::limits;
pub use ptx_abi::launch::{Dim3, LaunchBounds};

/// How a kernel is launched: a grid of blocks, each a block of threads, plus dynamic shared
/// memory per block (`extern __shared__` in CUDA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_bytes: u32,
    /// The opt-in to more than 48 KiB of shared memory per block: the most dynamic shared
    /// memory the kernel may be launched with (CUDA's
    /// `cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, n)`, which the CUDA
    /// backend sets before the launch). `None`: static plus dynamic at most 48 KiB.
    pub max_dynamic_shared_bytes: Option<u32>,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block of the grid resident
    /// at once, so the kernel may call [`grid_sync`](crate::device::grid_sync). The launcher
    /// returns `Err` for a grid that cannot be resident ([`Device::max_cooperative_grid`](crate::Device::max_cooperative_grid)).
    pub cooperative: bool,
}

impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig { grid: grid.into(), block: block.into(), shared_bytes: 0, max_dynamic_shared_bytes: None, cooperative: false }
    }

    /// One thread per element, 256 threads per block, enough blocks to cover `n` elements.
    pub fn for_num_elems(n: u32) -> LaunchConfig {
        Self::for_num_elems_with_block(n, 256)
    }

    /// One thread per element with the given block size.
    pub fn for_num_elems_with_block(n: u32, block: u32) -> LaunchConfig {
        let block = block.max(1);
        LaunchConfig::new(n.div_ceil(block).max(1), block)
    }

    /// Sets the dynamic shared memory per block, in bytes.
    pub fn with_shared_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.shared_bytes = bytes;
        self
    }

    /// Opts in to up to `bytes` of dynamic shared memory per block, past the default 48 KiB
    /// (static plus `bytes` must fit the architecture's limit, [`limits::SHARED_OPT_IN`]).
    ///
    /// ```
    /// use ptx_runtime::LaunchConfig;
    /// let big = LaunchConfig::new(1, 256).with_shared_bytes(80 << 10).with_max_dynamic_shared_bytes(80 << 10);
    /// assert!(big.validate().is_ok());
    /// ```
    pub fn with_max_dynamic_shared_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.max_dynamic_shared_bytes = Some(bytes);
        self
    }

    /// Makes the launch cooperative (see [`cooperative`](LaunchConfig::cooperative)).
    pub fn cooperative(mut self) -> LaunchConfig {
        self.cooperative = true;
        self
    }

    /// Checks the dimensions against the CUDA limits, before any backend sees them. The
    /// shared-memory limits depend on the kernel's static shared memory and the architecture:
    /// each backend checks them with [`limits::check_shared`] once the kernel is loaded.
    pub fn validate(&self) -> Result<()> {
        Ok(limits::check_dims(self.grid.to_array(), self.block.to_array())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn one_dimensional_helper_covers_every_element() {
        let c = LaunchConfig::for_num_elems(1000);
        assert_eq!((c.grid.x, c.block.x), (4, 256));
        assert_eq!(LaunchConfig::for_num_elems(0).grid.x, 1);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn limits_are_errors() {
        assert!(matches!(LaunchConfig::new(1, 1025).validate(), Err(Error::InvalidConfig { .. })));
        assert!(matches!(LaunchConfig::new(1, (32, 32, 2)).validate(), Err(Error::InvalidConfig { .. })));
        assert!(matches!(LaunchConfig::new(0, 32).validate(), Err(Error::InvalidConfig { .. })));
        assert!(matches!(LaunchConfig::new((1, 70000), 32).validate(), Err(Error::InvalidConfig { .. })));
        assert!(matches!(LaunchConfig::new(1, (1, 1, 65)).validate(), Err(Error::InvalidConfig { .. })));
        let huge = Dim3::new(u32::MAX, u32::MAX, u32::MAX);
        assert_eq!(huge.volume(), u64::MAX, "saturates instead of overflowing");
        assert!(matches!(LaunchConfig::new(huge, huge).validate(), Err(Error::InvalidConfig { .. })));
    }
}
