//! Loops of warp collectives unrolled completely. ptxas unrolls a short loop whose trip count
//! it knows, but not one that holds `shfl.sync`, `vote.sync` or `bar.warp.sync` (measured,
//! ptxas 13: the same five-trip loop with an `add` in place of the shuffle is unrolled, and so
//! is one with `bar.sync`), while nvcc's front end unrolls them before ptxas sees them: a warp reduction
//! (`offset = 16; while offset > 0 { sum += shfl_down_sync(!0, sum, offset); offset /= 2 }`)
//! is five shuffles in a row in nvcc's SASS, and was a loop of seven instructions a trip in
//! ours (the `warp_reduce` corpus kernel). The loops whose checks `defer` made branch-free
//! are unrolled here too ([`run_deferred`], late in the pipeline), since ptxas keeps some of
//! them rolled. Such a loop is unrolled where:
//!
//! - its counter `k` is written before the loop by `mov k, c` of an immediate (on the one
//!   path into it), and once in the loop, in a block every trip passes, by an operation of `k`
//!   and an immediate (`k + 1`, `k / 2`, `k << 1`; directly or through a register);
//! - it leaves from one block, which every trip passes, on a comparison of `k` with an
//!   immediate, or `and`, `or` and `not` of such comparisons (a `step_by` loop's
//!   `k < end && k >= step`); any other way out is a failed check's report;
//! - it holds no other loop, no call and no inline PTX, and unrolled it makes at most
//!   [`MAX_TRIPS`] trips and [`MAX_INSTS`] instructions.
//!
//! The trips are simulated here. Each becomes a copy of the loop's blocks in which `k` reads
//! as a register written once with that trip's value (`constprop` then puts the immediate
//! where an instruction takes one, ptxas folds the rest), the exit test is a jump, and the back
//! edge goes to the next trip's copy; the copies then form one straight block where the body
//! has no branch. Registers the loop writes once, reads only after that write and nobody
//! reads after the loop are renamed in each copy, so the passes after this one still see each
//! written once. `k` itself is still written with each trip's value, for a reader after the
//! loop (dead code otherwise). The loop's `for` facts (`Func::entry_facts`, `Func::for_loops`)
//! are dropped with it.

use super::dom::{Cfg, Loop};
use super::fast_hash::{HashMap, HashSet};
use super::hoist::{failure, single_defs};
use super::{Arg, Arith, Block, BlockId, Cmp, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, Term, Type};

/// The most trips a loop unrolled here makes.
const MAX_TRIPS: usize = 32;

/// The most instructions the unrolled trips hold together.
const MAX_INSTS: usize = 512;

/// Unrolls every loop of warp collectives that qualifies; whether any did.
pub fn run(func: &mut Func) -> bool {
    let collective = |i: &Inst| matches!(i.kind, InstKind::Op { opcode: Opcode::Shfl(_) | Opcode::Vote(..) | Opcode::BarWarpSync, .. });
    if !func.blocks.iter().flat_map(|b| &b.insts).any(collective) {
        return false;
    }
    unroll(func, &|func: &Func, body: &[usize], _| body.iter().flat_map(|&b| &func.blocks[b].insts).any(collective))
}

/// Unrolls the loops whose headers are `headers` (the loops `defer` made branch-free to the
/// failure block) where they qualify; whether any did. ptxas unrolls such a loop itself when
/// its trips are few, but not always: the transpose's tile loop without a declared block,
/// whose tile index is checked in the loop, stays rolled, one load per trip, where unrolled
/// here its four loads are issued together (measured, ptxas 13; docs/performance.md, "Short
/// loops unrolled here"). nvcc's front end unrolls such loops before ptxas sees them.
pub fn run_deferred(func: &mut Func, headers: &[usize]) -> bool {
    !headers.is_empty() && unroll(func, &|_: &Func, _: &[usize], header: usize| headers.contains(&header))
}

/// Unrolls, one at a time (the graph changes with each), the loops `wanted` picks (from the
/// function, the loop's blocks and its header) that qualify.
fn unroll(func: &mut Func, wanted: &dyn Fn(&Func, &[usize], usize) -> bool) -> bool {
    let mut any = false;
    loop {
        let cfg = Cfg::new(func);
        let loops = cfg.loops();
        let Some(plan) = loops.iter().find_map(|l| plan(func, &cfg, &loops, l, wanted)) else { return any };
        apply(func, plan);
        any = true;
    }
}

