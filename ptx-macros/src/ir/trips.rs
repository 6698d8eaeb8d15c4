//! The values a `for` loop's counter holds on its trips, where the body reads it.
//!
//! A counter is written more than once, so `ir::range` gives it no range, and the bound that
//! `Func::entry_facts` states (`k < end` when the header is entered) is a fact about the counter
//! itself, not about `(ty + j) * (T + 1) + tx` computed from it. Between the header and the
//! advance the counter holds the value it entered the header with, and a counter that starts at
//! a constant `c` and steps by a constant `s` takes only the values `c + i·s`: below `end`, at
//! most `c + (end - 1 - c) / s · s`. The transpose's `j` of `(0..T).step_by(8)` is at most 24 on
//! its trips for `T = 32`, not 31 (nor 39, the value the last advance leaves).
//!
//! A counter qualifies when, for the loop `l` whose header has its entry fact (an unsigned
//! compare):
//! - every write of it inside `l` is in the block that advances a `for` loop
//!   (`Func::for_loops`' `next`), which leaves the loop or goes back to the header only: so
//!   every other block of `l`, and that block before its first write, sees the value the
//!   header was entered with;
//! - for the lattice: the writes in that block are `add k, k, s` (or `add t, k, s; mov k, t`)
//!   with one constant `s`, and every write outside `l` is `mov k, c` with one constant `c`.
//!   The lowering ends an unsigned `step_by` loop when the sum wraps (`next >= s`), so the
//!   values entering the header are exactly `c + i·s`. Otherwise the trips' values are only
//!   known to be below the end (`0..=end - 1`).

use super::dom::{Cfg, Loop};
use super::fast_hash::HashMap;
use super::range::{Range, Ranges};
use super::{Arg, Arith, Func, Imm, InstKind, Mode, Opcode, Reg};

/// What the counter holds on a trip: `start + i·step`, below `end`.
#[derive(Clone, Debug)]
pub struct Trip {
    pub start: u64,
    pub step: u64,
    pub end: Arg,
    /// The loop's blocks, where the counter holds its trip value (but see `advance`).
    body: Vec<bool>,
    /// The block that advances the counter and the index of its first write there.
    advance: (usize, usize),
}

/// The counters of the function's `for` loops, by register: one register may count two
/// loops (the matmul's tile loop and its replay, `ir::version`), each with its trip.
#[derive(Default)]
pub struct Trips {
    by_counter: HashMap<Reg, Vec<Trip>>,
}

impl Trips {
    pub fn find(func: &Func, cfg: &Cfg, loops: &[Loop]) -> Trips {
        let mut by_counter = HashMap::default();
        for f in &func.entry_facts {
            if f.ty.is_signed() || f.ty.is_float() {
                continue;
            }
            let h = f.block.0 as usize;
            let Some(l) = loops.iter().find(|l| l.header == h) else { continue };
            let trips: &mut Vec<Trip> = by_counter.entry(f.reg).or_default();
            if trips.iter().any(|t| t.body.get(h).copied().unwrap_or(false)) {
                continue;
            }
            if let Some(t) = trip(func, cfg, l, f.reg, &f.bound) {
                trips.push(t);
            }
        }
        Trips { by_counter }
    }

    /// The trip of counter `r` when it is read by instruction `i` of block `b`, if the counter
    /// holds a trip's value there (the advance's first write, `add k, k, s`, reads it too).
    pub fn at(&self, r: Reg, b: usize, i: usize) -> Option<&Trip> {
        self.by_counter.get(&r)?.iter().find(|t| {
            let (next, first) = t.advance;
            t.body.get(b).copied().unwrap_or(false) && (b != next || i <= first)
        })
    }
}

