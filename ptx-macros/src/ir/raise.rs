//! A check raised to the one before it, over code that has no effect: layernorm's check of its
//! third loop (`y`, `gamma`, `beta`) was made before that loop, after the first two loops,
//! which only read `x`; it is now tested with the first loop's check, and the two branch once.
//! Each branch to a failure cost ptxas more than its compare (a convergence region around the
//! code up to it): layernorm's SASS 547 → 532 instructions on sm_80, 556 → 541 on sm_90.
//!
//! A check `c2` joins the nearest check `c1` that dominates it where:
//! - every way on from `c1` reaches `c2`: the blocks reached from `c1`'s continuation before
//!   `c2` hold no `ret`, no other branch to a failure, and no loop that might not end (a `for`
//!   loop ends; so does one that adds 1 to a counter on every trip and stays while it is below
//!   an end it does not write, as an iterator's);
//! - nothing on the way has an effect: moves, arithmetic, comparisons, conversions and plain
//!   loads only (no store, atomic, barrier, fence, warp collective, call or inline PTX);
//! - `c2`'s test is computed by such instructions, loads excepted, from registers written once
//!   before `c1`'s branch: the test is copied there and means the same; and what `c2`'s
//!   failure reads (`assert_eq!` prints its operands) is known there too.
//!
//! Then `c1` branches on `f1 || f2` to a block that reports `c1` where `f1` holds, else `c2`,
//! and `c2`'s branch goes. It runs last but the clean-ups, on the branches as they stand (a
//! slice's range checks are one branch by then). Sound for the reason a hoisted check is (docs/performance.md,
//! "Hoisted bounds checks"): a failure ends the launch, and the report is the one Rust would
//! make. Where `c1` fails, it is reported as before; where only `c2` fails, the code between
//! would have run to `c2` with no effect anyone could see, and `c2` is reported.

use super::dom::{Cfg, Loop};
use super::fast_hash::HashMap;
use super::hoist::{failure, single_defs, DefSites};
use super::{Arith, Block, BlockId, Func, Inst, InstKind, Opcode, Order, Reg, RegClass, Term, Type};

/// The most instructions a raised test is computed by.
const MAX_TEST: usize = 32;

pub fn run(func: &mut Func) {
    // Each raise removes a branch to a failure: at most as many rounds as there are.
    for _ in 0..func.blocks.len() {
        if !raise_one(func) {
            return;
        }
    }
}

/// A branch to a failure: its block, predicate, and the failing and continuing successors.
#[derive(Clone, Copy)]
struct Check {
    block: usize,
    pred: Reg,
    negate: bool,
    fail: BlockId,
    cont: BlockId,
}

/// A block that only fails: a failure (`hoist::failure`), or a choice between such blocks (a
/// check raised here reports through one).
fn fails(func: &Func, b: usize, depth: usize) -> bool {
    failure(func, b)
        || depth < 8
            && func.blocks[b].insts.is_empty()
            && match func.blocks[b].term {
                Term::Jump(t) => fails(func, t.0 as usize, depth + 1),
                Term::Branch { if_true, if_false, .. } => fails(func, if_true.0 as usize, depth + 1) && fails(func, if_false.0 as usize, depth + 1),
                _ => false,
            }
}

impl Check {
    fn of(func: &Func, b: usize) -> Option<Check> {
        let Term::Branch { pred, negate, if_true, if_false } = func.blocks[b].term else { return None };
        match (fails(func, if_true.0 as usize, 0), fails(func, if_false.0 as usize, 0)) {
            (true, false) => Some(Check { block: b, pred, negate, fail: if_true, cont: if_false }),
            // Failing where the predicate does not hold.
            (false, true) => Some(Check { block: b, pred, negate: !negate, fail: if_false, cont: if_true }),
            _ => None,
        }
    }
}

fn raise_one(func: &mut Func) -> bool {
    let cfg = Cfg::new(func);
    let checks: HashMap<usize, Check> = cfg.order.iter().filter_map(|&b| Some((b, Check::of(func, b)?))).collect();
    if checks.len() < 2 {
        return false;
    }
    let loops = cfg.loops();
    let (_, sites) = single_defs(func);
    let mut writers: HashMap<Reg, Vec<usize>> = HashMap::default();
    for (b, block) in func.blocks.iter().enumerate() {
        for r in block.insts.iter().flat_map(|i| i.defs()) {
            writers.entry(r).or_default().push(b);
        }
    }
    for &b in &cfg.order {
        let Some(&c2) = checks.get(&b) else { continue };
        // The nearest check above it.
        let mut a = b;
        let c1 = loop {
            match cfg.idom[a] {
                Some(d) if d != a => a = d,
                _ => break None,
            }
            if let Some(c) = checks.get(&a) {
                break Some(*c);
            }
        };
        let Some(c1) = c1 else { continue };
        if !cfg.dominates(c1.cont.0 as usize, b) || !quiet_way(func, &cfg, &loops, &c1, b) {
            continue;
        }
        let mut test = Vec::new();
        if !computed_before(func, &cfg, &sites, c1.block, c2.pred, &mut test, 0) || !reports_known(func, &cfg, &writers, c1.block, c2.fail.0 as usize) {
            continue;
        }
        join(func, c1, c2, test);
        return true;
    }
    false
}

