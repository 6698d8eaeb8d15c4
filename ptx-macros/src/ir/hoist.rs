//! Bounds checks hoisted out of counted loops: in `for k in start..end`, a check of an index
//! `f(k)` that grows with `k` (`k`, `i + k`, `ty * TILE + k`, `4 * k + 1`) is made once, of
//! `f(end - 1)`, before the loop, and no longer on each trip. conv1d's `w[k] * x[i + k]` over
//! nine taps kept 18 compares and branches; it now makes two.
//!
//! A check can move when all of this holds (see docs/performance.md, "Hoisted bounds checks",
//! for the argument):
//! - the loop is a `for` over an excluded range counting up by one, with a variable the body
//!   cannot assign (`Func::entry_facts` names its counter at the header), entered from one
//!   block, and its end is not written in the loop;
//! - the loop is left only by its counter test or by failing a check, and every failure in it
//!   reports the same thing (message and line) as the hoisted check: it holds no call, no
//!   inline assembly, no loop other than such `for` loops, no `return` or `break`;
//! - the check's block runs on every trip (it dominates the latch), its length is not written
//!   in the loop, and its index is computed from the counter by additions, subtractions,
//!   multiplications and shifts by values the loop does not write, and widenings;
//! - the index is exact on every trip (no step wraps), so it grows with the counter and its
//!   largest value is the last trip's: `ir::range` proves it, or the code before the loop tests
//!   it. An affine index (64-bit `+ - * <<` on a 64-bit counter, slope `m`) needs no exactness:
//!   with `m < 2^63` a wrap passes through an index no slice admits, so the check before the
//!   loop fails (as a trip's would) on the first trip's index, on `m · trips >= 2^63` and on
//!   the last trip's index. Other steps are tested where they are largest (or, subtracted
//!   from, smallest); where a test fails, or `m >= 2^63`, the checks stay in the loop, guarded
//!   by that failure, and decide as before.
//!
//! The check before the loop runs only when the loop makes at least one trip (`start < end`),
//! branches to the same failure block as the one it replaces (same message, same line), and is
//! built by cloning the loop's own instructions with the counter replaced, so whatever they
//! carry comes along.

use super::dom::{Cfg, Loop};
use super::range::{Range, Ranges};
use super::{Arg, Arith, Block, BlockId, Cmp, Func, Inst, InstKind, Mode, Opcode, Reg, RegClass, Term, Type};
use super::fast_hash::HashMap;

pub fn run(func: &mut Func) {
    // Inner loops first, so that their checks, once before them, can leave the outer loop too.
    // The graph changes with each hoist: recompute it.
    let mut done: Vec<usize> = Vec::new();
    loop {
        let cfg = Cfg::new(func);
        let loops = cfg.loops();
        let Some(l) = loops.iter().rev().find(|l| !done.contains(&l.header)) else { return };
        done.push(l.header);
        hoist_loop(func, &cfg, l, &loops);
    }
}

/// Where each register written exactly once is written: (block, instruction index).
pub(super) fn single_defs(func: &Func) -> (Vec<usize>, DefSites) {
    let mut count = vec![0usize; func.regs.len()];
    let mut site = vec![None; func.regs.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for r in inst.defs() {
                count[r.0 as usize] += 1;
                site[r.0 as usize] = Some((b, i));
            }
        }
    }
    for (s, &n) in site.iter_mut().zip(&count) {
        if n != 1 {
            *s = None;
        }
    }
    (count, DefSites(site))
}

/// The sites [`single_defs`] finds, by register number (a table: the optimiser's passes look
/// them up at every step of their walks, in a macro that runs unoptimized).
pub(super) struct DefSites(Vec<Option<(usize, usize)>>);

impl DefSites {
    pub(super) fn get(&self, r: &Reg) -> Option<&(usize, usize)> {
        self.0.get(r.0 as usize).and_then(Option::as_ref)
    }

    pub(super) fn contains_key(&self, r: &Reg) -> bool {
        self.get(r).is_some()
    }
}

/// A block that only fails: it traps, or jumps to a block that traps (the per-location stub
/// that sets the site for the function's report block, `lower::panic`).
pub(super) fn failure(func: &Func, b: usize) -> bool {
    let traps = |b: usize| matches!(func.blocks[b].term, Term::Trap);
    traps(b) || matches!(func.blocks[b].term, Term::Jump(t) if traps(t.0 as usize))
}

/// Two failure blocks that report the same thing: the same block, or stubs that set the same
/// site (a site is a message at a line: `w[k] * x[i + k]` is two checks and two stubs, one
/// report; under `__assertfail`, pieces `line!()` spanned on the same line of the same file)
/// and jump to the same shared block.
pub(super) fn same_failure(func: &Func, a: usize, b: usize) -> bool {
    let (x, y) = (&func.blocks[a], &func.blocks[b]);
    a == b || (matches!((&x.term, &y.term), (Term::Jump(s), Term::Jump(t)) if s == t) && located(&x.insts).is_some_and(|k| located(&y.insts) == Some(k)))
}

