//! A warp's state and how its lanes are grouped for execution.
//!
//! **Divergence model: per-lane program counters with warp-level grouping**, the model of
//! Volta's independent thread scheduling (every target here is sm_70 or later). Each lane has
//! its own PC and call depth. The scheduler repeatedly picks the lanes that share the
//! *deepest call level, then lowest PC* and runs them together, one instruction for all of
//! them per step (lane-vectorized), until they diverge, meet other lanes (which then join),
//! block, or pass the PC of the next waiting group. Lanes that took the short side of a branch
//! therefore wait at the join point until the others arrive — reconvergence at the immediate
//! post-dominator for structured code, without computing post-dominators — and, unlike a SIMT
//! stack, lanes that spin waiting for another lane of the same warp (a lock) do not starve it:
//! after [`ROTATE_AFTER`] instructions while other lanes are runnable the scheduler gives the
//! next group a turn. Warp-synchronous instructions wait until the lanes their member mask
//! names arrive, exactly as the PTX ISA specifies for sm_70+.

use crate::program::{Lanes, Program};

pub const RUN: u8 = 0;
pub const EXITED: u8 = 1;
/// Waiting at a `bar.sync`-family barrier.
pub const BAR: u8 = 2;
/// Waiting in a warp-synchronous instruction for the rest of its member mask.
pub const WSYNC: u8 = 3;

/// Instructions a group may run while other lanes are runnable before they get a turn.
pub const ROTATE_AFTER: u32 = 2048;
/// Instructions a rotated-in group runs before ordinary scheduling resumes.
pub const ROTATE_SLICE: u32 = 256;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub ret_pc: u32,
    pub func: u32,
    pub local_base: u32,
    pub local_sp: u32,
    pub param_base: u32,
    pub param_sp: u32,
}

/// Lanes picked to run together.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pub mask: u32,
    pub pc: u32,
    pub depth: u16,
    /// The key of the next runnable lanes (`u64::MAX`: none).
    pub next_key: u64,
    /// Instructions to run before yielding to lower keys (a rotated-in group).
    pub sticky: u32,
}

#[inline(always)]
pub fn key(depth: u16, pc: u32) -> u64 {
    ((0xffff - depth as u64) << 32) | pc as u64
}

#[inline(always)]
pub fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

pub struct Warp {
    pub index: u32,
    pub pc: [u32; 32],
    pub depth: [u16; 32],
    pub state: [u8; 32],
    /// Lanes that exist and have not exited.
    pub live: u32,
    /// Lanes in state `RUN`.
    pub runnable: u32,
    /// Register files by call depth: `levels[d][reg][lane]`.
    pub levels: Vec<Vec<Lanes>>,
    pub tid: [Lanes; 3],
    pub frames: Vec<Vec<Frame>>,
    pub local: Vec<Vec<u8>>,
    pub params: Vec<Vec<u8>>,
    pub local_base: [u32; 32],
    pub local_sp: [u32; 32],
    pub param_base: [u32; 32],
    pub param_sp: [u32; 32],
    /// The barrier a `BAR` lane waits at.
    pub bar_id: [u8; 32],
    /// The member mask a `WSYNC` lane waits with.
    pub wsync_mask: [u32; 32],
    pub since_rotate: u32,
    /// Synccheck: 1 + the highest kernel-level instruction (other than `ret`/`exit`) each
    /// lane ran since the last barrier released (0: none); see `sanitize::sync`.
    pub sync_hi: [u32; 32],
    pub rotate: bool,
    pub last_key: u64,
    /// Operand and result buffers for one instruction (kept to avoid re-zeroing them).
    pub scratch: Box<[Lanes; 6]>,
    /// `cp.async` copies issued and not yet waited for (`async_copy`).
    pub async_copies: Vec<super::async_copy::PendingCopy>,
    /// Per lane, the `cp.async` groups it committed.
    pub async_groups: [u32; 32],
    /// Shared-to-global bulk copies issued and not yet waited for (`bulk_store`).
    pub bulk_copies: Vec<super::bulk_store::PendingBulk>,
    /// Per lane, the bulk groups it committed.
    pub bulk_groups: [u32; 32],
}

