//! Launching: the shape of a grid ([`Dim3`]), a kernel's launch bounds, and CUDA's launch
//! limits — the one table the runtime checks a launch against before the CUDA driver sees it,
//! and the CPU emulator checks it against so that it accepts exactly the launches a GPU of the
//! same compute capability accepts.
//!
//! Numbers from the CUDA C++ Programming Guide, "Technical Specifications per Compute
//! Capability"; the 48 KiB static limit is ptxas's ("uses too much shared data (0x10000
//! bytes, 0xc000 max)", on every architecture).

use alloc::format;
use alloc::string::String;

/// Why a launch is refused: its configuration, or (static shared memory) the module itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// The grid, block, shared memory or launch bounds; the reason in words.
    InvalidConfig(String),
    /// What ptxas would report while loading the module.
    PtxLoad(String),
}

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
/// them is refused ([`check_bounds`]) on both backends, before anything runs.
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

/// Threads per block.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Threads per block along x, y, z.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// Blocks per grid along x, y, z.
pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65535, 65535];
/// Static shared memory per kernel, and static plus dynamic shared memory per block unless the
/// launch opts in to more (`LaunchConfig::with_max_dynamic_shared_bytes` in `ptx-runtime`).
///
pub const DEFAULT_MAX_SHARED_BYTES: u32 = 48 * 1024;

/// Per compute capability (`sm` = major * 10 + minor): the most shared memory (static plus
/// dynamic) one block may use after opting in (`cudaDevAttrMaxSharedMemoryPerBlockOptin`).
pub const SHARED_OPT_IN: [(u32, u32); 19] = [
    (50, 48 * 1024),
    (52, 48 * 1024),
    (53, 48 * 1024),
    (60, 48 * 1024),
    (61, 48 * 1024),
    (62, 48 * 1024),
    (70, 96 * 1024),
    (72, 96 * 1024),
    (75, 64 * 1024),
    (80, 163 * 1024),
    (86, 99 * 1024),
    (87, 163 * 1024),
    (89, 99 * 1024),
    (90, 227 * 1024),
    (100, 227 * 1024),
    (103, 227 * 1024),
    (110, 227 * 1024),
    (120, 99 * 1024),
    (121, 99 * 1024),
];

/// The largest opt-in shared memory of any architecture.
pub const MAX_SHARED_BYTES_ANY_ARCH: u32 = 227 * 1024;

/// The opt-in shared-memory limit of compute capability `sm`: its row, else the nearest older
/// architecture's (an unknown newer part is assumed no larger than its predecessor).
pub fn max_shared_opt_in(sm: u32) -> u32 {
    SHARED_OPT_IN.iter().rev().find(|(s, _)| *s <= sm).map_or(DEFAULT_MAX_SHARED_BYTES, |&(_, b)| b)
}

/// What one multiprocessor holds at once, per compute capability: the occupancy limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// Resident threads per SM.
    pub threads: u32,
    /// Resident blocks per SM.
    pub blocks: u32,
    /// Shared memory per SM, in bytes (the largest carveout).
    pub shared_bytes: u32,
    /// Shared memory the system reserves for each resident block (`cudaDevAttrReservedSharedMemoryPerBlock`).
    pub reserved_shared_per_block: u32,
    /// Granularity of a block's shared-memory allocation, in bytes.
    pub shared_granularity: u32,
}

const fn sm_row(threads: u32, blocks: u32, shared_kib: u32, reserved: u32, granularity: u32) -> SmLimits {
    SmLimits { threads, blocks, shared_bytes: shared_kib * 1024, reserved_shared_per_block: reserved, shared_granularity: granularity }
}

