//! Racecheck's shadow memory: for each byte of the block's shared memory, and each byte of
//! global memory the block touched, the last write and the last two readers (distinct
//! threads), each with the thread, the PTX line, and the synchronisation it happened in.
//!
//! Two accesses of different threads conflict — a hazard, when one of them writes — when no
//! synchronisation orders them:
//! - the block's barrier *epoch* is the same (every barrier that completes starts a new one);
//! - for two lanes of one warp, also no warp-synchronous instruction of that warp
//!   (`bar.warp.sync`, `shfl.sync`, …) completed between them;
//! - and the earlier thread has not since executed a fence or an atomic: a write published
//!   by `__threadfence()` or a lock's release is taken as ordered. (This is what keeps spin
//!   locks and fence-and-flag patterns quiet; a race hidden behind an unrelated atomic of the
//!   same thread is missed.)
//!
//! Atomics themselves neither race nor are recorded (they are the synchronisation). Global
//! memory is checked between the threads of one block, as shared memory is; blocks are not
//! compared with each other.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hash of a byte address for the global shadow: one multiplication (SipHash, the
/// default, would be most of racecheck's cost on a memory-bound kernel).
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ *b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ v >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// One access: the thread (linear index in the block, plus one; 0 is "none"), its PTX line,
/// the block epoch, the warp's sync count and the thread's fence count at the time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Access {
    pub tid: u32,
    pub line: u32,
    epoch: u32,
    wepoch: u32,
    fences: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    write: Access,
    read: [Access; 2],
}

/// A hazard: what the current access is, and the earlier access it conflicts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hazard {
    /// A read of a byte another thread wrote.
    ReadAfterWrite(Access),
    /// A write of a byte another thread read.
    WriteAfterRead(Access),
    /// A write of a byte another thread wrote.
    WriteAfterWrite(Access),
}

/// Where an access lands: a shared-memory offset or a global address.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    Shared(usize),
    Global(u64),
}

#[derive(Default)]
pub struct RaceShadow {
    shared: Vec<Cell>,
    global: HashMap<u64, Cell, BuildHasherDefault<AddrHasher>>,
    epoch: u32,
    /// Per warp: completed warp-synchronous instructions.
    warp_syncs: Vec<u32>,
    /// Per thread: fences and atomics executed.
    fences: Vec<u32>,
}

impl RaceShadow {
    /// A new block of `threads` threads and `shared` bytes of shared memory. Cells of earlier
    /// blocks are left in place: their epoch is older than any of this block's.
    pub fn start_block(&mut self, threads: usize, shared: usize) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.shared.len() < shared {
            self.shared.resize(shared, Cell::default());
        }
        self.global.clear();
        self.warp_syncs.clear();
        self.warp_syncs.resize(threads.div_ceil(32), 0);
        self.fences.clear();
        self.fences.resize(threads, 0);
    }

    /// A barrier completed.
    pub fn barrier(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// A warp-synchronous instruction of warp `w` completed.
    pub fn warp_sync(&mut self, w: usize) {
        if let Some(x) = self.warp_syncs.get_mut(w) {
            *x = x.wrapping_add(1);
        }
    }

    /// Thread `t` executed a fence or an atomic.
    pub fn fence(&mut self, t: usize) {
        if let Some(x) = self.fences.get_mut(t) {
            *x = x.wrapping_add(1);
        }
    }

    /// Whether `a` (an earlier access) and an access of thread `t` now are unordered.
    fn unordered(&self, a: &Access, t: u32) -> bool {
        if a.tid == 0 || a.tid == t + 1 || a.epoch != self.epoch {
            return false;
        }
        let at = a.tid - 1;
        let same_warp = at / 32 == t / 32;
        (!same_warp || self.warp_syncs.get(at as usize / 32) == Some(&a.wepoch)) && self.fences.get(at as usize) == Some(&a.fences)
    }

    /// Records an access of `size` bytes at `place` by thread `t` from PTX line `line`; the
    /// first hazard it makes, if any.
    pub fn access(&mut self, place: Place, size: u64, t: u32, line: u32, write: bool) -> Option<Hazard> {
        let now = Access {
            tid: t + 1,
            line,
            epoch: self.epoch,
            wepoch: self.warp_syncs.get(t as usize / 32).copied().unwrap_or(0),
            fences: self.fences.get(t as usize).copied().unwrap_or(0),
        };
        let mut found = None;
        for i in 0..size {
            let mut cell = match place {
                Place::Shared(o) => self.shared.get(o + i as usize).copied().unwrap_or_default(),
                Place::Global(a) => self.global.get(&(a + i)).copied().unwrap_or_default(),
            };
            if found.is_none() {
                found = if self.unordered(&cell.write, t) {
                    Some(if write { Hazard::WriteAfterWrite(cell.write) } else { Hazard::ReadAfterWrite(cell.write) })
                } else if write {
                    cell.read.iter().find(|r| self.unordered(r, t)).map(|r| Hazard::WriteAfterRead(*r))
                } else {
                    None
                };
            }
            if write {
                cell = Cell { write: now, read: [Access::default(); 2] };
            } else if cell.read[0].tid == now.tid {
                cell.read[0] = now;
            } else {
                cell.read = [now, cell.read[0]];
            }
            match place {
                Place::Shared(o) => {
                    if let Some(c) = self.shared.get_mut(o + i as usize) {
                        *c = cell;
                    }
                }
                Place::Global(a) => {
                    self.global.insert(a + i, cell);
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_need_two_threads_and_no_barrier() {
        let mut r = RaceShadow::default();
        r.start_block(64, 256);
        assert_eq!(r.access(Place::Shared(0), 4, 0, 10, true), None);
        assert_eq!(r.access(Place::Shared(0), 4, 0, 11, false), None, "the same thread");
        let Some(Hazard::ReadAfterWrite(w)) = r.access(Place::Shared(2), 2, 40, 12, false) else { panic!() };
        assert_eq!((w.tid, w.line), (1, 10));
        let Some(Hazard::WriteAfterRead(rd)) = r.access(Place::Shared(2), 1, 0, 13, true) else { panic!() };
        assert_eq!((rd.tid, rd.line), (41, 12));
        r.barrier();
        assert_eq!(r.access(Place::Shared(0), 4, 33, 14, true), None, "a barrier orders them");
        assert!(matches!(r.access(Place::Global(0x100), 4, 33, 15, true), None));
        assert!(matches!(r.access(Place::Global(0x102), 1, 34, 16, true), Some(Hazard::WriteAfterWrite(_))));
        // A fence by the writer publishes its write; a warp sync orders lanes of one warp.
        assert_eq!(r.access(Place::Shared(100), 4, 5, 17, true), None);
        r.fence(5);
        assert_eq!(r.access(Place::Shared(100), 4, 40, 18, false), None);
        assert_eq!(r.access(Place::Shared(200), 4, 6, 19, true), None);
        r.warp_sync(0);
        assert_eq!(r.access(Place::Shared(200), 4, 7, 20, false), None);
        assert!(r.access(Place::Shared(200), 4, 8, 21, true).is_some(), "thread 7's read, then 8's write");
        // A new block starts clean.
        r.start_block(64, 256);
        assert_eq!(r.access(Place::Shared(200), 4, 9, 22, true), None);
    }
}
