//! Synccheck: the rules of barriers and warp-synchronous instructions that the backend
//! otherwise tolerates, as `compute-sanitizer --tool synccheck` checks them on a GPU.
//! Always checked (memcheck): a member mask without the executing lane, overlapping masks of
//! one warp, lanes of a warp at different `bar.sync` instructions, barriers that can never
//! complete. With synccheck on, also:
//!
//! - a `*_sync` member mask naming lanes that have exited or that the block does not have
//!   (`__shfl_sync(0xffffffff, …)` after some lanes returned, or in a block of 16 threads) —
//!   otherwise those lanes are simply not waited for;
//! - a barrier thread count that is not a positive multiple of the warp size, or more than
//!   the block has (`bar.sync 1, 48`).
//!
//! Not checked: a warp reaching an aligned barrier diverged, though at the same instruction.
//! The scheduler reconverges lanes where their program counters meet, not at the immediate
//! post-dominator, so lanes of correct kernels (the corpus's matmul, scan) can arrive at a
//! `bar.sync` in separate groups here; that would be a false report.

use crate::error::{Error, FaultKind};
use crate::exec::block::Block;
use crate::exec::warp::Warp;

impl<'l> Block<'l> {
    /// A member mask naming lanes that are not live.
    pub(crate) fn sync_check_mask(&self, w: &Warp, lane: usize, mask: u32, line: u32) -> Result<(), Error> {
        let absent = mask & !w.live;
        if absent == 0 {
            return Ok(());
        }
        let threads = self.l.block[0] * self.l.block[1] * self.l.block[2];
        let missing = (0..32u32).filter(|k| absent >> k & 1 != 0 && w.index * 32 + k >= threads).fold(0u32, |m, k| m | 1 << k);
        let why = if missing == absent { "which the block does not have" } else { "which have exited (or the block does not have)" };
        Err(self.fault_at(
            w,
            lane,
            FaultKind::InvalidWarpSync,
            None,
            Some(line as usize),
            format!("synccheck: member mask {mask:#010x} names lane(s) {absent:#010x}, {why}; a warp-synchronous instruction's mask must name only threads that execute it"),
        ))
    }

    /// A barrier's thread count.
    pub(crate) fn sync_check_count(&self, w: &Warp, lane: usize, count: u64, line: u32) -> Result<(), Error> {
        let threads = (self.l.block[0] * self.l.block[1] * self.l.block[2]) as u64;
        let why = if count == 0 || !count.is_multiple_of(32) {
            "is not a positive multiple of the warp size (32)"
        } else if count > threads.div_ceil(32) * 32 {
            "is more than the block's threads"
        } else {
            return Ok(());
        };
        Err(self.fault_at(w, lane, FaultKind::BarrierDivergence, None, Some(line as usize), format!("synccheck: barrier thread count {count} {why} ({threads} threads in the block)")))
    }
}