/// Whether every way on from `c1` reaches block `to`, through blocks whose instructions (and
/// `to`'s) have no effect, with no other branch to a failure, no `ret`, and no loop but `for`
/// loops.
fn quiet_way(func: &Func, cfg: &Cfg, loops: &[Loop], c1: &Check, to: usize) -> bool {
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = vec![c1.cont.0 as usize];
    while let Some(b) = stack.pop() {
        if b == to || seen[b] {
            continue;
        }
        if b == c1.block || cfg.idom[b].is_none() {
            return false;
        }
        seen[b] = true;
        let block = &func.blocks[b];
        if !matches!(block.term, Term::Jump(_) | Term::Branch { .. }) || !block.insts.iter().all(no_effect) {
            return false;
        }
        for s in block.term.successors() {
            if fails(func, s.0 as usize, 0) {
                return false;
            }
            stack.push(s.0 as usize);
        }
    }
    // Every loop met ends: a `for` loop's counter is written only where it advances; an
    // iterator's loop counts up by one to an end it does not write.
    let ends = |l: &Loop| func.for_loops.iter().any(|f| l.contains(f.next.0 as usize)) || counted(func, cfg, l);
    loops.iter().filter(|l| seen[l.header]).all(ends) && func.blocks[to].insts.iter().all(no_effect)
}

/// Whether every trip of `l` tests `k < end` (unsigned), stays only while it holds, and adds
/// 1 to `k`, `end` unwritten in the loop: `k` cannot wrap (it is at most `end` after the add),
/// so the loop ends.
fn counted(func: &Func, cfg: &Cfg, l: &Loop) -> bool {
    let every_trip = |b: usize| l.latches.iter().all(|&x| cfg.dominates(b, x));
    (0..func.blocks.len()).filter(|&b| l.contains(b) && every_trip(b)).any(|b| {
        let Term::Branch { pred, negate, if_true, if_false } = func.blocks[b].term else { return false };
        // Which value of the predicate stays in the loop.
        let (t_in, f_in) = (l.contains(if_true.0 as usize), l.contains(if_false.0 as usize));
        if t_in == f_in {
            return false;
        }
        let stays_on = t_in != negate;
        let Some(test) = func.blocks[b].insts.iter().rev().find(|i| i.defs().contains(&pred)) else { return false };
        let InstKind::Op { opcode: Opcode::Setp(cmp, t), args, .. } = &test.kind else { return false };
        if test.guard.is_some() || t.is_signed() || t.is_float() {
            return false;
        }
        // `k < end` where the loop stays: `k < end` holding, `k >= end` not, or swapped.
        use super::Cmp::{Ge, Gt, Le, Lt};
        let (k, end) = match (cmp, &args[1..], stays_on) {
            (Lt, [super::Arg::Reg(k), end], true) | (Ge, [super::Arg::Reg(k), end], false) => (*k, end.clone()),
            (Gt, [end, super::Arg::Reg(k)], true) | (Le, [end, super::Arg::Reg(k)], false) => (*k, end.clone()),
            _ => return false,
        };
        let bits = t.bits();
        let end_fixed = match end {
            super::Arg::Imm(_) => true,
            super::Arg::Reg(e) => l.writes(func, e).is_empty(),
            _ => false,
        };
        let [(sb, si)] = l.writes(func, k)[..] else { return false };
        let step = &func.blocks[sb].insts[si];
        let adds_one = step.guard.is_none()
            && every_trip(sb)
            && matches!(&step.kind, InstKind::Op { opcode: Opcode::Arith(Arith::Add, _, t), args, .. }
                if t.bits() == bits && !t.is_float() && matches!(&args[..], [super::Arg::Reg(d), super::Arg::Reg(a), super::Arg::Imm(super::Imm::Int(1))] if *d == k && *a == k));
        end_fixed && adds_one
    })
}