/// The instructions with each piece written as its text and the line and file of its span:
/// equal for two stubs that report the same location; `None` where a span has no location.
fn located(insts: &[Inst]) -> Option<String> {
    let mut out = Vec::new();
    for inst in insts {
        let mut inst = inst.clone();
        if let InstKind::Op { args, .. } = &mut inst.kind {
            for a in args.iter_mut() {
                if let Arg::Sym(super::Sym::Piece(tokens)) = a {
                    let span = tokens.clone().into_iter().next()?.span();
                    let line = span.start().line;
                    if line == 0 {
                        return None;
                    }
                    *a = Arg::named(format!("{tokens} at {}:{line}", span.file()));
                }
            }
        }
        out.push(format!("{:?} {:?}", inst.guard, inst.kind));
    }
    Some(out.join("; "))
}

/// The loop's counter, start, end, the block before it and its latch, when it is a `for` loop
/// this pass handles (see the module documentation).
struct Counted {
    header: usize,
    counter: Reg,
    ty: Type,
    /// The counter's first value (for its range; the code before the loop reads the counter).
    start: Arg,
    end: Arg,
    pre: usize,
    latch: usize,
}

fn counted(func: &Func, cfg: &Cfg, l: &Loop, written_in_loop: &dyn Fn(&Arg) -> bool) -> Option<Counted> {
    let fact = func.entry_facts.iter().find(|f| f.block.0 as usize == l.header && f.up_by_one)?;
    let (counter, ty, end) = (fact.reg, fact.ty, fact.bound.clone());
    if ty.is_float() || written_in_loop(&end) || matches!(end, Arg::Sym(_) | Arg::Mem { .. } | Arg::Vec(_)) {
        return None;
    }
    let [pre] = l.entries(cfg)[..] else { return None };
    let [latch] = l.latches[..] else { return None };
    // The counter's first value: the last write of it before the loop.
    let start = func.blocks[pre].insts.iter().rev().find(|i| i.defs().contains(&counter)).and_then(|i| match (&i.kind, i.guard) {
        (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) if args.len() == 2 => Some(args[1].clone()),
        _ => None,
    })?;
    if !matches!(start, Arg::Reg(_) | Arg::Imm(_)) {
        return None;
    }
    Some(Counted { header: l.header, counter, ty, start, end, pre, latch })
}

