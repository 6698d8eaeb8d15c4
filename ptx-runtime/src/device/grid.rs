//! The grid-wide barrier of cooperative launches.
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | [`grid_sync`] | `cooperative_groups::this_grid().sync()` | `bar.sync 0`; one thread per block: `atom.add.release.gpu` on the grid workspace's barrier word, `ld.acquire.gpu` until it flips; `bar.sync 0` |
//!
//! A grid barrier needs every block of the grid resident at once: launch such a kernel with
//! [`LaunchConfig::cooperative`](crate::LaunchConfig::cooperative), which checks that the grid
//! fits and launches it with `cuLaunchCooperativeKernel`. The driver then points `%envreg1:2`
//! at a zeroed grid workspace (`{ u32 size; u32 barrier; }`), and the barrier is the protocol
//! of cooperative groups' `details::sync_grids`, which is what nvcc compiles
//! `this_grid().sync()` to (tests/cuda/coop_groups.cu has the CUDA C; the suite compares):
//! after a block barrier, thread 0 of each block adds 1 to the barrier word — block (0,0,0)
//! adds `0x8000_0000 − (blocks − 1)`, so the word's top bit flips exactly when the last block
//! arrives — then spins until the top bit differs from what its add returned, and a second
//! block barrier releases the block. The release add and acquire loads make every block's
//! writes before the barrier visible to every thread after it. Outside a cooperative launch
//! the workspace is 0 and the kernel traps, as CUDA's does (`grid.is_valid()` is false).

use super::host::grid_exchange;
use super::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, grid_dim_y, grid_dim_z, sync_threads, thread_idx_x, thread_idx_y, thread_idx_z, trap};
use crate::{device_fn, ptx_asm};
use ptx_macros::__device_api as device_api;

/// Waits until every thread of the grid gets here; global memory written before it by any
/// thread of the grid is visible after it (cooperative groups' `this_grid().sync()`).
///
/// Only in a kernel launched cooperatively ([`LaunchConfig::cooperative`](crate::LaunchConfig::cooperative));
/// elsewhere the kernel traps on the device, and panics on the host. On the host it works in
/// [`host::run_cooperative`](super::host::run_cooperative), which runs every block at once.
#[device_api]
#[inline]
pub fn grid_sync() {
    grid_exchange();
}

/// The device side of [`grid_sync`], which device code calls instead (see the module
/// documentation for the protocol).
#[doc(hidden)]
#[device_fn]
pub fn __grid_sync() {
    let hi: u32;
    let lo: u32;
    ptx_asm!("mov.u32 {0}, %envreg1;", out(u32) hi);
    ptx_asm!("mov.u32 {0}, %envreg2;", out(u32) lo);
    let workspace = ((hi as u64) << 32) | lo as u64;
    if workspace == 0 {
        // Not a cooperative launch: no workspace, no barrier.
        trap();
    }
    sync_threads();
    if thread_idx_x() == 0 && thread_idx_y() == 0 && thread_idx_z() == 0 {
        let blocks = grid_dim_x().wrapping_mul(grid_dim_y()).wrapping_mul(grid_dim_z());
        let first = block_idx_x() == 0 && block_idx_y() == 0 && block_idx_z() == 0;
        let add = if first { 0x8000_0000u32.wrapping_sub(blocks.wrapping_sub(1)) } else { 1 };
        let barrier = workspace + 4;
        let old: u32;
        ptx_asm!("atom.add.release.gpu.u32 {0}, [{1}], {2};", out(u32) old, in(u64) barrier, in(u32) add);
        loop {
            let now: u32;
            ptx_asm!("ld.acquire.gpu.u32 {0}, [{1}];", out(u32) now, in(u64) barrier);
            if (old ^ now) & 0x8000_0000 != 0 {
                break;
            }
        }
    }
    sync_threads();
}