/// A loop to unroll and its trips.
struct Plan {
    /// The loop's blocks, in index order.
    body: Vec<usize>,
    header: usize,
    counter: Reg,
    /// The counter's write in the loop (block, instruction).
    step: (usize, usize),
    /// The block that leaves, and its successors out of the loop and in it.
    exit_block: usize,
    out: BlockId,
    stay: BlockId,
    /// The counter's value as each trip begins; one more than the trips: the last is its value
    /// after the step of the trip that leaves (written only where that trip steps).
    values: Vec<i64>,
    /// The loop's blocks that come after the step's on every trip (dominated by it).
    after_step: HashSet<usize>,
    /// Registers renamed in each copy.
    temps: HashSet<Reg>,
}

fn plan(func: &Func, cfg: &Cfg, loops: &[Loop], l: &Loop, wanted: &dyn Fn(&Func, &[usize], usize) -> bool) -> Option<Plan> {
    let body: Vec<usize> = (0..func.blocks.len()).filter(|&b| l.contains(b)).collect();
    let insts = || body.iter().flat_map(|&b| &func.blocks[b].insts);
    if !wanted(func, &body, l.header) || !insts().all(|i| matches!(i.kind, InstKind::Op { .. })) {
        return None;
    }
    if loops.iter().any(|o| o.header != l.header && l.contains(o.header)) {
        return None;
    }
    let [pre] = l.entries(cfg)[..] else { return None };
    // The one way out that is not a failure.
    let mut exits = body.iter().flat_map(|&b| func.blocks[b].term.successors().into_iter().map(move |s| (b, s))).filter(|&(_, s)| !l.contains(s.0 as usize) && !failure(func, s.0 as usize));
    let (exit_block, out) = exits.next()?;
    if exits.next().is_some() || !l.latches.iter().all(|&x| cfg.dominates(exit_block, x)) {
        return None;
    }
    let Term::Branch { pred, negate, if_true, if_false } = func.blocks[exit_block].term else { return None };
    let stay = if if_true == out { if_false } else { if_true };
    if !l.contains(stay.0 as usize) {
        return None;
    }
    // The test: `setp.<cmp> p, k, c` (or `c, k`) in the leaving block, or `and`, `or` and
    // `not` of such tests (a `step_by` loop's `k < end && k >= step`).
    let block = &func.blocks[exit_block];
    let mut counter = None;
    let test = exit_test(block, block.insts.len(), pred, &mut counter, 0)?;
    let counter = counter?;
    // The step: written once in the loop, unguarded, on every trip.
    let [step] = l.writes(func, counter)[..] else { return None };
    let step_inst = &func.blocks[step.0].insts[step.1];
    if step_inst.guard.is_some() || !l.latches.iter().all(|&x| cfg.dominates(step.0, x)) {
        return None;
    }
    let (_, single) = single_defs(func);
    let (op, op_ty, amount) = stepping(func, cfg, l, &single, step, counter)?;
    let start = start(func, cfg, pre, counter)?;
    let after_step = |b: usize, i: usize| if b == step.0 { i > step.1 } else { cfg.dominates(step.0, b) };

    // The trips, simulated.
    let mut values = vec![start];
    loop {
        if values.len() > MAX_TRIPS {
            return None;
        }
        let v = *values.last()?;
        let next = apply_step(op, op_ty, v, amount)?;
        let holds = test.holds(&|at: usize| if after_step(exit_block, at) { next } else { v })?;
        let goes = if holds != negate { if_true } else { if_false };
        values.push(next);
        if goes == out {
            break;
        }
    }
    let size: usize = body.iter().map(|&b| func.blocks[b].insts.len()).sum();
    if size * (values.len() - 1) > MAX_INSTS {
        return None;
    }
    let temps = renamable(func, cfg, l, &body, &single);
    let after_step = body.iter().copied().filter(|&b| b != step.0 && cfg.dominates(step.0, b)).collect();
    Some(Plan { body, header: l.header, counter, step, exit_block, out, stay, values, after_step, temps })
}

