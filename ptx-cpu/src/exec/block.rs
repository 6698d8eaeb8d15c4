//! One thread block: its warps, shared memory and barriers, and the scheduler that runs the
//! warps in turn (each for a time slice, or until all its lanes wait), releases barriers, and
//! recognises a block that can no longer make progress.

use super::barrier::{Barrier, NBARRIERS};
use super::hang::{Detector, Progress, Round, Verdict};
use super::launch::Launch;
use super::warp::{lanes, Warp, BAR, RUN, WSYNC};
use crate::memory::Region;
use crate::sanitize::race::RaceShadow;
use crate::program::{BarKind, Op};
use crate::error::{Error, Fault, FaultKind, Site};
use std::cell::Cell;
use std::sync::Arc;

/// Warp-instructions a warp runs before the next warp's turn.
pub const SLICE: i64 = 1024;
pub struct Block<'l> {
    pub l: &'l Launch<'l>,
    pub worker: u32,
    /// The block's slot in the launch's `Progress`: its worker's, or in a cooperative launch
    /// (`coop`), where a worker runs several blocks at once, the block's own.
    pub slot: u32,
    pub ctaid: [u32; 3],
    pub shared: Vec<u8>,
    pub bars: [Barrier; NBARRIERS],
    /// Threads that have not exited.
    pub live: u32,
    pub clock: u64,
    /// Thread-instructions executed (lanes that ran each instruction), for statistics.
    pub thread_insts: u64,
    /// Warp-instructions executed by all blocks this worker ran.
    pub warp_insts: u64,
    pub out: Vec<u8>,
    pub warps: Vec<Warp>,
    pub nwarps: usize,
    /// The global-memory region the last access hit.
    pub hint: Option<&'l Arc<Region>>,
    /// Events that may let a looping thread out (stores, atomics that change memory, calls,
    /// system calls, clock reads): see `hang`.
    pub events: Cell<u64>,
    pub detector: Detector,
    pub progress: &'l Progress<'l>,
    /// Racecheck's shadow memory, when it is on.
    pub race: Option<Box<RaceShadow>>,
    /// Initcheck's shadow of the block's shared memory (a bit per byte written since the
    /// block began), when it is on.
    pub shared_init: Option<crate::sanitize::init::InitMap>,
    /// Synccheck: 1 + the highest kernel-level instruction the running group executed.
    pub sync_group_hi: u32,
}