impl Warp {
    pub fn new() -> Warp {
        Warp {
            index: 0,
            pc: [0; 32],
            depth: [0; 32],
            state: [EXITED; 32],
            live: 0,
            runnable: 0,
            levels: Vec::new(),
            tid: [[0; 32]; 3],
            frames: (0..32).map(|_| Vec::new()).collect(),
            local: (0..32).map(|_| Vec::new()).collect(),
            params: (0..32).map(|_| Vec::new()).collect(),
            local_base: [0; 32],
            local_sp: [0; 32],
            param_base: [0; 32],
            param_sp: [0; 32],
            bar_id: [0; 32],
            wsync_mask: [0; 32],
            since_rotate: 0,
            sync_hi: [0; 32],
            rotate: false,
            last_key: 0,
            scratch: Box::new([[0; 32]; 6]),
            async_copies: Vec::new(),
            async_groups: [0; 32],
            bulk_copies: Vec::new(),
            bulk_groups: [0; 32],
        }
    }

    /// Prepares the warp to run `entry` for the threads `first..first+32` of a block of
    /// `dims`, reusing its allocations.
    pub fn reset(&mut self, index: u32, dims: [u32; 3], prog: &Program, entry: u32) {
        let f = &prog.funcs[entry as usize];
        let n = dims[0] * dims[1] * dims[2];
        self.index = index;
        self.live = 0;
        self.sync_hi = [0; 32];
        self.async_copies.clear();
        self.async_groups = [0; 32];
        self.bulk_copies.clear();
        self.bulk_groups = [0; 32];
        for l in 0..32 {
            let t = index * 32 + l as u32;
            self.frames[l].clear();
            if t < n {
                self.live |= 1 << l;
                self.state[l] = RUN;
                self.tid[0][l] = (t % dims[0]) as u64;
                self.tid[1][l] = ((t / dims[0]) % dims[1]) as u64;
                self.tid[2][l] = (t / (dims[0] * dims[1])) as u64;
                if f.local_frame > 0 || !self.local[l].is_empty() {
                    self.local[l].clear();
                    self.local[l].resize(f.local_frame as usize, 0);
                }
                if f.param_frame > 0 || !self.params[l].is_empty() {
                    self.params[l].clear();
                    self.params[l].resize(f.param_frame as usize, 0);
                }
            } else {
                self.state[l] = EXITED;
            }
        }
        self.runnable = self.live;
        self.pc = [f.pc; 32];
        self.depth = [0; 32];
        self.local_base = [0; 32];
        self.local_sp = [f.local_frame; 32];
        self.param_base = [0; 32];
        self.param_sp = [f.param_frame; 32];
        if self.levels.is_empty() {
            self.levels.push(Vec::new());
        }
        // Registers hold no defined value before their first write (PTX), so the previous
        // block's values are left where they are.
        if self.levels[0].len() < f.nregs as usize {
            self.levels[0].resize(f.nregs as usize, [0; 32]);
        }
        self.since_rotate = 0;
        self.rotate = false;
    }

    /// Makes sure depth `d` has room for `nregs` registers.
    pub fn ensure_level(&mut self, d: usize, nregs: u32) {
        while self.levels.len() <= d {
            self.levels.push(Vec::new());
        }
        if self.levels[d].len() < nregs as usize {
            self.levels[d].resize(nregs as usize, [0; 32]);
        }
    }

    /// The lanes to run next (see the module documentation).
    pub fn pick(&mut self) -> Option<Group> {
        if self.runnable == 0 {
            return None;
        }
        let mut best = u64::MAX;
        let mut all_same = true;
        let first = self.runnable.trailing_zeros() as usize;
        let k0 = key(self.depth[first], self.pc[first]);
        for l in lanes(self.runnable) {
            let k = key(self.depth[l], self.pc[l]);
            all_same &= k == k0;
            best = best.min(k);
        }
        if all_same && !self.rotate {
            return Some(Group { mask: self.runnable, pc: self.pc[first], depth: self.depth[first], next_key: u64::MAX, sticky: 0 });
        }
        let mut sticky = 0;
        if self.rotate {
            self.rotate = false;
            let mut next = u64::MAX;
            for l in lanes(self.runnable) {
                let k = key(self.depth[l], self.pc[l]);
                if k > self.last_key {
                    next = next.min(k);
                }
            }
            if next != u64::MAX {
                best = next;
                sticky = ROTATE_SLICE;
            }
        }
        let mut mask = 0u32;
        let mut next_key = u64::MAX;
        for l in lanes(self.runnable) {
            let k = key(self.depth[l], self.pc[l]);
            if k == best {
                mask |= 1 << l;
            } else {
                next_key = next_key.min(k);
            }
        }
        let l = mask.trailing_zeros() as usize;
        Some(Group { mask, pc: self.pc[l], depth: self.depth[l], next_key, sticky })
    }

    /// Records where the lanes of `mask` stand.
    #[inline]
    pub fn writeback(&mut self, mask: u32, pc: u32, depth: u16) {
        for l in lanes(mask) {
            self.pc[l] = pc;
            self.depth[l] = depth;
        }
    }
}