fn hoist_loop(func: &mut Func, cfg: &Cfg, l: &Loop, others: &[Loop]) {
    let (def_count, def_site) = single_defs(func);
    let in_loop: Vec<usize> = (0..func.blocks.len()).filter(|&b| l.contains(b)).collect();
    let mut written = vec![false; func.regs.len()];
    for &b in &in_loop {
        for r in func.blocks[b].insts.iter().flat_map(|i| i.defs()) {
            written[r.0 as usize] = true;
        }
    }
    let written_in_loop = |a: &Arg| {
        let mut regs = Vec::new();
        a.regs(&mut regs);
        regs.iter().any(|r| written[r.0 as usize])
    };
    let Some(c) = counted(func, cfg, l, &written_in_loop) else { return };
    // Inner loops must be `for` loops too (they end), and nothing may leave or stop the loop
    // but its counter test and failed checks.
    if others.iter().any(|o| o.header != l.header && l.contains(o.header) && !func.entry_facts.iter().any(|f| f.block.0 as usize == o.header)) {
        return;
    }
    let mut failures = Vec::new();
    for &b in &in_loop {
        let block = &func.blocks[b];
        if block.insts.iter().any(|i| matches!(i.kind, InstKind::Call { .. } | InstKind::Asm { .. } | InstKind::Raw(_))) {
            return;
        }
        for s in block.term.successors() {
            let s = s.0 as usize;
            if l.contains(s) {
                continue;
            }
            if failure(func, s) {
                failures.push(s);
            } else if b != c.latch || !latch_tests_counter(func, &c) {
                return;
            }
        }
    }
    let Some(&report) = failures.first() else { return };
    if failures.iter().any(|&f| !same_failure(func, report, f)) {
        return;
    }

    let ranges = Ranges::compute(func);
    if ranges.decide(Cmp::Lt, c.ty, &c.start, &c.end) == Some(false) {
        return;
    }
    let bits = c.ty.bits();
    let signed = c.ty.is_signed();
    // The counter's values on the trips: between start's least and end's greatest value less
    // one (as unsigned numbers; a signed counter only when both are non-negative).
    let counter_range = {
        let s = ranges.of(&c.start, bits);
        let e = ranges.of(&c.end, bits).unwrap_or(Range { lo: 0, hi: mask(bits) });
        let nonneg = |r: Option<Range>| r.is_some_and(|r| r.hi >> (bits - 1) == 0);
        if (signed && !(nonneg(s) && nonneg(Some(e)))) || e.hi == 0 {
            None
        } else {
            Some(Range { lo: s.map_or(0, |s| s.lo), hi: e.hi - 1 })
        }
    };

    // The checks to move, and for each step of each index that ranges do not prove exact, the
    // test (before the loop) that it is.
    let mut moves: Vec<Move> = Vec::new();
    for &b in &in_loop {
        let Term::Branch { pred, negate: false, if_true, .. } = func.blocks[b].term else { continue };
        if !failure(func, if_true.0 as usize) || !cfg.dominates(b, c.latch) || def_count[pred.0 as usize] != 1 {
            continue;
        }
        let Some(&(db, di)) = def_site.get(&pred) else { continue };
        if db != b {
            continue;
        }
        let setp = &func.blocks[b].insts[di];
        let InstKind::Op { opcode: Opcode::Setp(Cmp::Ge, Type::U64), args, .. } = &setp.kind else { continue };
        if setp.guard.is_some() || args.len() != 3 || written_in_loop(&args[2]) {
            continue;
        }
        let Some(dag) = index_dag(func, &args[1], c.counter, &def_site, &written) else { continue };
        let mut rs = ranges.clone();
        if let Some(r) = counter_range {
            rs.set(c.counter, r);
        }
        let mut tests = Vec::new();
        let ok = dag.iter().all(|(i, depends)| {
            let InstKind::Op { opcode, args, .. } = &i.kind else { return false };
            let Arg::Reg(d) = args[0] else { return false };
            let range = rs.of_op(*opcode, &args[1..], &func.launch);
            let exact = range.is_some() && (!depends || (counter_range.is_some() && growing(*opcode, &args[1..], &rs)));
            match range {
                Some(r) if exact => rs.set(d, r),
                _ => rs.forget(d),
            }
            if !depends || exact {
                return true;
            }
            match step_test(func, i, &written) {
                Some(t) => {
                    tests.push((i.clone(), t));
                    true
                }
                None => false,
            }
        });
        // An index computed from a 64-bit counter by 64-bit additions, subtractions,
        // multiplications and left shifts by values the loop does not write is affine:
        // `f(k) = m * k + f(0)` modulo 2^64, one step of `m` per trip. See [`affine_fails`].
        let affine = !tests.is_empty() && func.class(c.counter) == RegClass::B64 && dag.iter().all(|(i, depends)| !depends || affine_step(i));
        if affine {
            tests.clear();
        }
        if ok {
            moves.push(Move { block: b, pred, setp: setp.clone(), dag, tests, affine });
        }
    }
    if moves.is_empty() {
        return;
    }

    // Before the loop: `last = end - 1`, each index at `last`, its check there, and the tests
    // that every step of the index is exact on every trip (some at the first trip); the whole
    // only when the loop runs. Where a test fails, the checks stay in the loop (guarded by it).
    let mut pre_insts: Vec<Inst> = Vec::new();
    let class = func.class(c.counter);
    let last = match c.end {
        Arg::Imm(super::Imm::Int(v)) => Arg::imm(v.wrapping_sub(1)),
        _ => {
            let r = func.fresh(class);
            pre_insts.push(Inst::op(Opcode::arith(Arith::Sub, Type::s(bits.max(16))), 1, vec![Arg::Reg(r), c.end.clone(), Arg::imm(1)]));
            Arg::Reg(r)
        }
    };
    // The counter's value before the loop: its first value, which it was just set to. A
    // constant start is written as the constant, so that the code before the loop reads no
    // counter and, inside an outer loop, `licm` can move it out of that loop too.
    let first_value = match c.start {
        Arg::Imm(_) => c.start.clone(),
        _ => Arg::Reg(c.counter),
    };
    let mut fail: Option<Reg> = None;
    let mut inexact: Option<Reg> = None;
    for m in &moves {
        let at_last = clone_chain(func, &m.dag, c.counter, &last, &mut pre_insts);
        let at_first = if m.affine || m.tests.iter().any(|(_, t)| *t == StepTest::NoBorrowAtFirst) {
            clone_chain(func, &m.dag, c.counter, &first_value, &mut pre_insts)
        } else {
            HashMap::default()
        };
        let InstKind::Op { args, .. } = &m.setp.kind else { continue };
        let (idx, len) = (at_last.get(&reg_of(&args[1])).cloned().unwrap_or(last.clone()), args[2].clone());
        let p = check(func, &mut pre_insts, m.setp.clone(), idx, len.clone());
        fail = Some(or(func, &mut pre_insts, fail, p));
        if m.affine {
            let first = at_first.get(&reg_of(&args[1])).cloned().unwrap_or(first_value.clone());
            let (fails, unsure) = affine_fails(func, &mut pre_insts, m, &at_first, first, len, &last, c.counter, &first_value, &written);
            fail = Some(or(func, &mut pre_insts, fail, fails));
            if let Some(u) = unsure {
                inexact = Some(or(func, &mut pre_insts, inexact, u));
            }
        }
        for (step, test) in &m.tests {
            let bad = step_fails(func, &mut pre_insts, step, *test, &at_last, &at_first, &written);
            inexact = Some(or(func, &mut pre_insts, inexact, bad));
        }
    }
    let Some(mut fail) = fail else { return };
    if let Some(bad) = inexact {
        let exact = func.fresh(RegClass::Pred);
        pre_insts.push(Inst::op(Opcode::arith(Arith::Not, Type::Pred), 1, vec![Arg::Reg(exact), Arg::Reg(bad)]));
        fail = and(func, &mut pre_insts, fail, exact);
    }
    if ranges.decide(Cmp::Lt, c.ty, &c.start, &c.end) != Some(true) {
        let runs = func.fresh(RegClass::Pred);
        pre_insts.push(Inst::op(Opcode::Setp(Cmp::Lt, c.ty), 1, vec![Arg::Reg(runs), first_value.clone(), c.end.clone()]));
        fail = and(func, &mut pre_insts, fail, runs);
    }
    // The block before the loop ends with the check; what it did next moves to a new block.
    // The hoisted check stands at the first check it replaces (its line in the PTX's `.loc`s);
    // the jump the block made before keeps its own.
    let next = BlockId(func.blocks.len() as u32);
    let check_loc = moves.first().and_then(|m| func.blocks[m.block].term_loc);
    let old = std::mem::replace(&mut func.blocks[c.pre].term, Term::Branch { pred: fail, negate: false, if_true: BlockId(report as u32), if_false: next });
    let old_loc = std::mem::replace(&mut func.blocks[c.pre].term_loc, check_loc);
    func.blocks.push(Block { insts: Vec::new(), term: old, term_loc: old_loc });
    func.blocks[c.pre].insts.extend(pre_insts.into_iter().map(|i| i.at(check_loc)));
    for m in moves {
        let Term::Branch { if_false, if_true, .. } = func.blocks[m.block].term else { continue };
        match inexact {
            None => func.blocks[m.block].term = Term::Jump(if_false),
            Some(bad) => {
                // In the loop, the check fails only where the one before it could not decide.
                let q = func.fresh(RegClass::Pred);
                func.blocks[m.block].insts.push(Inst::op(Opcode::arith(Arith::And, Type::Pred), 1, vec![Arg::Reg(q), Arg::Reg(m.pred), Arg::Reg(bad)]));
                func.blocks[m.block].term = Term::Branch { pred: q, negate: false, if_true, if_false };
            }
        }
    }
}

