//! Hang detection: a block whose running threads can never leave the loop they are in.
//!
//! The block scheduler (`block.rs`) is deterministic: from the same block state and the same
//! memory, a round (every runnable warp's time slice) always ends in the same state. So if a
//! block's state at the end of one round *equals* its state at the end of an earlier round, and
//! nothing any thread reads changed in between, the block is in a cycle it can never leave: a
//! thread spinning on a flag no running thread writes, a warp spinning on a flag that a warp
//! waiting at a barrier would set after it, `while (true) {}`. That is decided exactly, with no
//! time limit and no guessing; loops whose state never repeats (a counter that keeps counting)
//! are left to the watchdog.
//!
//! What the block reads can change only through *events*: a store, an atomic that changes a
//! value, a call (it writes parameter memory), a system call, a read of a clock; other blocks'
//! events (published as a launch-wide epoch); and host writes. A round with an event restarts
//! the search. Cycles are found with Brent's algorithm over rounds (one saved state, a
//! comparison per round), and only after [`QUIET`] warp-instructions without an event, so
//! ordinary kernels pay nothing but an event count.
//!
//! Other blocks: global memory is shared, so a block found cycling only *parks*, recording the
//! epoch. The launch deadlocks when every worker is parked at the current epoch or has run out
//! of blocks: then no running block can write again (each is in a cycle that writes nothing
//! while nothing changes), and blocks not yet started never get a worker.

use super::barrier::Barrier;
use super::warp::{Frame, Warp};
use crate::program::Lanes;
use std::sync::atomic::{AtomicU64, Ordering};

/// Warp-instructions a block runs without an event before cycles are looked for.
pub const QUIET: u64 = 1 << 16;
/// A worker slot: running a block (not parked).
const RUNNING: u64 = 0;
/// A worker slot: no more blocks to run.
const DONE: u64 = u64::MAX;

/// Launch-wide state the blocks' detectors share.
pub struct Progress<'a> {
    /// Bumped after every round with an event, by any block.
    pub epoch: AtomicU64,
    /// Host writes to device memory (`CpuDevice::write`/`copy`), which count as events.
    pub host_writes: &'a AtomicU64,
    /// Per worker: RUNNING, DONE, or parked at epoch `e` as `e + 1`.
    pub slots: Vec<AtomicU64>,
    /// Blocks handed out so far, and in all.
    pub next: AtomicU64,
    pub total: u64,
}

impl<'a> Progress<'a> {
    pub fn new(workers: u32, total: u64, host_writes: &'a AtomicU64) -> Progress<'a> {
        Progress { epoch: AtomicU64::new(0), host_writes, slots: (0..workers).map(|_| AtomicU64::new(RUNNING)).collect(), next: AtomicU64::new(0), total }
    }

    fn now(&self) -> u64 {
        self.epoch.load(Ordering::Acquire).wrapping_add(self.host_writes.load(Ordering::Acquire)) & (DONE >> 1)
    }

    pub fn done(&self, worker: u32) {
        self.slots[worker as usize].store(DONE, Ordering::Release);
    }

    pub fn running(&self, worker: u32) {
        self.slots[worker as usize].store(RUNNING, Ordering::Release);
    }
}

/// One warp's scheduling and register state (what a round's outcome depends on besides memory).
#[derive(PartialEq)]
struct WarpState {
    pc: [u32; 32],
    depth: [u16; 32],
    state: [u8; 32],
    live: u32,
    runnable: u32,
    bar_id: [u8; 32],
    wsync_mask: [u32; 32],
    since_rotate: u32,
    rotate: bool,
    last_key: u64,
    sp: [[u32; 32]; 4],
    frames: Vec<Vec<Frame>>,
    levels: Vec<Vec<Lanes>>,
}

impl WarpState {
    fn of(w: &Warp) -> WarpState {
        WarpState {
            pc: w.pc,
            depth: w.depth,
            state: w.state,
            live: w.live,
            runnable: w.runnable,
            bar_id: w.bar_id,
            wsync_mask: w.wsync_mask,
            since_rotate: w.since_rotate,
            rotate: w.rotate,
            last_key: w.last_key,
            sp: [w.local_base, w.local_sp, w.param_base, w.param_sp],
            frames: w.frames.clone(),
            levels: w.levels.clone(),
        }
    }

