//! Launch configurations: grid and block dimensions and dynamic shared memory.

use crate::error::{Error, Result};

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

    /// `x * y * z`, without overflow.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
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

/// How a kernel is launched: a grid of blocks, each a block of threads, plus dynamic shared
/// memory per block (`extern __shared__` in CUDA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_bytes: u32,
}

/// Limits every CUDA device since compute capability 3.0 shares.
pub mod limits {
    /// Threads per block.
    pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
    pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
    pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65535, 65535];
    /// Dynamic shared memory a launch gets without opting in per function.
    pub const DEFAULT_MAX_SHARED_BYTES: u32 = 48 * 1024;
}

impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig { grid: grid.into(), block: block.into(), shared_bytes: 0 }
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

    /// Checks the configuration against the CUDA limits, before any backend sees it.
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: String| Err(Error::InvalidConfig { reason });
        let (g, b) = (self.grid.to_array(), self.block.to_array());
        if g.contains(&0) || b.contains(&0) {
            return bad(format!("every grid and block dimension must be at least 1 (grid {g:?}, block {b:?})"));
        }
        if self.block.volume() > limits::MAX_THREADS_PER_BLOCK {
            return bad(format!(
                "{} threads per block (block {b:?}); the limit is {}",
                self.block.volume(),
                limits::MAX_THREADS_PER_BLOCK
            ));
        }
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if b[i] > limits::MAX_BLOCK[i] {
                return bad(format!("block.{axis} = {} exceeds {}", b[i], limits::MAX_BLOCK[i]));
            }
            if g[i] > limits::MAX_GRID[i] {
                return bad(format!("grid.{axis} = {} exceeds {}", g[i], limits::MAX_GRID[i]));
            }
        }
        if self.shared_bytes > limits::DEFAULT_MAX_SHARED_BYTES {
            return bad(format!(
                "{} bytes of dynamic shared memory; the limit is {} per block",
                self.shared_bytes,
                limits::DEFAULT_MAX_SHARED_BYTES
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(LaunchConfig::new(1, 32).with_shared_bytes(64 * 1024).validate().is_err());
    }
}