/// A check to move: its block and predicate, its `setp`, how its index is computed, and the
/// steps whose exactness is tested before the loop.
struct Move {
    block: usize,
    pred: Reg,
    setp: Inst,
    dag: Vec<(Inst, bool)>,
    tests: Vec<(Inst, StepTest)>,
    affine: bool,
}

/// How a step of an index, which the ranges do not prove exact, is shown exact on every trip
/// before the loop. Each step grows with its one varying operand `x`; if it is exact where `x`
/// is largest (at the last trip: all its earlier values are smaller, so no larger result
/// wraps) or, for a subtraction, smallest (the first trip), it is exact on every trip.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum StepTest {
    /// Exact everywhere: a zero extension, `mul.wide.u32`, a copy, an unsigned `shr`, `div`,
    /// `min` (by values the loop does not write).
    Always,
    /// `x + a`: no carry at the last trip (`r >= x`).
    NoCarryAtLast,
    /// `x - a`: no borrow at the first trip (`x >= a`).
    NoBorrowAtFirst,
    /// `x * a` (low half): the high half is zero at the last trip.
    NoHighAtLast,
    /// `x << k`: no bit shifted out at the last trip.
    NoShiftOutAtLast(u32),
}

/// The test a step of an index needs, or `None` for a step that cannot be shown exact.
fn step_test(func: &Func, inst: &Inst, written: &[bool]) -> Option<StepTest> {
    let InstKind::Op { opcode, args, .. } = &inst.kind else { return None };
    let varies = |a: &Arg| matches!(a, Arg::Reg(r) if written[r.0 as usize]);
    // A register wider than the type the step reads it as: the step sees only its low bits.
    let fits = |a: &Arg, t: Type| match a {
        Arg::Reg(r) => register_bits(func.class(*r)) <= t.bits(),
        _ => true,
    };
    let x = args.iter().skip(1).find(|a| varies(a))?;
    let test = match *opcode {
        Opcode::Mov(_) => StepTest::Always,
        Opcode::Cvt(Mode::None, to, from) if !from.is_signed() && !from.is_float() && !to.is_float() && to.bits() >= from.bits() && fits(x, from) => StepTest::Always,
        Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32) if fits(x, Type::U32) => StepTest::Always,
        Opcode::Arith(op, Mode::None, t) if !t.is_float() && !t.is_signed() && t != Type::Pred && fits(x, t) && matches!(op, Arith::Shr | Arith::Div | Arith::Min) => StepTest::Always,
        Opcode::Arith(Arith::Add, Mode::None, t) if !t.is_float() && t != Type::Pred && fits(x, t) => StepTest::NoCarryAtLast,
        Opcode::Arith(Arith::Sub, Mode::None, t) if !t.is_float() && t != Type::Pred && fits(x, t) => StepTest::NoBorrowAtFirst,
        Opcode::Arith(Arith::Mul, Mode::Lo, t) if !t.is_float() && fits(x, t) => StepTest::NoHighAtLast,
        Opcode::Arith(Arith::Shl, Mode::None, t) if !t.is_float() && fits(x, t) => match args.get(2) {
            Some(Arg::Imm(super::Imm::Int(k))) if (0..t.bits() as i64).contains(k) => StepTest::NoShiftOutAtLast(*k as u32),
            _ => return None,
        },
        _ => return None,
    };
    Some(test)
}

