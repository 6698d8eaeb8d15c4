//! Failed checks in a short `for` loop reported when the loop ends: a check that `hoist` could
//! not move (the transpose's `input[y * w + x]` under `if x < w && y < h`) no longer branches
//! to the failure block in the middle of the trip; it records the failure in a predicate and
//! skips the rest of the trip (a `continue`), and the loop's exit branches to the failure
//! block when a failure was recorded. The trip's accesses stay behind their checks, but no
//! branch to a call separates one trip from the next: ptxas, which unrolls such a loop,
//! if-converts the trips and issues their loads together, as it does nvcc's unchecked code
//! (the transpose's four loads in flight at once instead of one).
//!
//! A loop qualifies when (see docs/performance.md, "Unrolled short loops", for the argument):
//! - it is a `for` loop over a range (`Func::for_loops`): its counter, end and step are written
//!   only where it advances, so it makes at most as many trips as its range has values
//!   whatever its body skips;
//! - it holds no other loop, no call and no inline assembly, and it is left only by its
//!   counter test, `break`, or a failed check;
//! - every failure in it reports the same thing (message and line: one line of source), and
//!   its failure blocks read no value computed in the loop (the report does not depend on the
//!   trip that failed).
//!
//! The launch then fails later than Rust would, at the end of the loop instead of in the trip,
//! with the same report: a failed check ends the whole launch and what the kernel was writing
//! is not defined after it, and no access happens that its check did not pass.

use super::dom::Cfg;
use super::hoist::{failure, same_failure, single_defs};
use super::{Arg, Arith, Block, BlockId, Cmp, Func, Inst, InstKind, Opcode, Reg, RegClass, Term, Type};

/// Defers the checks of every loop that qualifies; the headers of those loops (for
/// `unroll_full`, which unrolls the short ones).
pub fn run(func: &mut Func) -> Vec<usize> {
    let mut deferred = Vec::new();
    for fl in func.for_loops.clone() {
        deferred.extend(defer_loop(func, fl.next.0 as usize, fl.exit.0 as usize));
    }
    deferred
}

/// The loop's header, where its checks were deferred.
fn defer_loop(func: &mut Func, next: usize, exit: usize) -> Option<usize> {
    let cfg = Cfg::new(func);
    if cfg.idom.get(next).is_none_or(|d| d.is_none()) {
        return None;
    }
    let loops = cfg.loops();
    let Some(l) = loops.iter().filter(|l| l.contains(next)).min_by_key(|l| l.body.iter().filter(|&&x| x).count()) else { return None };
    // The loop closes at `next` (or at the block it advances the counter in).
    let advances = func.blocks[next].term.successors();
    if l.latches.iter().any(|&b| b != next && !advances.contains(&BlockId(b as u32))) {
        return None;
    }
    if loops.iter().any(|o| o.header != l.header && l.contains(o.header)) {
        return None;
    }
    let in_loop: Vec<usize> = (0..func.blocks.len()).filter(|&b| l.contains(b)).collect();
    let mut failures = Vec::new();
    for &b in &in_loop {
        let block = &func.blocks[b];
        if block.insts.iter().any(|i| matches!(i.kind, InstKind::Call { .. } | InstKind::Asm { .. } | InstKind::Raw(_))) {
            return None;
        }
        for s in block.term.successors() {
            let s = s.0 as usize;
            if l.contains(s) || s == exit {
                continue;
            }
            if !failure(func, s) {
                return None;
            }
            failures.push(s);
        }
    }
    let Some(&report) = failures.first() else { return None };
    if failures.iter().any(|&f| !same_failure(func, report, f)) || !self_contained(func, report) {
        return None;
    }
    // The checks: a branch to a failure block, anywhere in the trip before `next`.
    let checks: Vec<usize> = in_loop
        .iter()
        .copied()
        // Checks on every trip are `hoist`'s (and where it left them, guarded by a test ptxas
        // folds, they stay as they are); these are the checks under a condition.
        .filter(|&b| b != next && !l.latches.contains(&b) && !cfg.dominates(b, next))
        .filter(|&b| matches!(func.blocks[b].term, Term::Branch { negate: false, if_true, .. } if failures.contains(&(if_true.0 as usize))))
        .collect();
    if checks.is_empty() {
        return None;
    }
    let entries = l.entries(&cfg);
    if entries.is_empty() {
        return None;
    }
    // The record is a 32-bit register, not a predicate: with one more predicate live across
    // the loop, ptxas no longer unrolled the transpose's second loop.
    func.regs.push(RegClass::B32);
    let acc = Reg(func.regs.len() as u32 - 1);
    let loc = func.blocks[next].term_loc;
    for &e in &entries {
        func.blocks[e].insts.push(Inst::op(Opcode::Mov(Type::U32), 1, vec![Arg::Reg(acc), Arg::imm(0)]).at(loc));
    }
    let (def_count, _) = single_defs(func);
    for &b in &checks {
        let Term::Branch { pred, if_false, .. } = func.blocks[b].term else { continue };
        let at = func.blocks[b].term_loc.or(loc);
        if let Some((p, enter)) = guard(func, &cfg, b, next, &def_count) {
            // `if c { check; body }`: one branch, on `c && !failed`, so that ptxas if-converts
            // the trip (the check's arithmetic is computed under `c`'s test, speculatively).
            let moved = std::mem::take(&mut func.blocks[b].insts);
            func.blocks[p].insts.extend(moved);
            let inst = |op: Arith, args: Vec<Arg>| Inst::op(Opcode::arith(op, Type::Pred), 1, args).at(at);
            let (failed, passed, ok) = (func.fresh(RegClass::Pred), func.fresh(RegClass::Pred), func.fresh(RegClass::Pred));
            let insts = [
                inst(Arith::And, vec![Arg::Reg(failed), Arg::Reg(enter), Arg::Reg(pred)]),
                inst(Arith::Not, vec![Arg::Reg(passed), Arg::Reg(pred)]),
                inst(Arith::And, vec![Arg::Reg(ok), Arg::Reg(enter), Arg::Reg(passed)]),
            ];
            func.blocks[p].insts.extend(insts);
            record(func, p, acc, failed, at);
            // The trip's code falls through from the test (the writer falls through to the
            // earliest-made successor): the skip is a new block.
            let skip = BlockId(func.blocks.len() as u32);
            func.blocks.push(Block { insts: Vec::new(), term: Term::Jump(BlockId(next as u32)), term_loc: at });
            func.blocks[p].term = Term::Branch { pred: ok, negate: false, if_true: if_false, if_false: skip };
            func.blocks[b].term = Term::Jump(if_false);
            continue;
        }
        record(func, b, acc, pred, at);
        func.blocks[b].term = Term::Branch { pred, negate: false, if_true: BlockId(next as u32), if_false };
    }
    // Every way out of the loop but a failure passes the test of what was recorded.
    let tested = BlockId(func.blocks.len() as u32);
    let any = func.fresh(RegClass::Pred);
    let test = Inst::op(Opcode::Setp(Cmp::Ne, Type::U32), 1, vec![Arg::Reg(any), Arg::Reg(acc), Arg::imm(0)]).at(loc);
    func.blocks.push(Block { insts: vec![test], term: Term::Branch { pred: any, negate: false, if_true: BlockId(report as u32), if_false: BlockId(exit as u32) }, term_loc: loc });
    for &b in &in_loop {
        match &mut func.blocks[b].term {
            Term::Jump(t) if t.0 as usize == exit => *t = tested,
            Term::Branch { if_true, if_false, .. } => {
                for t in [if_true, if_false] {
                    if t.0 as usize == exit {
                        *t = tested;
                    }
                }
            }
            _ => {}
        }
    }
    Some(l.header)
}