/// A loop's exit test, as a function of its counter.
enum Test {
    /// `setp.<cmp>.<ty>` of the counter (read at instruction `at` of the leaving block) and
    /// `bound`, in that order when `counter_first`.
    Cmp { cmp: Cmp, ty: Type, bound: i64, counter_first: bool, at: usize },
    And(Box<Test>, Box<Test>),
    Or(Box<Test>, Box<Test>),
    Not(Box<Test>),
}

impl Test {
    /// Whether the test holds, `value(at)` being the counter as the instruction at `at` reads it.
    fn holds(&self, value: &dyn Fn(usize) -> i64) -> Option<bool> {
        Some(match self {
            Test::Cmp { cmp, ty, bound, counter_first, at } => {
                let v = value(*at);
                let (x, y) = if *counter_first { (v, *bound) } else { (*bound, v) };
                super::constprop::compare(*cmp, *ty, x, y)?
            }
            Test::And(a, b) => a.holds(value)? && b.holds(value)?,
            Test::Or(a, b) => a.holds(value)? || b.holds(value)?,
            Test::Not(a) => !a.holds(value)?,
        })
    }
}

/// The test that writes `pred` last before instruction `before` of `block`, unguarded, over
/// one counter (`counter`, set by the first comparison found).
fn exit_test(block: &Block, before: usize, pred: Reg, counter: &mut Option<Reg>, depth: usize) -> Option<Test> {
    if depth > 4 {
        return None;
    }
    let (at, inst) = block.insts[..before].iter().enumerate().rev().find(|(_, i)| i.defs().contains(&pred))?;
    let InstKind::Op { opcode, args, .. } = &inst.kind else { return None };
    if inst.guard.is_some() {
        return None;
    }
    let mut sub = |p: &Arg| match p {
        Arg::Reg(p) => exit_test(block, at, *p, counter, depth + 1).map(Box::new),
        _ => None,
    };
    match (opcode, &args[1..]) {
        (Opcode::Setp(cmp, ty), operands) if !ty.is_float() => {
            let (k, bound, counter_first) = match operands {
                [Arg::Reg(k), Arg::Imm(Imm::Int(c))] => (*k, *c, true),
                [Arg::Imm(Imm::Int(c)), Arg::Reg(k)] => (*k, *c, false),
                _ => return None,
            };
            if *counter.get_or_insert(k) != k {
                return None;
            }
            Some(Test::Cmp { cmp: *cmp, ty: *ty, bound, counter_first, at })
        }
        (Opcode::Arith(Arith::And, _, Type::Pred), [a, b]) => Some(Test::And(sub(a)?, sub(b)?)),
        (Opcode::Arith(Arith::Or, _, Type::Pred), [a, b]) => Some(Test::Or(sub(a)?, sub(b)?)),
        (Opcode::Arith(Arith::Not, _, Type::Pred), [a]) => Some(Test::Not(sub(a)?)),
        _ => None,
    }
}

/// The operation that steps the counter (at `at`): `op k, k, c`, or `mov k, t` of `op t, k, c`
/// written once in the loop before the step on every trip. `None` for anything else.
fn stepping(func: &Func, cfg: &Cfg, l: &Loop, single: &super::hoist::DefSites, at: (usize, usize), counter: Reg) -> Option<(Arith, Type, i64)> {
    let step = &func.blocks[at.0].insts[at.1];
    let InstKind::Op { opcode, defs: 1, args } = &step.kind else { return None };
    let (opcode, args) = match (opcode, &args[..]) {
        (Opcode::Mov(_), [_, Arg::Reg(t)]) => {
            let &(b, i) = single.get(t)?;
            let inst = &func.blocks[b].insts[i];
            let before = if b == at.0 { i < at.1 } else { cfg.dominates(b, at.0) };
            if !l.contains(b) || inst.guard.is_some() || !before {
                return None;
            }
            let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
            (opcode, args)
        }
        _ => (opcode, args),
    };
    match (opcode, &args[1..]) {
        (Opcode::Arith(op, Mode::None | Mode::Lo, ty), [Arg::Reg(k), Arg::Imm(Imm::Int(c))]) if *k == counter && !ty.is_float() => Some((*op, *ty, *c)),
        _ => None,
    }
}