/// A step of an affine index in 64 bits: `x + a`, `x - a`, `x * a`, `x << k`, a copy.
fn affine_step(inst: &Inst) -> bool {
    let InstKind::Op { opcode, args, .. } = &inst.kind else { return false };
    match *opcode {
        Opcode::Mov(t) => t.bits() == 64,
        Opcode::Arith(Arith::Add | Arith::Sub, Mode::None, t) | Opcode::Arith(Arith::Mul, Mode::Lo, t) => t.bits() == 64 && !t.is_float(),
        Opcode::Arith(Arith::Shl, Mode::None, t) => t.bits() == 64 && matches!(args.get(2), Some(Arg::Imm(super::Imm::Int(k))) if (0..64).contains(k)),
        _ => false,
    }
}

/// For an affine index `f(k) = m * k + f(first) - m * first` (modulo 2^64), with `n = last -
/// first` further trips: the predicate that makes the check before the loop fail besides
/// `f(last) >= len`, and the one (if any) under which that check cannot decide.
///
/// With `m < 2^63`, the index's sequence either stays exact or wraps; where it wraps, the value
/// before the wrap is at least `2^64 - m > 2^63`, and no length reaches 2^63 (Rust keeps a
/// slice's size below `isize::MAX`), so the check in the loop would fail there. It cannot wrap
/// when `f(first) < len` and `m * n < 2^63`. So the check before the loop fails when
/// `f(first) >= len` (the first trip fails), `m * n >= 2^63` (some trip reaches 2^63 or wraps)
/// or `f(last) >= len`, and exactly when some trip's check would. With `m >= 2^63` (a
/// multiplier like `usize::MAX`, the index walking down) it cannot decide; the checks stay in
/// the loop, guarded by that (ptxas folds all of it away when `m` is a constant).
#[allow(clippy::too_many_arguments)]
fn affine_fails(func: &mut Func, out: &mut Vec<Inst>, m: &Move, at_first: &HashMap<Reg, Arg>, first: Arg, len: Arg, last: &Arg, counter: Reg, start: &Arg, written: &[bool]) -> (Reg, Option<Reg>) {
    let at = |a: &Arg| match a {
        Arg::Reg(r) => at_first.get(r).cloned().unwrap_or(a.clone()),
        _ => a.clone(),
    };
    // The slope: the product of the multipliers on the way from the counter.
    let mut slope = Arg::imm(1);
    for (inst, depends) in &m.dag {
        let InstKind::Op { opcode, args, .. } = &inst.kind else { continue };
        if !depends {
            continue;
        }
        let factor = match *opcode {
            Opcode::Arith(Arith::Mul, ..) => {
                let other = args.iter().skip(1).find(|a| !matches!(a, Arg::Reg(r) if written[r.0 as usize] || *r == counter));
                match other {
                    Some(o) => at(o),
                    None => continue,
                }
            }
            Opcode::Arith(Arith::Shl, ..) => match args.get(2) {
                Some(Arg::Imm(super::Imm::Int(k))) => Arg::imm(1i64 << k),
                _ => continue,
            },
            _ => continue,
        };
        slope = match (&slope, &factor) {
            (Arg::Imm(super::Imm::Int(a)), Arg::Imm(super::Imm::Int(b))) => Arg::imm(a.wrapping_mul(*b)),
            (Arg::Imm(super::Imm::Int(1)), _) => factor,
            _ => {
                let r = func.fresh(RegClass::B64);
                out.push(Inst::op(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), 1, vec![Arg::Reg(r), slope.clone(), factor]));
                Arg::Reg(r)
            }
        };
    }
    let unsure = match slope {
        Arg::Imm(super::Imm::Int(v)) if v >= 0 => None,
        Arg::Imm(_) => {
            let u = func.fresh(RegClass::Pred);
            out.push(Inst::op(Opcode::Mov(Type::Pred), 1, vec![Arg::Reg(u), Arg::imm(1)]));
            Some(u)
        }
        _ => {
            let u = func.fresh(RegClass::Pred);
            out.push(Inst::op(Opcode::Setp(Cmp::Lt, Type::S64), 1, vec![Arg::Reg(u), slope.clone(), Arg::imm(0)]));
            Some(u)
        }
    };
    let n = func.fresh(RegClass::B64);
    out.push(Inst::op(Opcode::arith(Arith::Sub, Type::S64), 1, vec![Arg::Reg(n), last.clone(), start.clone()]));
    let lo = func.fresh(RegClass::B64);
    let big = high_product(func, out, Type::U64, Arg::Reg(n), slope.clone());
    out.push(Inst::op(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), 1, vec![Arg::Reg(lo), Arg::Reg(n), slope]));
    let far = func.fresh(RegClass::Pred);
    out.push(Inst::op(Opcode::Setp(Cmp::Lt, Type::S64), 1, vec![Arg::Reg(far), Arg::Reg(lo), Arg::imm(0)]));
    let first_fails = check(func, out, m.setp.clone(), first, len);
    let a = or(func, out, Some(big), far);
    (or(func, out, Some(a), first_fails), unsure)
}