/// The failure block (and the block it jumps to) reads only registers they write themselves
/// (the stub's line): what it reports does not depend on the trip that failed.
fn self_contained(func: &Func, stub: usize) -> bool {
    let mut blocks = vec![stub];
    if let Term::Jump(t) = func.blocks[stub].term {
        blocks.push(t.0 as usize);
    }
    let defs: Vec<Reg> = blocks.iter().flat_map(|&b| func.blocks[b].insts.iter().flat_map(|i| i.defs())).collect();
    blocks.iter().all(|&b| func.blocks[b].insts.iter().all(|i| i.uses().iter().all(|r| defs.contains(r))))
}

/// `acc = failed ? 1 : acc`, at the end of `block`. One `selp` of the flag itself, not a
/// `selp` of 0 or 1 that an `or` joins to it: with the `or`, ptxas 13 issues the transpose's
/// first load and its shared store before the other three loads (two round trips to memory);
/// with the `selp`, the four loads together, as in nvcc's build (measured, docs/performance.md).
fn record(func: &mut Func, block: usize, acc: Reg, failed: Reg, at: Option<super::loc::Loc>) {
    let set = Inst::op(Opcode::Selp(Type::U32), 1, vec![Arg::Reg(acc), Arg::imm(1), Arg::Reg(acc), Arg::Reg(failed)]).at(at);
    func.blocks[block].insts.push(set);
}


/// A check `b` entered only from a block `p` that skips to the end of the trip otherwise
/// (`if c { check; ... }`), with nothing in `b` but arithmetic whose registers are written
/// nowhere else (safe to compute in `p`): `p` and the predicate under which it enters `b`
/// (computed in `p`, at its end).
fn guard(func: &mut Func, cfg: &Cfg, b: usize, next: usize, def_count: &[usize]) -> Option<(usize, Reg)> {
    let [p] = cfg.preds[b][..] else { return None };
    if p == b {
        return None;
    }
    let Term::Branch { pred, negate, if_true, if_false } = func.blocks[p].term else { return None };
    let (to_b, other) = if if_true.0 as usize == b { (true, if_false) } else if if_false.0 as usize == b { (false, if_true) } else { return None };
    let o = other.0 as usize;
    let skips = o == next || (func.blocks[o].insts.is_empty() && matches!(func.blocks[o].term, Term::Jump(t) if t.0 as usize == next));
    if !skips {
        return None;
    }
    let arithmetic = func.blocks[b].insts.iter().all(|i| {
        i.guard.is_none()
            && matches!(&i.kind, InstKind::Op { opcode: Opcode::Arith(..) | Opcode::Setp(..) | Opcode::Cvt(..) | Opcode::Mov(_) | Opcode::Selp(_), args, .. }
                if !args.iter().any(|a| matches!(a, Arg::Mem { .. })))
            && i.defs().iter().all(|r| def_count[r.0 as usize] == 1)
    });
    if !arithmetic {
        return None;
    }
    // Entered when `pred` (or its negation) holds.
    if to_b != negate {
        return Some((p, pred));
    }
    let e = func.fresh(RegClass::Pred);
    let at = func.blocks[p].term_loc;
    func.blocks[p].insts.push(Inst::op(Opcode::arith(Arith::Not, Type::Pred), 1, vec![Arg::Reg(e), Arg::Reg(pred)]).at(at));
    Some((p, e))
}