fn trip(func: &Func, cfg: &Cfg, l: &Loop, k: Reg, end: &Arg) -> Option<Trip> {
    // The block that advances this loop: in it, goes back to the header or leaves.
    let next = func.for_loops.iter().map(|f| f.next.0 as usize).find(|&n| {
        l.contains(n) && cfg.idom[n].is_some() && func.blocks[n].term.successors().iter().all(|s| s.0 as usize == l.header || !l.contains(s.0 as usize))
    })?;
    if matches!(end, Arg::Reg(e) if writes(func, *e).any(|(b, _)| l.contains(b))) {
        return None;
    }
    let defs = super::range::def_counts(func);
    let (mut starts, mut steps, mut first) = (Vec::new(), Vec::new(), None);
    let mut lattice = true;
    for (b, i) in writes(func, k) {
        let inst = &func.blocks[b].insts[i];
        if l.contains(b) {
            if b != next {
                return None;
            }
            first = Some(first.map_or(i, |f: usize| f.min(i)));
            match advance(func, &defs, b, i, k) {
                Some(s) => steps.push(s),
                None => lattice = false,
            }
        } else {
            match (&inst.kind, inst.guard) {
                (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) => match args[1] {
                    Arg::Imm(Imm::Int(c)) if c >= 0 => starts.push(c as u64),
                    _ => lattice = false,
                },
                _ => lattice = false,
            }
        }
    }
    let first = first?;
    let one = |v: &[u64]| v.first().filter(|&&x| v.iter().all(|y| *y == x)).copied();
    let (start, step) = match (lattice, one(&starts), one(&steps)) {
        (true, Some(c), Some(s)) if s > 0 => (c, s),
        _ => (0, 1),
    };
    Some(Trip { start, step, end: end.clone(), body: l.body.clone(), advance: (next, first) })
}

impl Trip {
    /// The greatest value the counter takes on its trips, when the loop's end is a constant:
    /// `start + (end - 1 - start) / step · step`.
    pub fn last(&self) -> Option<u64> {
        let Arg::Imm(Imm::Int(end)) = self.end else { return None };
        let end = u64::try_from(end).ok()?;
        (end > self.start).then(|| self.start + (end - 1 - self.start) / self.step * self.step)
    }
}

/// Where a `for` loop's counter holds a trip's value (in the loop, before its advance writes
/// it), the range of its trips' values: below the loop's end, at most the end's largest value
/// less one, and on a constant end at most [`Trip::last`] (`j` of `(0..32).step_by(8)`: 24).
/// The counter's own range also holds its last value, the end: `for t in 0..tiles` with
/// `tiles <= 2^28` has `t <= 2^28`, but `t * 16` in the loop is below 2^32. For
/// [`Ranges::compute_at`]; `trips` are the function's ([`Trips::find`]).
pub fn ranges_on_trips<'a>(func: &'a Func, trips: &'a Trips) -> impl Fn(Reg, usize, usize) -> Option<Range> + 'a {
    let base = Ranges::compute(func);
    move |r: Reg, b: usize, i: usize| {
        let t = trips.at(r, b, i)?;
        if let Some(last) = t.last() {
            return Some(Range { lo: t.start, hi: last });
        }
        let end = base.of(&t.end, 64)?;
        (end.hi > 0).then(|| Range { lo: 0, hi: end.hi - 1 })
    }
}

/// Where `r` is written: (block, instruction).
fn writes(func: &Func, r: Reg) -> impl Iterator<Item = (usize, usize)> + '_ {
    func.blocks.iter().enumerate().flat_map(move |(b, block)| block.insts.iter().enumerate().filter(move |(_, i)| i.defs().contains(&r)).map(move |(i, _)| (b, i)))
}

/// The constant step of the write of `k` at instruction `i` of block `b`: `add k, k, s`, or
/// `mov k, t` after `add t, k, s` in the same block with `t` written nowhere else (`defs`:
/// each register's number of writes). `ir::const_range` reads counters' steps the same way.
pub(super) fn advance(func: &Func, defs: &[u32], b: usize, i: usize, k: Reg) -> Option<u64> {
    let insts = &func.blocks[b].insts;
    let adds = |inst: &super::Inst, d: Reg| match (&inst.kind, inst.guard) {
        (InstKind::Op { opcode: Opcode::Arith(Arith::Add, Mode::None, t), defs: 1, args }, None) if !t.is_float() => match args[..] {
            [Arg::Reg(x), Arg::Reg(y), Arg::Imm(Imm::Int(s))] if x == d && y == k && s > 0 => Some(s as u64),
            _ => None,
        },
        _ => None,
    };
    let inst = &insts[i];
    if let Some(s) = adds(inst, k) {
        return Some(s);
    }
    match (&inst.kind, inst.guard) {
        (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) => match args[1] {
            Arg::Reg(t) if defs.get(t.0 as usize) == Some(&1) => adds(insts[..i].iter().rev().find(|p| p.defs().contains(&t))?, t),
            _ => None,
        },
        _ => None,
    }
}