fn register_bits(c: RegClass) -> u32 {
    match c {
        RegClass::Pred => 1,
        RegClass::B16 => 16,
        RegClass::B32 | RegClass::F32 => 32,
        RegClass::B64 | RegClass::F64 => 64,
    }
}

/// A predicate that holds when `step`, computed before the loop at the last trip (`at_last`)
/// and the first (`at_first`), is not exact.
fn step_fails(func: &mut Func, out: &mut Vec<Inst>, step: &Inst, test: StepTest, at_last: &HashMap<Reg, Arg>, at_first: &HashMap<Reg, Arg>, written: &[bool]) -> Reg {
    let InstKind::Op { opcode, args, .. } = &step.kind else { unreachable!("a step is an operation") };
    let ty = match *opcode {
        Opcode::Arith(_, _, t) => Type::u(t.bits()),
        _ => Type::U64,
    };
    let class = match ty.bits() {
        16 => RegClass::B16,
        32 => RegClass::B32,
        _ => RegClass::B64,
    };
    let at = |map: &HashMap<Reg, Arg>, a: &Arg| match a {
        Arg::Reg(r) => map.get(r).cloned().unwrap_or(a.clone()),
        _ => a.clone(),
    };
    let k = args.iter().skip(1).position(|a| matches!(a, Arg::Reg(r) if written[r.0 as usize])).map_or(1, |k| k + 1);
    let other = if k == 1 { args.get(2) } else { args.get(1) }.cloned().unwrap_or(Arg::imm(0));
    let bad = func.fresh(RegClass::Pred);
    let setp = |cmp: Cmp, a: Arg, b: Arg| Inst::op(Opcode::Setp(cmp, ty), 1, vec![Arg::Reg(bad), a, b]);
    match test {
        StepTest::Always => out.push(Inst::op(Opcode::Mov(Type::Pred), 1, vec![Arg::Reg(bad), Arg::imm(0)])),
        StepTest::NoCarryAtLast => out.push(setp(Cmp::Lt, at(at_last, &args[0]), at(at_last, &args[k]))),
        StepTest::NoBorrowAtFirst => out.push(setp(Cmp::Lt, at(at_first, &args[k]), at(at_first, &other))),
        StepTest::NoHighAtLast => return high_product(func, out, ty, at(at_last, &args[k]), at(at_last, &other)),
        StepTest::NoShiftOutAtLast(0) => out.push(Inst::op(Opcode::Mov(Type::Pred), 1, vec![Arg::Reg(bad), Arg::imm(0)])),
        StepTest::NoShiftOutAtLast(s) => {
            let hi = func.fresh(class);
            out.push(Inst::op(Opcode::arith(Arith::Shr, ty), 1, vec![Arg::Reg(hi), at(at_last, &args[k]), Arg::imm((ty.bits() - s) as i64)]));
            out.push(setp(Cmp::Ne, Arg::Reg(hi), Arg::imm(0)));
        }
    }
    bad
}

/// A predicate that holds when the unsigned product `a · b` does not fit in `ty`. By a
/// constant `m` (the matmul's `TILE`, the slope of `k * TILE + tx`) it is `a > MAX / m`
/// ([`quotient`]), a compare ptxas folds when `a` is a constant too, where it kept the 64-bit
/// `mul.hi` of two constants as six uniform instructions and the test's other version alive.
fn high_product(func: &mut Func, out: &mut Vec<Inst>, ty: Type, a: Arg, b: Arg) -> Reg {
    let bad = func.fresh(RegClass::Pred);
    match (quotient(ty, &b), quotient(ty, &a)) {
        (Some(q), _) => out.push(Inst::op(Opcode::Setp(Cmp::Gt, ty), 1, vec![Arg::Reg(bad), a, q])),
        (None, Some(q)) => out.push(Inst::op(Opcode::Setp(Cmp::Gt, ty), 1, vec![Arg::Reg(bad), b, q])),
        (None, None) => {
            let class = if ty.bits() >= 64 { RegClass::B64 } else if ty.bits() == 16 { RegClass::B16 } else { RegClass::B32 };
            let hi = func.fresh(class);
            out.push(Inst::op(Opcode::Arith(Arith::Mul, Mode::Hi, ty), 1, vec![Arg::Reg(hi), a, b]));
            out.push(Inst::op(Opcode::Setp(Cmp::Ne, ty), 1, vec![Arg::Reg(bad), Arg::Reg(hi), Arg::imm(0)]));
        }
    }
    bad
}