/// Per compute capability: resident threads, blocks and shared memory per SM (CUDA C++
/// Programming Guide, "Technical Specifications per Compute Capability"; the reserved 1 KiB
/// per block from sm_80 on, the blocks per SM and the allocation granularity as CUDA's
/// occupancy calculator, `cuda_occupancy.h`, has them: `tests/suite/runtime_occupancy.rs`
/// compiles that header and checks every row). Registers are not here: they depend on the
/// compiled code.
pub const SM_LIMITS: [(u32, SmLimits); 17] = [
    (50, sm_row(2048, 32, 64, 0, 256)),
    (52, sm_row(2048, 32, 96, 0, 256)),
    (53, sm_row(2048, 32, 64, 0, 256)),
    (60, sm_row(2048, 32, 64, 0, 256)),
    (61, sm_row(2048, 32, 96, 0, 256)),
    (62, sm_row(2048, 32, 64, 0, 256)),
    (70, sm_row(2048, 32, 96, 0, 256)),
    (72, sm_row(2048, 32, 96, 0, 256)),
    (75, sm_row(1024, 16, 64, 0, 256)),
    (80, sm_row(2048, 32, 164, 1024, 128)),
    (86, sm_row(1536, 16, 100, 1024, 128)),
    (87, sm_row(1536, 16, 164, 1024, 128)),
    (89, sm_row(1536, 24, 100, 1024, 128)),
    (90, sm_row(2048, 32, 228, 1024, 128)),
    (100, sm_row(2048, 32, 228, 1024, 128)),
    (110, sm_row(2048, 24, 228, 1024, 128)),
    (120, sm_row(1536, 24, 100, 1024, 128)),
];

/// The SM limits of compute capability `sm`: its row, else the nearest older architecture's
/// (the oldest row for anything older).
pub fn sm_limits(sm: u32) -> SmLimits {
    SM_LIMITS.iter().rev().find(|(s, _)| *s <= sm).map_or(SM_LIMITS[0].1, |&(_, l)| l)
}

/// How many blocks of `block_threads` threads, each using `static_bytes + dynamic` of shared
/// memory, one SM of compute capability `sm` holds at once: CUDA's
/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` without the register limit (the minimum of
/// the block, warp and shared-memory limits). `Err` for a block size outside 1..=1024, one the
/// launch bounds refuse, or more shared memory than a block may have on `sm`.
pub fn max_active_blocks(sm: u32, kernel: &str, bounds: &LaunchBounds, block_threads: u32, static_bytes: u32, dynamic: u32) -> Result<u32, LaunchError> {
    check_block_threads(kernel, bounds, block_threads)?;
    let shared = static_bytes as u64 + dynamic as u64;
    let limit = max_shared_opt_in(sm);
    if shared > limit as u64 {
        return Err(invalid(format!(
            "{shared} bytes of shared memory per block ({static_bytes} static + {dynamic} dynamic) exceed sm_{sm}'s {limit}-byte limit"
        )));
    }
    let l = sm_limits(sm);
    let warps = block_threads.div_ceil(32);
    let by_warps = (l.threads / 32) / warps;
    let unit = l.shared_granularity as u64;
    let per_block = (shared + l.reserved_shared_per_block as u64).div_ceil(unit) * unit;
    let by_shared = (l.shared_bytes as u64).checked_div(per_block).map_or(u32::MAX, |b| b as u32);
    Ok(l.blocks.min(by_warps).min(by_shared))
}

/// The block size that maximises the threads resident per SM, as CUDA's
/// `cudaOccupancyMaxPotentialBlockSize` chooses it (the largest such size, trying the kernel's
/// limit and then multiples of 32 downwards; a `.reqntid` kernel has its one size), and the
/// blocks per SM at that size: `(block_threads, blocks_per_sm)`.
pub fn max_potential_block_size(sm: u32, kernel: &str, bounds: &LaunchBounds, static_bytes: u32, dynamic: u32) -> Result<(u32, u32), LaunchError> {
    if let Some(b) = bounds.block {
        let threads = b.volume().min(u32::MAX as u64) as u32;
        return Ok((threads, max_active_blocks(sm, kernel, bounds, threads, static_bytes, dynamic)?));
    }
    let max = bounds.max_threads.unwrap_or(MAX_THREADS_PER_BLOCK).clamp(1, MAX_THREADS_PER_BLOCK) as u32;
    let mut best = (0, 0, 0);
    let mut size = max;
    while size > 0 {
        let blocks = max_active_blocks(sm, kernel, bounds, size, static_bytes, dynamic)?;
        if blocks * size > best.0 {
            best = (blocks * size, size, blocks);
        }
        // Then the multiples of 32 below the limit.
        size = (size.div_ceil(32) - 1) * 32;
    }
    if best.0 == 0 {
        return Err(invalid(format!("kernel `{kernel}`: no block size fits on one SM of sm_{sm} with {dynamic} bytes of dynamic shared memory")));
    }
    Ok((best.1, best.2))
}

/// A thread count for a block: within 1..=1024 and the kernel's launch bounds.
fn check_block_threads(kernel: &str, bounds: &LaunchBounds, block_threads: u32) -> Result<(), LaunchError> {
    if block_threads == 0 || block_threads as u64 > MAX_THREADS_PER_BLOCK {
        return Err(invalid(format!("{block_threads} threads per block; a block has 1 to {MAX_THREADS_PER_BLOCK}")));
    }
    match bounds.block {
        Some(b) if b.volume() != block_threads as u64 => {
            let [x, y, z] = b.to_array();
            Err(invalid(format!("kernel `{kernel}` requires blocks of ({x}, {y}, {z}) threads (`#[kernel(block = ...)]`); {block_threads} threads asked for")))
        }
        _ => check_bounds(kernel, [block_threads, 1, 1], &LaunchBounds { block: None, ..*bounds }),
    }
}