    /// Equal to `w`, compared cheapest field first, without copying.
    fn matches(&self, w: &Warp) -> bool {
        self.pc == w.pc
            && self.depth == w.depth
            && self.state == w.state
            && self.runnable == w.runnable
            && self.live == w.live
            && self.since_rotate == w.since_rotate
            && self.rotate == w.rotate
            && self.last_key == w.last_key
            && self.bar_id == w.bar_id
            && self.wsync_mask == w.wsync_mask
            && self.sp == [w.local_base, w.local_sp, w.param_base, w.param_sp]
            && self.frames == w.frames
            && self.levels == w.levels
    }
}

struct Snapshot {
    warps: Vec<WarpState>,
    bars: Vec<Barrier>,
    live: u32,
    epoch: u64,
}

/// A block's detector (lives in its `Block`, reset per block).
#[derive(Default)]
pub struct Detector {
    /// Events counted at the end of the previous round.
    seen: u64,
    /// Warp-instructions since the last event.
    quiet: u64,
    saved: Option<Snapshot>,
    /// Brent's algorithm: rounds since the save, and the round count at which to save again.
    lam: u64,
    power: u64,
    /// The epoch this block is parked at (a cycle was found).
    parked: Option<u64>,
}

/// What the detector concluded at the end of a round.
pub enum Verdict {
    Running,
    /// Every worker's block is in a cycle (or there is none): `unstarted` blocks never ran.
    Deadlock { unstarted: u64 },
}

impl Detector {
    pub fn reset(&mut self, events: u64) {
        *self = Detector { seen: events, ..Detector::default() };
    }
}

/// What the detector looks at when a block's round ends.
pub struct Round<'a> {
    pub progress: &'a Progress<'a>,
    /// The block's slot in `Progress`: its host worker's, or in a cooperative launch the
    /// block's own (see `coop`).
    pub worker: u32,
    /// The block's events so far.
    pub events: u64,
    /// Its threads that have not exited, its barriers and warps.
    pub live: u32,
    pub bars: &'a [Barrier],
    pub warps: &'a [Warp],
    /// Warp-instructions the round ran.
    pub insts: u64,
}

impl Detector {
    /// Called at the end of every round of a block.
    pub fn watch(&mut self, r: Round) -> Verdict {
        let progress = r.progress;
        if r.events != self.seen {
            publish(progress);
            if self.parked.is_some() {
                progress.running(r.worker);
            }
            self.reset(r.events);
            return Verdict::Running;
        }
        self.quiet += r.insts;
        if self.quiet < QUIET {
            return Verdict::Running;
        }
        let now = progress.now();
        if let Some(e) = self.parked {
            if e != now {
                // Something was written since: look again.
                progress.running(r.worker);
                self.reset(r.events);
                return Verdict::Running;
            }
            return verdict(progress, now);
        }
        let Some(saved) = &self.saved else {
            self.saved = Some(snapshot(&r, now));
            (self.lam, self.power) = (0, 1);
            return Verdict::Running;
        };
        if saved.epoch != now {
            self.saved = None;
            return Verdict::Running;
        }
        self.lam += 1;
        if saved.live == r.live && saved.bars == r.bars && saved.warps.iter().zip(r.warps).all(|(s, w)| s.matches(w)) {
            self.parked = Some(now);
            progress.slots[r.worker as usize].store(now + 1, Ordering::Release);
            return verdict(progress, now);
        }
        if self.lam == self.power {
            self.saved = Some(snapshot(&r, now));
            (self.lam, self.power) = (0, self.power * 2);
        }
        Verdict::Running
    }

    /// Called when the block ends, in place of the round's [`watch`](Self::watch): the events
    /// of its last round (the stores that end a wait elsewhere) are published as any round's
    /// are. Without this, a block parked on a counter that another worker's block raised in
    /// its last round stayed parked at the old epoch; once that worker ran out of blocks, the
    /// launch was called deadlocked while the parked block could go on.
    pub fn finish(&mut self, progress: &Progress, events: u64) {
        if events != self.seen {
            publish(progress);
            self.seen = events;
        }
    }
}

/// A round changed memory: every parked block looks again (before the round's worker can be
/// marked done or parked, so that whoever sees that also sees the new epoch).
fn publish(progress: &Progress) {
    if progress.slots.len() > 1 {
        progress.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

fn snapshot(r: &Round, epoch: u64) -> Snapshot {
    Snapshot { warps: r.warps.iter().map(WarpState::of).collect(), bars: r.bars.to_vec(), live: r.live, epoch }
}

/// Deadlock when every worker is parked at `epoch` or done.
fn verdict(progress: &Progress, epoch: u64) -> Verdict {
    let all = progress.slots.iter().all(|s| {
        let v = s.load(Ordering::Acquire);
        v == DONE || v == epoch + 1
    });
    if all && progress.now() == epoch {
        let started = progress.next.load(Ordering::Acquire).min(progress.total);
        Verdict::Deadlock { unstarted: progress.total - started }
    } else {
        Verdict::Running
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worker 0's block is parked waiting on memory that worker 1's block changes in the round
    /// it ends in; worker 1 then runs out of blocks. The launch is not deadlocked: the parked
    /// block has something new to read.
    #[test]
    fn a_block_that_ends_with_a_store_wakes_the_parked() {
        let host = AtomicU64::new(0);
        // Worker 0 parked, worker 1's last block ending with `last_events` (10 before it), then
        // worker 1 out of blocks: the verdict of worker 0's next round.
        let after = |last_events: u64| {
            let progress = Progress::new(2, 2, &host);
            progress.next.store(2, Ordering::Release);
            let parked_at = progress.now();
            progress.slots[0].store(parked_at + 1, Ordering::Release);
            let mut ending = Detector::default();
            ending.reset(10);
            ending.finish(&progress, last_events);
            progress.done(1);
            verdict(&progress, parked_at)
        };
        // A store in its last round: the parked block has something new to read.
        assert!(matches!(after(11), Verdict::Running));
        // None: nobody is left to wake it.
        assert!(matches!(after(10), Verdict::Deadlock { unstarted: 0 }));
    }
}
