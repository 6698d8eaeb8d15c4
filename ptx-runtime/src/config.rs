//! Launch configurations: grid and block dimensions and dynamic shared memory.

use crate::error::Result;
use crate::limits;

/// Three dimensions, as CUDA's `dim3`. Converts from `u32`, `(u32, u32)` and `(u32, u32, u32)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// `x * y * z`, saturating at `u64::MAX` (three `u32`s can overflow a `u64`).
    pub const fn volume(self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }

    pub const fn to_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}

/// A kernel's launch bounds, as its PTX states them (`.reqntid`, `.maxntid`) and
/// `#[kernel(block = ..., launch_bounds(max_threads = ...))]` declares them. A launch outside
/// them is an `Error::InvalidConfig` on both backends, before anything runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchBounds {
    /// The one block shape the kernel may be launched with (`.reqntid`).
    pub block: Option<Dim3>,
    /// The most threads per block (`.maxntid x, y, z`: their product).
    pub max_threads: Option<u64>,
}

impl LaunchBounds {
    /// No bounds: any block the hardware allows.
    pub const NONE: LaunchBounds = LaunchBounds { block: None, max_threads: None };
}

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
}

impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig { grid: grid.into(), block: block.into(), shared_bytes: 0, max_dynamic_shared_bytes: None }
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

    /// Checks the dimensions against the CUDA limits, before any backend sees them. The
    /// shared-memory limits depend on the kernel's static shared memory and the architecture:
    /// each backend checks them with [`limits::check_shared`] once the kernel is loaded.
    pub fn validate(&self) -> Result<()> {
        limits::check_dims(self.grid.to_array(), self.block.to_array())
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