/// Whether the failure reached from `fail` reads only values known at the end of block `at`:
/// each register it reads is written in blocks that only fail (the stubs' lines) or in blocks
/// that dominate `at`. `assert_eq!`'s report prints its operands, which may be computed after the
/// check it joins.
fn reports_known(func: &Func, cfg: &Cfg, writers: &HashMap<Reg, Vec<usize>>, at: usize, fail: usize) -> bool {
    let mut path = vec![fail];
    let mut i = 0;
    while let Some(&b) = path.get(i) {
        for s in func.blocks[b].term.successors() {
            if !path.contains(&(s.0 as usize)) {
                path.push(s.0 as usize);
            }
        }
        i += 1;
        if path.len() > 16 {
            return false;
        }
    }
    let read = |b: usize| func.blocks[b].insts.iter().flat_map(|i| i.uses()).chain(match func.blocks[b].term {
        Term::Branch { pred, .. } => Some(pred),
        _ => None,
    });
    path.iter().flat_map(|&b| read(b).collect::<Vec<_>>()).all(|r| writers.get(&r).into_iter().flatten().all(|&w| path.contains(&w) || fails(func, w, 0) || cfg.dominates(w, at)))
}

/// An instruction with no effect but its result: moves, arithmetic, comparisons, conversions,
/// plain loads.
fn no_effect(inst: &Inst) -> bool {
    match &inst.kind {
        InstKind::Op { opcode, .. } => match opcode {
            Opcode::Mov(_) | Opcode::Arith(..) | Opcode::Setp(..) | Opcode::Set(..) | Opcode::Selp(_) | Opcode::Cvt(..) | Opcode::Cvta { .. } | Opcode::Testp(..) | Opcode::ShfWrap { .. } => true,
            Opcode::Ld(m) => m.order == Order::Plain,
            _ => false,
        },
        _ => false,
    }
}

/// Collects into `test` (operands first) the instructions that compute `r`, where `r` is not
/// already known at the end of block `at` (written once, in a block that dominates it); false
/// where one is not pure arithmetic written once or there are more than [`MAX_TEST`].
fn computed_before(func: &Func, cfg: &Cfg, sites: &DefSites, at: usize, r: Reg, test: &mut Vec<(usize, usize)>, depth: usize) -> bool {
    let Some(&(b, i)) = sites.get(&r) else { return false };
    if b == at || cfg.dominates(b, at) {
        return true;
    }
    if test.contains(&(b, i)) {
        return true;
    }
    let inst = &func.blocks[b].insts[i];
    let pure = matches!(&inst.kind, InstKind::Op { opcode, defs: 1, .. } if !matches!(opcode, Opcode::Ld(_))) && no_effect(inst);
    if !pure || inst.guard.is_some() || depth > MAX_TEST || test.len() >= MAX_TEST {
        return false;
    }
    for u in inst.uses() {
        if !computed_before(func, cfg, sites, at, u, test, depth + 1) {
            return false;
        }
    }
    test.push((b, i));
    true
}

/// `c1` fails where either fails, reporting `c1` first; `c2`'s branch goes.
fn join(func: &mut Func, c1: Check, c2: Check, test: Vec<(usize, usize)>) {
    let loc = func.blocks[c1.block].term_loc;
    let mut copied: Vec<Inst> = Vec::new();
    let mut renamed: HashMap<Reg, Reg> = HashMap::default();
    for (b, i) in test {
        let mut inst = func.blocks[b].insts[i].clone();
        inst.rename_uses(&renamed);
        for d in inst.defs() {
            let fresh = func.fresh(func.class(d));
            renamed.insert(d, fresh);
        }
        inst.rename_defs(&renamed);
        copied.push(inst);
    }
    let p2 = renamed.get(&c2.pred).copied().unwrap_or(c2.pred);
    let f1 = failing(func, c1.pred, c1.negate, &mut copied, loc);
    let f2 = failing(func, p2, c2.negate, &mut copied, loc);
    let either = func.fresh(RegClass::Pred);
    copied.push(Inst::op(Opcode::arith(Arith::Or, Type::Pred), 1, vec![super::Arg::Reg(either), super::Arg::Reg(f1), super::Arg::Reg(f2)]).at(loc));
    let which = BlockId(func.blocks.len() as u32);
    // Two checks with one report (a slice's range, `start <= end` and `end <= len`) need no choice.
    let term = if c1.fail == c2.fail { Term::Jump(c1.fail) } else { Term::Branch { pred: f1, negate: false, if_true: c1.fail, if_false: c2.fail } };
    func.blocks.push(Block { insts: Vec::new(), term, term_loc: loc });
    let first = &mut func.blocks[c1.block];
    first.insts.extend(copied);
    first.term = Term::Branch { pred: either, negate: false, if_true: which, if_false: c1.cont };
    func.blocks[c2.block].term = Term::Jump(c2.cont);
}

/// The predicate that holds where a branch on `p` (`@!p` when `negate`) goes to its failure.
fn failing(func: &mut Func, p: Reg, negate: bool, out: &mut Vec<Inst>, loc: Option<super::loc::Loc>) -> Reg {
    if !negate {
        return p;
    }
    let n = func.fresh(RegClass::Pred);
    out.push(Inst::op(Opcode::arith(Arith::Not, Type::Pred), 1, vec![super::Arg::Reg(n), super::Arg::Reg(p)]).at(loc));
    n
}