impl<'l> Block<'l> {
    pub fn new(l: &'l Launch<'l>, worker: u32, progress: &'l Progress<'l>) -> Block<'l> {
        Block {
            l,
            worker,
            slot: worker,
            ctaid: [0; 3],
            shared: Vec::new(),
            bars: [Barrier::IDLE; NBARRIERS],
            live: 0,
            clock: 0,
            thread_insts: 0,
            warp_insts: 0,
            out: Vec::new(),
            warps: Vec::new(),
            nwarps: 0,
            hint: None,
            events: Cell::new(0),
            detector: Detector::default(),
            progress,
            race: l.sanitize.race.then(Box::default),
            shared_init: None,
            sync_group_hi: 0,
        }
    }

    /// Records an event (see `hang`).
    #[inline(always)]
    pub fn event(&self) {
        self.events.set(self.events.get() + 1);
    }

    pub fn run(&mut self, ctaid: [u32; 3]) -> Result<(), Error> {
        self.begin(ctaid);
        let mut warps = std::mem::take(&mut self.warps);
        let start = self.clock;
        let r = loop {
            match self.round(&mut warps) {
                Ok(false) => {}
                Ok(true) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.warp_insts += self.clock - start;
        self.warps = warps;
        r
    }

    /// Sets the block up to run block `ctaid` from the entry's first instruction.
    pub fn begin(&mut self, ctaid: [u32; 3]) {
        let l = self.l;
        self.ctaid = ctaid;
        self.shared.clear();
        self.shared.resize(l.shared_size as usize, 0);
        self.bars = [Barrier::IDLE; NBARRIERS];
        let n = l.block[0] * l.block[1] * l.block[2];
        self.live = n;
        self.nwarps = n.div_ceil(32) as usize;
        if let Some(race) = self.race.as_mut() {
            race.start_block(n as usize, l.shared_size as usize);
        }
        // Shared memory starts unwritten in every block (the GPU leaves it undefined).
        self.shared_init = if l.sanitize.init { crate::sanitize::init::InitMap::new(l.shared_size as u64) } else { None };
        while self.warps.len() < self.nwarps {
            self.warps.push(Warp::new());
        }
        for (i, w) in self.warps[..self.nwarps].iter_mut().enumerate() {
            w.reset(i as u32, l.block, l.prog, l.entry);
        }
        self.detector.reset(self.events.get());
    }

    /// [`round`](Self::round) on the block's own warps (for a scheduler that interleaves
    /// blocks: `coop`).
    pub fn own_round(&mut self) -> Result<bool, Error> {
        let mut warps = std::mem::take(&mut self.warps);
        let start = self.clock;
        let r = self.round(&mut warps);
        self.warp_insts += self.clock - start;
        self.warps = warps;
        r
    }

    /// One round: each runnable warp for a time slice (or until all its lanes wait), then
    /// barriers released and the watchdog and hang detector consulted. `Ok(true)` once the
    /// block has finished (or a block before it has failed).
    pub fn round(&mut self, warps: &mut [Warp]) -> Result<bool, Error> {
        let nw = self.nwarps;
        let round = self.clock;
        let mut progressed = false;
        for w in 0..nw {
            if warps[w].runnable == 0 {
                continue;
            }
            progressed = true;
            let mut budget = SLICE;
            while budget > 0 {
                let Some(g) = warps[w].pick() else { break };
                self.run_group(&mut warps[w], g, &mut budget)?;
            }
            self.release_barriers(warps)?;
        }
        if self.live == 0 || self.l.stopped(self.l.index(self.ctaid)) {
            // Its last stores, as any round's, for blocks parked on the memory they change.
            self.detector.finish(self.progress, self.events.get());
            return Ok(true);
        }
        if let Some(d) = self.l.deadline {
            if std::time::Instant::now() > d {
                let (w, lane) = first_live(&warps[..nw]).unwrap_or((0, 0));
                let line = self.l.prog.insts.get(warps[w].pc[lane] as usize).map(|i| i.line as usize);
                return Err(self.fault_at(
                    &warps[w],
                    lane,
                    FaultKind::Deadlock,
                    None,
                    line,
                    "the launch ran longer than the watchdog allows (a thread spinning on a value no other thread will write?); CpuDevice::set_watchdog or PTX_CPU_WATCHDOG=<seconds>|off changes the limit".into(),
                ));
            }
        }
        if !progressed {
            return Err(self.stuck(&warps[..nw]));
        }
        let r = Round {
            progress: self.progress,
            worker: self.slot,
            events: self.events.get(),
            live: self.live,
            bars: &self.bars,
            warps: &warps[..nw],
            insts: self.clock - round,
        };
        if let Verdict::Deadlock { unstarted } = self.detector.watch(r) {
            return Err(self.cycles(&warps[..nw], unstarted));
        }
        Ok(false)
    }

    /// The fault for a block whose running threads cycle forever (see `hang`).
    fn cycles(&self, warps: &[Warp], unstarted: u64) -> Error {
        let insts = &self.l.prog.insts;
        let (w, l) = warps.iter().enumerate().find(|(_, w)| w.runnable != 0).map_or((0, 0), |(i, w)| (i, w.runnable.trailing_zeros() as usize));
        let w = &warps[w];
        let line = insts.get(w.pc[l] as usize).map(|i| i.line as usize);
        let mut detail = "this loop never ends: the block's running threads come back to the same state again and again, and nothing they read can change (no store, no atomic that changes memory, no call or clock read in the loop, and no other running block or the host writes memory meanwhile)".to_string();
        let waiting: Vec<(&Warp, usize)> = warps.iter().flat_map(|x| lanes(x.live & !x.runnable).map(move |k| (x, k))).collect();
        if let Some(&(x, k)) = waiting.first() {
            let at = insts.get(x.pc[k].saturating_sub(1) as usize).map_or(0, |i| i.line);
            let what = if x.state[k] == BAR { format!("barrier {}", x.bar_id[k]) } else { "a warp-synchronous instruction".into() };
            detail += &format!("; {} other thread(s) wait, e.g. ({}, {}, {}) at {what} on {}", waiting.len(), x.tid[0][k], x.tid[1][k], x.tid[2][k], self.place(at));
        }
        if unstarted > 0 {
            detail += &format!(
                "; {unstarted} block(s) never started: the CPU backend runs {} block(s) at a time (CpuDevice::set_parallelism), and CUDA does not promise that blocks run concurrently",
                self.progress.slots.len()
            );
        }
        self.fault_at(w, l, FaultKind::Deadlock, None, line, detail)
    }

    /// Releases every barrier whose expected threads have all arrived.
    pub fn release_barriers(&mut self, warps: &mut [Warp]) -> Result<(), Error> {
        for id in 0..NBARRIERS {
            let b = self.bars[id];
            if b.arrived == 0 {
                continue;
            }
            let need = if b.expected == 0 { self.live } else { b.expected };
            if b.arrived < need {
                continue;
            }
            let total = self.l.block[0] * self.l.block[1] * self.l.block[2];
            if self.l.strict_barriers && b.expected == 0 && b.arrived < total {
                let (w, l) = warps[..self.nwarps]
                    .iter()
                    .enumerate()
                    .find_map(|(i, w)| (0..32).find(|&l| w.state[l] == BAR && w.bar_id[l] as usize == id).map(|l| (i, l)))
                    .unwrap_or((0, 0));
                let line = self.l.prog.insts.get(warps[w].pc[l] as usize - 1).map(|i| i.line as usize);
                return Err(self.fault_at(
                    &warps[w],
                    l,
                    FaultKind::BarrierDivergence,
                    None,
                    line,
                    format!("{} of the block's {total} threads exited without reaching barrier {id} (strict barriers)", total - b.arrived),
                ));
            }
            if self.l.sanitize.sync && b.expected == 0 {
                self.sync_check_skipped(&mut warps[..self.nwarps], id)?;
            }
            for w in warps[..self.nwarps].iter_mut() {
                for l in 0..32 {
                    if w.state[l] != BAR || w.bar_id[l] as usize != id {
                        continue;
                    }
                    w.state[l] = RUN;
                    w.runnable |= 1 << l;
                    // Deliver a reduction's result (`bar.red`): the barrier is the previous
                    // instruction.
                    if let Some(inst) = self.l.prog.insts.get(w.pc[l] as usize - 1) {
                        if let Op::Bar { kind, d, .. } = inst.op {
                            let v = match kind {
                                BarKind::RedPopc => b.popc as u64,
                                BarKind::RedAnd => b.all as u64,
                                BarKind::RedOr => b.any as u64,
                                _ => continue,
                            };
                            if d != crate::program::NOREG {
                                w.levels[w.depth[l] as usize][d as usize][l] = v;
                            }
                        }
                    }
                }
            }
            self.bars[id] = Barrier::IDLE;
            if let Some(race) = self.race.as_mut() {
                race.barrier();
            }
        }
        Ok(())
    }

    /// The fault for a block where every live thread waits and none can be released.
    fn stuck(&self, warps: &[Warp]) -> Error {
        let insts = &self.l.prog.insts;
        let line_of = |w: &Warp, l: usize| -> usize {
            let pc = if w.state[l] == BAR { w.pc[l] - 1 } else { w.pc[l] };
            insts.get(pc as usize).map_or(0, |i| i.line as usize)
        };
        let mut at_bar = None;
        let mut elsewhere = None;
        for w in warps {
            for l in lanes(w.live) {
                match w.state[l] {
                    BAR if at_bar.is_none() => at_bar = Some((w, l)),
                    WSYNC if elsewhere.is_none() => elsewhere = Some((w, l)),
                    _ => {}
                }
            }
        }
        let tid = |w: &Warp, l: usize| [w.tid[0][l] as u32, w.tid[1][l] as u32, w.tid[2][l] as u32];
        if let Some((w, l)) = at_bar {
            let id = w.bar_id[l] as usize;
            let b = self.bars[id];
            let need = if b.expected == 0 { self.live } else { b.expected };
            let mut detail = format!("{} of the {} threads barrier {id} waits for arrived", b.arrived, need);
            // Name a thread that is somewhere else.
            let other = warps.iter().flat_map(|x| lanes(x.live).map(move |k| (x, k))).find(|(x, k)| x.state[*k] != BAR || x.bar_id[*k] as usize != id);
            if let Some((x, k)) = other {
                let [a, b2, c] = tid(x, k);
                let what = if x.state[k] == BAR { format!("barrier {}", x.bar_id[k]) } else { "a warp-synchronous instruction".into() };
                detail += &format!("; thread ({a}, {b2}, {c}) waits at {what} on {} instead", self.place(line_of(x, k) as u32));
            } else if b.expected > self.live {
                detail += &format!("; the block has only {} threads left", self.live);
            }
            return self.fault_at(w, l, FaultKind::BarrierDivergence, None, Some(line_of(w, l)), detail);
        }
        if let Some((w, l)) = elsewhere {
            let m = w.wsync_mask[l];
            let missing = m & !(w.state.iter().enumerate().filter(|(_, s)| **s == WSYNC).fold(0u32, |acc, (k, _)| acc | 1 << k)) & w.live;
            let exited = m & !w.live;
            if missing == 0 && exited != 0 {
                // They were live when it arrived and exited since.
                return self.fault_at(
                    w,
                    l,
                    FaultKind::InvalidWarpSync,
                    None,
                    Some(line_of(w, l)),
                    format!("a warp-synchronous instruction's member mask {m:#010x} names lane(s) {exited:#010x}, which exited without executing it"),
                );
            }
            let detail = format!(
                "a warp-synchronous instruction with member mask {m:#010x} waits for lane(s) {missing:#010x}, which wait elsewhere and never arrive"
            );
            return self.fault_at(w, l, FaultKind::Deadlock, None, Some(line_of(w, l)), detail);
        }
        let (w, l) = first_live(warps).unwrap_or((0, 0));
        self.fault_at(&warps[w], l, FaultKind::Deadlock, None, None, "no thread can make progress".into())
    }

    pub fn fault_at(&self, w: &Warp, lane: usize, kind: FaultKind, address: Option<u64>, line: Option<usize>, detail: String) -> Error {
        let Site { kernel, block, thread, line, source } = self.site(w, lane, line);
        Error::Fault(Fault { kind, kernel, block, thread, address, line, source: source.map(Box::new), detail })
    }

    /// A lane's thread and an instruction's PTX line, with the line's source location.
    pub fn site(&self, w: &Warp, lane: usize, line: Option<usize>) -> Site {
        Site {
            kernel: self.l.kernel.to_owned(),
            block: self.ctaid,
            thread: [w.tid[0][lane] as u32, w.tid[1][lane] as u32, w.tid[2][lane] as u32],
            line,
            source: line.and_then(|l| self.l.lines.at(l)),
        }
    }

    /// "`file:line:col` (PTX line N)", or "PTX line N" without line information: how a report
    /// names a second place (the other access of a race, a thread waiting elsewhere).
    pub fn place(&self, line: u32) -> String {
        match self.l.lines.at(line as usize) {
            Some(src) => format!("{src} (PTX line {line})"),
            None => format!("PTX line {line}"),
        }
    }
}

fn first_live(warps: &[Warp]) -> Option<(usize, usize)> {
    warps.iter().enumerate().find(|(_, w)| w.live != 0).map(|(i, w)| (i, w.live.trailing_zeros() as usize))
}