fn invalid(reason: String) -> LaunchError {
    LaunchError::InvalidConfig(reason)
}

/// Grid and block dimensions: none zero, none above its axis limit, at most 1024 threads.
pub fn check_dims(grid: [u32; 3], block: [u32; 3]) -> Result<(), LaunchError> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(invalid(format!("every grid and block dimension must be at least 1 (grid {grid:?}, block {block:?})")));
    }
    let threads = Dim3::new(block[0], block[1], block[2]).volume();
    if threads > MAX_THREADS_PER_BLOCK {
        return Err(invalid(format!("{threads} threads per block (block {block:?}); the limit is {MAX_THREADS_PER_BLOCK}")));
    }
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        if block[i] > MAX_BLOCK[i] {
            return Err(invalid(format!("block.{axis} = {} exceeds {}", block[i], MAX_BLOCK[i])));
        }
        if grid[i] > MAX_GRID[i] {
            return Err(invalid(format!("grid.{axis} = {} exceeds {}", grid[i], MAX_GRID[i])));
        }
    }
    Ok(())
}

/// A block shape against the kernel's launch bounds (its PTX's `.reqntid` and `.maxntid`,
/// which `#[kernel(block = ..., launch_bounds(max_threads = ...))]` writes): the body may rely
/// on them (range analysis does), so a launch outside them is refused before it starts, as the
/// CUDA driver refuses it.
pub fn check_bounds(kernel: &str, block: [u32; 3], bounds: &LaunchBounds) -> Result<(), LaunchError> {
    if let Some(want) = bounds.block {
        if want.to_array() != block {
            let [x, y, z] = want.to_array();
            return Err(invalid(format!(
                "kernel `{kernel}` requires blocks of ({x}, {y}, {z}) threads (`#[kernel(block = ...)]`, PTX `.reqntid`); the launch asks for {block:?}"
            )));
        }
    }
    if let Some(max) = bounds.max_threads {
        let threads = Dim3::new(block[0], block[1], block[2]).volume();
        if threads > max {
            return Err(invalid(format!(
                "kernel `{kernel}` takes at most {max} threads per block (`launch_bounds(max_threads = {max})`, PTX `.maxntid`); the launch asks for {threads} (block {block:?})"
            )));
        }
    }
    Ok(())
}

