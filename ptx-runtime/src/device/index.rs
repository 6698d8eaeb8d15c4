//! Where a thread is: its index in the block, the block's index in the grid, their sizes.
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | `thread_idx_x()` / `_y` / `_z` | `threadIdx.x` / `.y` / `.z` | `%tid.x` ... |
//! | `block_idx_x()` / `_y` / `_z` | `blockIdx.x` ... | `%ctaid.x` ... |
//! | `block_dim_x()` / `_y` / `_z` | `blockDim.x` ... | `%ntid.x` ... |
//! | `grid_dim_x()` / `_y` / `_z` | `gridDim.x` ... | `%nctaid.x` ... |
//! | `lane_id()` | `threadIdx.x % warpSize` (1-D blocks); `__lane_id()` | `%laneid` |
//! | `warp_size()`, [`WARP_SIZE`] | `warpSize` | `WARP_SZ` (32) |

use super::host::ctx;
use ptx_macros::__device_api as device_api;

/// Threads of a warp (CUDA `warpSize`).
pub const WARP_SIZE: u32 = super::host::WARP_SIZE;

macro_rules! coordinate {
    ($($(#[$doc:meta])* $name:ident => $field:ident[$i:literal];)*) => {$(
        $(#[$doc])*
        #[device_api]
        #[inline]
        pub fn $name() -> u32 {
            ctx(|c| c.$field[$i])
        }
    )*};
}

coordinate! {
    /// The thread's x index in its block (CUDA `threadIdx.x`, PTX `%tid.x`).
    thread_idx_x => thread[0];
    /// The thread's y index in its block (CUDA `threadIdx.y`, PTX `%tid.y`).
    thread_idx_y => thread[1];
    /// The thread's z index in its block (CUDA `threadIdx.z`, PTX `%tid.z`).
    thread_idx_z => thread[2];
    /// The block's x index in the grid (CUDA `blockIdx.x`, PTX `%ctaid.x`).
    block_idx_x => block[0];
    /// The block's y index in the grid (CUDA `blockIdx.y`, PTX `%ctaid.y`).
    block_idx_y => block[1];
    /// The block's z index in the grid (CUDA `blockIdx.z`, PTX `%ctaid.z`).
    block_idx_z => block[2];
    /// Threads per block along x (CUDA `blockDim.x`, PTX `%ntid.x`).
    block_dim_x => block_dim[0];
    /// Threads per block along y (CUDA `blockDim.y`, PTX `%ntid.y`).
    block_dim_y => block_dim[1];
    /// Threads per block along z (CUDA `blockDim.z`, PTX `%ntid.z`).
    block_dim_z => block_dim[2];
    /// Blocks in the grid along x (CUDA `gridDim.x`, PTX `%nctaid.x`).
    grid_dim_x => grid_dim[0];
    /// Blocks in the grid along y (CUDA `gridDim.y`, PTX `%nctaid.y`).
    grid_dim_y => grid_dim[1];
    /// Blocks in the grid along z (CUDA `gridDim.z`, PTX `%nctaid.z`).
    grid_dim_z => grid_dim[2];
}

/// The thread's lane in its warp, 0..32 (PTX `%laneid`; CUDA `threadIdx.x % warpSize` for
/// one-dimensional blocks).
#[device_api]
#[inline]
pub fn lane_id() -> u32 {
    ctx(|c| c.lane())
}

/// Threads of a warp: 32 (CUDA `warpSize`).
#[device_api]
#[inline]
pub fn warp_size() -> u32 {
    WARP_SIZE
}