/// `op` of `v` and `c` in `ty`'s width, as the bits `constprop::compare` reads (`None` for an
/// operation not evaluated here, or a division by zero or shift past the width).
fn apply_step(op: Arith, ty: Type, v: i64, c: i64) -> Option<i64> {
    let bits = ty.bits();
    if bits < 16 {
        return None;
    }
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (u, cu) = (v as u64 & mask, c as u64 & mask);
    // The value as a signed number of the width.
    let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
    let r = match op {
        Arith::Add => u.wrapping_add(cu),
        Arith::Sub => u.wrapping_sub(cu),
        Arith::Mul => u.wrapping_mul(cu),
        Arith::And => u & cu,
        Arith::Or => u | cu,
        Arith::Xor => u ^ cu,
        Arith::Shl if cu < bits as u64 => u << cu,
        Arith::Shr if cu < bits as u64 => {
            if ty.is_signed() {
                (signed(u) >> cu) as u64
            } else {
                u >> cu
            }
        }
        Arith::Div if cu != 0 => {
            if ty.is_signed() {
                signed(u).checked_div(signed(cu))? as u64
            } else {
                u / cu
            }
        }
        _ => return None,
    };
    Some((r & mask) as i64)
}

/// The counter's value entering the loop: its last write on the one path to `pre` (through
/// blocks with one predecessor), a `mov` of an immediate.
fn start(func: &Func, cfg: &Cfg, pre: usize, counter: Reg) -> Option<i64> {
    let mut b = pre;
    for _ in 0..8 {
        if let Some(i) = func.blocks[b].insts.iter().rev().find(|i| i.defs().contains(&counter)) {
            return match (&i.kind, i.guard) {
                (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) => match args[..] {
                    [_, Arg::Imm(Imm::Int(c))] => Some(c),
                    _ => None,
                },
                _ => None,
            };
        }
        match cfg.preds[b][..] {
            [p] => b = p,
            _ => return None,
        }
    }
    None
}

/// The registers written once in the loop, unguarded, that each copy may have its own of: read
/// only where their write dominates the read, and not after the loop.
fn renamable(func: &Func, cfg: &Cfg, l: &Loop, body: &[usize], single: &super::hoist::DefSites) -> HashSet<Reg> {
    let mut out: HashSet<Reg> = body.iter().flat_map(|&b| func.blocks[b].insts.iter().flat_map(|i| i.defs())).filter(|r| single.get(r).is_some_and(|&(b, i)| l.contains(b) && func.blocks[b].insts[i].guard.is_none())).collect();
    let dominated = |r: Reg, b: usize, i: usize| single.get(&r).is_some_and(|&(db, di)| if db == b { di < i } else { cfg.dominates(db, b) });
    for (b, block) in func.blocks.iter().enumerate() {
        let inside = l.contains(b);
        let end = block.insts.len();
        let reads = block.insts.iter().enumerate().flat_map(|(i, inst)| inst.uses().into_iter().map(move |r| (r, i)));
        let term_read = match block.term {
            Term::Branch { pred, .. } => Some((pred, end)),
            _ => None,
        };
        for (r, i) in reads.chain(term_read) {
            if out.contains(&r) && (!inside || !dominated(r, b, i)) {
                out.remove(&r);
            }
        }
    }
    out
}