/// For a constant factor `m` (an immediate, or a piece rustc writes): `MAX / m` of the unsigned
/// type `ty`, the largest value whose product with `m` fits (`MAX` for `m = 0`), as an operand.
pub(super) fn quotient(ty: Type, m: &Arg) -> Option<Arg> {
    let max = if ty.bits() >= 64 { u64::MAX } else { (1u64 << ty.bits()) - 1 };
    match m {
        Arg::Imm(super::Imm::Int(v)) => {
            let v = *v as u64 & max;
            Some(Arg::imm((if v == 0 { max } else { max / v }) as i64))
        }
        Arg::Sym(super::Sym::Piece(p)) => Some(Arg::Sym(super::Sym::Piece(quote::quote!(::ptx_runtime::__private::const_test::quotient(#max, #p))))),
        _ => None,
    }
}

fn reg_of(a: &Arg) -> Reg {
    match a {
        Arg::Reg(r) => *r,
        _ => Reg(u32::MAX),
    }
}

fn or(func: &mut Func, out: &mut Vec<Inst>, a: Option<Reg>, b: Reg) -> Reg {
    match a {
        None => b,
        Some(a) => {
            let o = func.fresh(RegClass::Pred);
            out.push(Inst::op(Opcode::arith(Arith::Or, Type::Pred), 1, vec![Arg::Reg(o), Arg::Reg(a), Arg::Reg(b)]));
            o
        }
    }
}

fn and(func: &mut Func, out: &mut Vec<Inst>, a: Reg, b: Reg) -> Reg {
    let o = func.fresh(RegClass::Pred);
    out.push(Inst::op(Opcode::arith(Arith::And, Type::Pred), 1, vec![Arg::Reg(o), Arg::Reg(a), Arg::Reg(b)]));
    o
}


/// `setp` (a clone of the loop's, so it keeps what the instruction carries) of `a` and `b` into
/// a fresh predicate.
fn check(func: &mut Func, out: &mut Vec<Inst>, mut setp: Inst, a: Arg, b: Arg) -> Reg {
    let p = func.fresh(RegClass::Pred);
    if let InstKind::Op { opcode: Opcode::Setp(cmp, _), args, .. } = &mut setp.kind {
        // The immediate second, as nvcc writes it.
        *args = if matches!(a, Arg::Imm(_)) && !matches!(b, Arg::Imm(_)) {
            *cmp = cmp.swapped();
            vec![Arg::Reg(p), b, a]
        } else {
            vec![Arg::Reg(p), a, b]
        };
    }
    out.push(setp);
    p
}

/// Whether the latch ends the loop exactly when the counter, just incremented, reaches the end:
/// `setp.lt p, counter, end; @p bra header`.
fn latch_tests_counter(func: &Func, c: &Counted) -> bool {
    let block = &func.blocks[c.latch];
    let Term::Branch { pred, negate: false, if_true, .. } = block.term else { return false };
    if if_true.0 as usize != c.header {
        return false;
    }
    block.insts.iter().rev().find(|i| i.defs().contains(&pred)).is_some_and(|i| {
        i.guard.is_none()
            && matches!(&i.kind, InstKind::Op { opcode: Opcode::Setp(Cmp::Lt, t), args, .. }
                if *t == c.ty && args.len() == 3 && matches!(args[1], Arg::Reg(r) if r == c.counter) && same_value(func, &args[2], &c.end))
    })
}

/// Two operands that hold the same value: equal, or a register written once by a `mov` of the
/// other (constant propagation puts the immediate in some places and not in others).
fn same_value(func: &Func, a: &Arg, b: &Arg) -> bool {
    let (_, def_site) = single_defs(func);
    let resolve = |a: &Arg| -> String {
        if let Arg::Reg(r) = a {
            if let Some(&(b, i)) = def_site.get(r) {
                let inst = &func.blocks[b].insts[i];
                if let (InstKind::Op { opcode: Opcode::Mov(_), args, .. }, None) = (&inst.kind, inst.guard) {
                    if args.len() == 2 && !matches!(args[1], Arg::Reg(_)) {
                        return format!("{:?}", args[1]);
                    }
                }
            }
        }
        format!("{a:?}")
    };
    resolve(a) == resolve(b)
}

/// The instructions, in order (operands first), that compute `idx` in the loop, each marked
/// whether it depends on the counter. Each is written once; one that depends on the counter
/// does through one operand, by an operation that grows with it (for [`growing`] to confirm);
/// one that does not is arithmetic on values the loop does not change (`ty * TILE`, computed
/// on every trip), recomputed before the loop.
fn index_dag(func: &Func, idx: &Arg, counter: Reg, def_site: &DefSites, written: &[bool]) -> Option<Vec<(Inst, bool)>> {
    struct Walk<'a> {
        func: &'a Func,
        counter: Reg,
        def_site: &'a DefSites,
        written: &'a [bool],
        memo: HashMap<Reg, bool>,
        out: Vec<(Inst, bool)>,
    }
    impl Walk<'_> {
        /// Whether `a` depends on the counter; `None` when it is not computed as required.
        fn visit(&mut self, a: &Arg) -> Option<bool> {
            let r = match a {
                Arg::Imm(_) => return Some(false),
                Arg::Sym(super::Sym::Named(n)) => return (!n.starts_with("%clock") && !n.starts_with("%globaltimer")).then_some(false),
                Arg::Sym(_) => return Some(false),
                Arg::Reg(r) => *r,
                _ => return None,
            };
            if r == self.counter {
                return Some(true);
            }
            if !self.written[r.0 as usize] {
                return Some(false);
            }
            if let Some(&v) = self.memo.get(&r) {
                return Some(v);
            }
            let &(b, i) = self.def_site.get(&r)?;
            let inst = &self.func.blocks[b].insts[i];
            let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
            if inst.guard.is_some() || !opcode.is_pure() || self.out.len() > 16 || !matches!(opcode, Opcode::Arith(..) | Opcode::Cvt(..) | Opcode::Mov(_)) {
                return None;
            }
            let mut varying = Vec::new();
            for (k, a) in args.iter().enumerate().skip(1) {
                if self.visit(a)? {
                    varying.push(k);
                }
            }
            let depends = match varying[..] {
                [] => false,
                [k] => {
                    let ok = match opcode {
                        Opcode::Arith(Arith::Add | Arith::Mul | Arith::Min, ..) | Opcode::Mov(_) => true,
                        // The subtrahend, the shift amount and the divisor stay fixed.
                        Opcode::Arith(Arith::Sub | Arith::Shl | Arith::Shr | Arith::Div, ..) => k == 1,
                        Opcode::Cvt(Mode::None, to, from) => !to.is_float() && !from.is_float() && !from.is_signed(),
                        _ => false,
                    };
                    if !ok {
                        return None;
                    }
                    true
                }
                _ => return None,
            };
            self.memo.insert(r, depends);
            self.out.push((inst.clone(), depends));
            Some(depends)
        }
    }
    let mut w = Walk { func, counter, def_site, written, memo: HashMap::default(), out: Vec::new() };
    w.visit(idx)?.then_some(w.out)
}

/// Whether an instruction whose result `ir::range` bounds without wrapping also grows with its
/// (one varying) operand: not for a product with a negative factor (its range says it is not).
fn growing(opcode: Opcode, src: &[Arg], rs: &Ranges) -> bool {
    // `of_op` gives these a range only where every value of the operands' ranges gives an
    // exact, unwrapped result, read as unsigned; on such values they are monotone.
    match opcode {
        Opcode::Arith(Arith::Add | Arith::Sub | Arith::Mul | Arith::Shl | Arith::Shr | Arith::Div | Arith::Min, ..) | Opcode::Mov(_) => true,
        // A conversion's range may be the whole narrower type (a cut, not monotone): only a
        // source that fits both types.
        Opcode::Cvt(_, to, from) => rs.of(&src[0], from.bits()).is_some_and(|r| r.hi <= mask(from.bits().min(to.bits()))),
        _ => false,
    }
}

/// The index's computation again with the counter replaced by `value`, into fresh registers:
/// each register of the loop's computation and its value there.
fn clone_chain(func: &mut Func, chain: &[(Inst, bool)], counter: Reg, value: &Arg, out: &mut Vec<Inst>) -> HashMap<Reg, Arg> {
    let mut map: HashMap<Reg, Arg> = HashMap::default();
    map.insert(counter, value.clone());
    for (inst, _) in chain {
        let mut new = inst.clone();
        let InstKind::Op { args, .. } = &mut new.kind else { continue };
        for a in args.iter_mut().skip(1) {
            if let Arg::Reg(r) = a {
                if let Some(v) = map.get(r) {
                    *a = v.clone();
                }
            }
        }
        let Arg::Reg(d) = args[0] else { continue };
        let nd = func.fresh(func.class(d));
        args[0] = Arg::Reg(nd);
        map.insert(d, Arg::Reg(nd));
        out.push(new);
    }
    map
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
