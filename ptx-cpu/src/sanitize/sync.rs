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
//! - a divergent aligned barrier: a `bar.sync` without a thread count (`sync_threads()`)
//!   that completes while threads of the block exited without reaching it *after running code
//!   beyond it* (`if t < 16 { sync_threads(); } y[t] = …;`: threads 16.. store and exit
//!   while 0..15 wait). The rule, at each release: an exited thread that never arrived at this
//!   barrier and ran a kernel instruction (other than `ret`/`exit`) laid out after it skipped
//!   the barrier. The common early return (`if i >= n { return; } … sync_threads();`) exits
//!   before the barrier's code and is not reported, as on a GPU, where exited threads do not
//!   hold a barrier up (strict barriers, `CpuDevice::set_strict_barriers`, report that too).
//!
//! Lanes of one warp arriving at the same `bar.sync` in separate groups are not reported: the
//! scheduler reconverges lanes where their program counters meet, not at the immediate
//! post-dominator, so lanes of correct kernels (the corpus's matmul, scan) arrive that way
//! here. Barriers inside device functions are left to the checks above (the rule compares
//! kernel-level code positions only).

use crate::error::{Error, FaultKind};
use crate::exec::block::Block;
use crate::exec::warp::{lanes, Warp, BAR};

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

impl<'l> Block<'l> {
    /// Notes that the lanes of `lanes_mask` ran kernel-level instructions up to `hi - 1` (not
    /// counting `ret`/`exit`: an early return's exit block is often laid out last).
    #[inline]
    pub(crate) fn sync_note(w: &mut Warp, lanes_mask: u32, hi: u32) {
        if hi == 0 {
            return;
        }
        for l in lanes(lanes_mask) {
            w.sync_hi[l] = w.sync_hi[l].max(hi);
        }
    }

    /// Before barrier `id` (no thread count) is released: every exited thread of a warp that
    /// waits at it must not have run code laid out after it since the previous release.
    pub(crate) fn sync_check_skipped(&self, warps: &mut [Warp], id: usize) -> Result<(), Error> {
        let threads = self.l.block[0] * self.l.block[1] * self.l.block[2];
        for w in warps.iter() {
            let Some(l) = (0..32).find(|&l| w.state[l] == BAR && w.bar_id[l] as usize == id && w.depth[l] == 0) else { continue };
            let bar_pc = w.pc[l] - 1;
            let exists = (0..32u32).filter(|k| w.index * 32 + k < threads).fold(0u32, |m, k| m | 1 << k);
            let skipped = lanes(exists & !w.live).find(|&k| w.sync_hi[k] > bar_pc + 1);
            if let Some(k) = skipped {
                let ran = self.l.prog.insts.get(w.sync_hi[k] as usize - 1).map_or(0, |i| i.line);
                let line = self.l.prog.insts.get(bar_pc as usize).map(|i| i.line as usize);
                let t = [w.tid[0][k], w.tid[1][k], w.tid[2][k]];
                return Err(self.fault_at(
                    w,
                    l,
                    FaultKind::BarrierDivergence,
                    None,
                    line,
                    format!(
                        "synccheck: divergent barrier {id}: thread ({}, {}, {}) of this warp did not reach it but ran on past it (to {}) and exited; an aligned barrier (`bar.sync`, `sync_threads()`) must be reached by every thread of the block that has not exited",
                        t[0],
                        t[1],
                        t[2],
                        self.place(ran)
                    ),
                ));
            }
        }
        for w in warps.iter_mut() {
            w.sync_hi = [0; 32];
        }
        Ok(())
    }
}