fn apply(func: &mut Func, plan: Plan) {
    let Plan { body, header, counter, step, exit_block, out, stay, values, after_step, temps } = plan;
    let trips = values.len() - 1;
    let original: Vec<(Vec<Inst>, Term, Option<super::loc::Loc>)> = body.iter().map(|&b| (func.blocks[b].insts.clone(), func.blocks[b].term.clone(), func.blocks[b].term_loc)).collect();
    // Each trip's copy of each block: the originals are the first trip's.
    let mut ids: Vec<HashMap<usize, usize>> = vec![body.iter().map(|&b| (b, b)).collect()];
    for _ in 1..trips {
        let mut map = HashMap::default();
        for &b in &body {
            map.insert(b, func.blocks.len());
            func.blocks.push(Block { insts: Vec::new(), term: Term::Ret, term_loc: None });
        }
        ids.push(map);
    }
    let class = func.class(counter);
    let counter_ty = match class {
        super::RegClass::B16 => Type::B16,
        super::RegClass::B32 => Type::B32,
        _ => Type::B64,
    };
    let mov = |d: Reg, v: i64| Inst::op(Opcode::Mov(counter_ty), 1, vec![Arg::Reg(d), Arg::imm(v)]);
    for (t, map) in ids.iter().enumerate() {
        let leaves = t + 1 == trips;
        let (before, after) = (func.fresh(class), func.fresh(class));
        let mut renamed: HashMap<Reg, Reg> = HashMap::default();
        if t > 0 {
            for &r in &temps {
                renamed.insert(r, func.fresh(func.class(r)));
            }
        }
        let mut reads_before = renamed.clone();
        reads_before.insert(counter, before);
        let mut reads_after = renamed.clone();
        reads_after.insert(counter, after);
        for (&b, (insts, term, term_loc)) in body.iter().zip(&original) {
            let mut new: Vec<Inst> = Vec::with_capacity(insts.len() + 2);
            if b == header {
                new.push(mov(before, values[t]).at(insts.first().and_then(|i| i.loc).or(*term_loc)));
            }
            let mut stepped = false;
            for (i, inst) in insts.iter().enumerate() {
                if (b, i) == step {
                    new.push(mov(after, values[t + 1]).at(inst.loc));
                    new.push(mov(counter, values[t + 1]).at(inst.loc));
                    stepped = true;
                    continue;
                }
                let mut inst = inst.clone();
                inst.rename_defs(&renamed);
                let later = stepped || after_step.contains(&b);
                inst.rename_uses(if later { &reads_after } else { &reads_before });
                new.push(inst);
            }
            let next_header = ids.get(t + 1).map(|m| BlockId(m[&header] as u32)).unwrap_or(out);
            let target = |s: BlockId| -> BlockId {
                let s_us = s.0 as usize;
                if s_us == header {
                    next_header
                } else if let Some(&c) = map.get(&s_us) {
                    BlockId(c as u32)
                } else {
                    s
                }
            };
            let term = if b == exit_block {
                Term::Jump(if leaves { out } else { target(stay) })
            } else {
                match term {
                    Term::Jump(s) => Term::Jump(target(*s)),
                    Term::Branch { pred, negate, if_true, if_false } => Term::Branch { pred: *renamed.get(pred).unwrap_or(pred), negate: *negate, if_true: target(*if_true), if_false: target(*if_false) },
                    other => other.clone(),
                }
            };
            let block = &mut func.blocks[map[&b]];
            block.insts = new;
            block.term = term;
            block.term_loc = *term_loc;
        }
    }
    let body_ids: Vec<BlockId> = body.iter().map(|&b| BlockId(b as u32)).collect();
    func.entry_facts.retain(|f| !body_ids.contains(&f.block));
    func.for_loops.retain(|f| !body_ids.contains(&f.next));
    let copies: Vec<usize> = ids.iter().flat_map(|m| m.values().copied()).collect();
    merge_chains(func, &copies);
    // What the trip that leaves does not reach (the blocks after its exit) goes.
    let reachable = func.reachable();
    for b in copies {
        if !reachable[b] {
            func.blocks[b].insts.clear();
            func.blocks[b].term = Term::Ret;
        }
    }
}

/// A jump to a block whose only predecessor it is joins the two, among `blocks`: a trip's
/// copies become one straight block where the loop's body has no branch.
fn merge_chains(func: &mut Func, blocks: &[usize]) {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for s in block.term.successors() {
            preds[s.0 as usize].push(b);
        }
    }
    let set: HashSet<usize> = blocks.iter().copied().collect();
    loop {
        let Some((a, b)) = blocks.iter().copied().find_map(|a| match func.blocks[a].term {
            Term::Jump(t) if set.contains(&(t.0 as usize)) && t.0 as usize != a && preds[t.0 as usize] == [a] => Some((a, t.0 as usize)),
            _ => None,
        }) else {
            return;
        };
        let taken = std::mem::take(&mut func.blocks[b].insts);
        let term = std::mem::replace(&mut func.blocks[b].term, Term::Ret);
        preds[b].clear();
        for s in term.successors() {
            for p in preds[s.0 as usize].iter_mut().filter(|p| **p == b) {
                *p = a;
            }
        }
        let term_loc = func.blocks[b].term_loc;
        let block = &mut func.blocks[a];
        block.insts.extend(taken);
        block.term = term;
        block.term_loc = term_loc;
    }
}