/// A kernel's static shared memory, as ptxas checks it when the module loads (a
/// [`LaunchError::PtxLoad`]).
pub fn check_static_shared(kernel: &str, static_bytes: u64) -> Result<(), LaunchError> {
    if static_bytes > DEFAULT_MAX_SHARED_BYTES as u64 {
        return Err(LaunchError::PtxLoad(format!(
            "Entry function '{kernel}' uses too much shared data ({static_bytes:#x} bytes, {DEFAULT_MAX_SHARED_BYTES:#x} max)"
        )));
    }
    Ok(())
}

/// The opt-in itself (`cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dynamic)`):
/// static plus `max_dynamic` must fit the architecture's opt-in limit.
pub fn check_max_dynamic(sm: u32, static_bytes: u32, max_dynamic: u32) -> Result<(), LaunchError> {
    let limit = max_shared_opt_in(sm);
    if static_bytes as u64 + max_dynamic as u64 > limit as u64 {
        return Err(invalid(format!(
            "opting in to {max_dynamic} bytes of dynamic shared memory: with {static_bytes} static that exceeds sm_{sm}'s {limit}-byte limit per block"
        )));
    }
    Ok(())
}

/// A launch's shared memory: `dynamic` must fit under the opt-in (`max_dynamic`), or without
/// one, static plus dynamic must fit in 48 KiB.
pub fn check_shared(sm: u32, static_bytes: u32, dynamic: u32, max_dynamic: Option<u32>) -> Result<(), LaunchError> {
    match max_dynamic {
        Some(max) => {
            check_max_dynamic(sm, static_bytes, max)?;
            if dynamic > max {
                return Err(invalid(format!("{dynamic} bytes of dynamic shared memory exceed the {max} the launch opted in to")));
            }
        }
        None => {
            let total = static_bytes as u64 + dynamic as u64;
            if total > DEFAULT_MAX_SHARED_BYTES as u64 {
                return Err(invalid(format!(
                    "{total} bytes of shared memory ({static_bytes} static + {dynamic} dynamic) exceed the {DEFAULT_MAX_SHARED_BYTES} a block gets without opting in (LaunchConfig::with_max_dynamic_shared_bytes, up to {} on sm_{sm})",
                    max_shared_opt_in(sm)
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_matches_the_programming_guide() {
        assert!(SHARED_OPT_IN.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(SHARED_OPT_IN.iter().map(|r| r.1).max(), Some(MAX_SHARED_BYTES_ANY_ARCH));
        // The rows the issue names, as cudaDevAttrMaxSharedMemoryPerBlockOptin reports them.
        for (sm, bytes) in [(75, 65536), (80, 166912), (86, 101376), (89, 101376), (90, 232448)] {
            assert_eq!(max_shared_opt_in(sm), bytes, "sm_{sm}");
        }
        assert_eq!(max_shared_opt_in(91), 227 * 1024, "an unknown part takes its predecessor's row");
        assert_eq!(max_shared_opt_in(30), DEFAULT_MAX_SHARED_BYTES);
    }

    #[test]
    fn dimensions() {
        assert!(check_dims([1, 1, 1], [1024, 1, 1]).is_ok());
        assert!(check_dims([(1 << 31) - 1, 65535, 65535], [1, 1, 64]).is_ok());
        for (g, b) in [
            ([1, 1, 1], [1025, 1, 1]),
            ([1, 1, 1], [32, 32, 2]),
            ([1, 1, 1], [1, 1, 65]),
            ([0, 1, 1], [1, 1, 1]),
            ([1, 70000, 1], [1, 1, 1]),
            ([1 << 31, 1, 1], [1, 1, 1]),
            // The thread count must not overflow on the way to the check.
            ([1, 1, 1], [u32::MAX, u32::MAX, u32::MAX]),
            ([1, 1, 1], [65536, 65536, 1]),
        ] {
            assert!(matches!(check_dims(g, b), Err(LaunchError::InvalidConfig(_))), "{g:?} {b:?}");
        }
    }

    #[test]
    fn shared_memory_without_and_with_opt_in() {
        assert!(check_static_shared("k", 48 * 1024).is_ok());
        match check_static_shared("k", 64 * 1024) {
            Err(LaunchError::PtxLoad(log)) => assert!(log.contains("(0x10000 bytes, 0xc000 max)"), "{log}"),
            other => panic!("{other:?}"),
        }
        assert!(check_shared(90, 40 * 1024, 8 * 1024, None).is_ok());
        assert!(check_shared(90, 40 * 1024, 40 * 1024, None).is_err());
        assert!(check_shared(90, 40 * 1024, 40 * 1024, Some(40 * 1024)).is_ok());
        assert!(check_shared(90, 40 * 1024, 41 * 1024, Some(40 * 1024)).is_err(), "more than opted in");
        assert!(check_shared(75, 0, 64 * 1024, Some(64 * 1024)).is_ok());
        assert!(check_shared(75, 1, 64 * 1024, Some(64 * 1024)).is_err(), "past sm_75's 64 KiB");
        assert!(check_shared(80, 0, 163 * 1024, Some(163 * 1024)).is_ok());
        assert!(check_shared(86, 0, 100 * 1024, Some(100 * 1024)).is_err());
        assert!(check_shared(90, u32::MAX, u32::MAX, Some(u32::MAX)).is_err());
        assert!(check_shared(90, u32::MAX, u32::MAX, None).is_err());
    }

    #[test]
    fn occupancy_as_the_occupancy_calculator_computes_it() {
        assert!(SM_LIMITS.windows(2).all(|w| w[0].0 < w[1].0));
        let none = LaunchBounds::NONE;
        // sm_75: 1024 threads, 16 blocks per SM.
        assert_eq!(max_active_blocks(75, "k", &none, 256, 0, 0), Ok(4));
        assert_eq!(max_active_blocks(75, "k", &none, 32, 0, 0), Ok(16));
        // sm_86: 1536 threads (48 warps); 33 threads take two warps.
        assert_eq!(max_active_blocks(86, "k", &none, 33, 0, 0), Ok(16));
        assert_eq!(max_active_blocks(86, "k", &none, 1024, 0, 0), Ok(1));
        // sm_90: 228 KiB per SM, 1 KiB reserved per block: 20 KiB static + 1 KiB = 21 KiB → 10.
        assert_eq!(max_active_blocks(90, "k", &none, 64, 20 * 1024, 0), Ok(10));
        assert_eq!(max_potential_block_size(90, "k", &none, 0, 0), Ok((1024, 2)));
        // sm_86: 1536 threads; 1024 leaves 512 idle, 768 fills the SM.
        assert_eq!(max_potential_block_size(86, "k", &none, 0, 0), Ok((768, 2)));
        let maxntid = LaunchBounds { block: None, max_threads: Some(100) };
        // 100 threads take 4 warps (16 blocks, 1600 threads); 64 take 2 (32 blocks, 2048).
        assert_eq!(max_active_blocks(80, "k", &maxntid, 100, 0, 0), Ok(16));
        assert_eq!(max_potential_block_size(80, "k", &maxntid, 0, 0), Ok((64, 32)));
        assert!(max_active_blocks(80, "k", &maxntid, 128, 0, 0).is_err());
        let reqntid = LaunchBounds { block: Some(Dim3::new(16, 8, 1)), max_threads: None };
        assert_eq!(max_potential_block_size(80, "k", &reqntid, 0, 0), Ok((128, 16)));
        assert!(max_active_blocks(80, "k", &reqntid, 256, 0, 0).is_err());
        for bad in [0, 1025, u32::MAX] {
            assert!(max_active_blocks(90, "k", &none, bad, 0, 0).is_err());
        }
        assert!(max_active_blocks(75, "k", &none, 32, 0, 64 * 1024 + 1).is_err());
        assert!(max_active_blocks(90, "k", &none, 32, u32::MAX, u32::MAX).is_err());
        assert!(max_potential_block_size(90, "k", &none, 0, u32::MAX).is_err());
    }
}
