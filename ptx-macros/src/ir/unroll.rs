//! A short `for k in start..end` loop unrolled by 4 where that lets [`super::vectorize`] read
//! four adjacent shared words at once: the tiled matmul's `ta[ty * TILE + k]` becomes one
//! `ld.shared.v4.f32` per four steps, as nvcc's `LDS.128`. `TILE` is a module-level `const`:
//! ptxas knows its value, the macro does not, so the unrolled loop is a second version of the
//! loop, entered under a guard that ptxas folds at once, and the original stays for the other
//! case.
//!
//! ```text
//! pre:   ... (the loop's zero-trip test)           pre:  ...
//! head:  body(k); k += 1; k < end ? head : exit    D:    G ? F : head
//!                                                  head: body(k); k += 1; k < end ? head : exit
//!                                                  F:    body(k); body(k+1); body(k+2); body(k+3);
//!                                                        k += 4; k < end ? F : exit
//! ```
//!
//! `G` holds when `(end - start) % 4 == 0`, when the checks left in the loop are decided not to
//! fail, and when the alignment the vector loads need holds (`TILE % 4 == 0`). Each part of `G`
//! is decided here (immediates), or a number rustc computes ([`super::folded`]), or a `setp` of
//! immediates and pieces: ptxas folds those before it unrolls, and keeps one version. The pass
//! applies only where a load was combined.
//!
//! When (see docs/performance.md, "Vector shared loads", for the argument):
//! - the loop is a `for` loop over a range counting up by one (`Func::entry_facts` names its
//!   counter at the header, `Func::for_loops` its latch), holding no other loop, entered from
//!   one block; its start and end are immediates or pieces (through moves and widenings);
//! - its blocks form one chain from the header to the latch, whose only other exits are checks
//!   that branch to a failure block on `x && q` (or `q`) with `q` written before the loop by a
//!   `setp` of immediates and pieces: `hoist` leaves the checks it moved before the loop that way, failing
//!   only where the test before the loop could not decide. Under `!q` they cannot fail, so `F`
//!   leaves them out and is straight-line code;
//! - no call, inline assembly or other text in it; at most [`MAX_INSTS`] instructions; the
//!   registers it writes once are read nowhere outside it, nor in it before their write.
//!
//! Exact whatever `end` is: the header is entered only with `start < end` (the entry fact), so
//! under `G` the loop makes a positive multiple of 4 trips; `F` does them 4 at a time, reading
//! the counter of each as `k + j`, the same values in the same order.

use super::dom::Cfg;
use super::hoist::{failure, single_defs};
use super::vectorize::{self, Known};
use super::folded;
use super::{Arg, Arith, Block, BlockId, Cmp, Func, Imm, Inst, InstKind, Opcode, Reg, RegClass, Sym, Term, Type};
use super::fast_hash::HashMap;

/// How many instructions a loop body may have to be unrolled.
const MAX_INSTS: usize = 48;

/// How many trips one trip of the unrolled loop does.
const FACTOR: i64 = 4;

pub fn run(func: &mut Func) {
    let facts: Vec<_> = func.entry_facts.iter().filter(|f| f.up_by_one).map(|f| (f.block.0 as usize, f.reg, f.ty, f.bound.clone())).collect();
    for (header, counter, ty, end) in facts {
        let saved = func.regs.len();
        if !unroll(func, header, counter, ty, &end) {
            func.regs.truncate(saved);
        }
    }
}

fn unroll(func: &mut Func, header: usize, counter: Reg, ty: Type, end: &Arg) -> bool {
    if ty.is_float() || ty.bits() < 32 {
        return false;
    }
    let cfg = Cfg::new(func);
    let loops = cfg.loops();
    let Some(l) = loops.iter().find(|l| l.header == header) else { return false };
    if loops.iter().any(|o| o.header != header && l.contains(o.header)) {
        return false;
    }
    let [pre] = l.entries(&cfg)[..] else { return false };
    let [latch] = l.latches[..] else { return false };
    if !func.for_loops.iter().any(|f| f.next.0 as usize == latch) {
        return false;
    }
    let (_, single) = single_defs(func);
    // The counter's first value: its last write before the loop, in `pre` or the blocks that
    // lead only to it (`hoist` splits the block before the loop).
    let mut start = None;
    let mut b = pre;
    for _ in 0..4 {
        if let Some(i) = func.blocks[b].insts.iter().rev().find(|i| i.defs().contains(&counter)) {
            start = match (&i.kind, i.guard) {
                (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) if args.len() == 2 => Some(args[1].clone()),
                _ => None,
            };
            break;
        }
        match cfg.preds[b][..] {
            [p] => b = p,
            _ => break,
        }
    }
    let (Some(start), Some(end)) = (start.and_then(|s| folded::resolve(func, &s, &single)), folded::resolve(func, end, &single)) else { return false };
    // The chain of blocks, and the invariant conditions of the checks in it.
    let mut chain = vec![header];
    let mut conds: Vec<Reg> = Vec::new();
    loop {
        let b = *chain.last().unwrap_or(&header);
        let block = &func.blocks[b];
        if block.insts.iter().any(|i| !matches!(i.kind, InstKind::Op { .. })) {
            return false;
        }
        if b == latch {
            break;
        }
        let next = match block.term {
            Term::Jump(n) => n.0 as usize,
            Term::Branch { pred, negate: false, if_true, if_false } if failure(func, if_true.0 as usize) && l.contains(if_false.0 as usize) => {
                let Some(q) = invariant_condition(func, l, pred, &single) else { return false };
                conds.push(q);
                if_false.0 as usize
            }
            _ => return false,
        };
        if !l.contains(next) || chain.contains(&next) {
            return false;
        }
        chain.push(next);
    }
    if chain.len() != l.body.iter().filter(|&&x| x).count() {
        return false;
    }
    // The latch ends `add k, k, 1; setp.lt p, k, end; @p bra header`.
    let Term::Branch { pred: again, negate: false, if_true, if_false: exit } = func.blocks[latch].term else { return false };
    if if_true.0 as usize != header {
        return false;
    }
    let tail = &func.blocks[latch].insts;
    let n = tail.len();
    if n < 2 {
        return false;
    }
    let test_ok = matches!(&tail[n - 1].kind, InstKind::Op { opcode: Opcode::Setp(Cmp::Lt, t), args, .. }
        if *t == ty && matches!(args[..], [Arg::Reg(p), Arg::Reg(k), _] if p == again && k == counter));
    // The step: `add k, k, 1`, or `add t, k, 1; mov k, t` (moves are coalesced later).
    let adds_one = |i: &Inst, d: Reg| {
        i.guard.is_none()
            && matches!(&i.kind, InstKind::Op { opcode: Opcode::Arith(Arith::Add, _, t), args, .. }
                if t.bits() == ty.bits() && !t.is_float() && matches!(args[..], [Arg::Reg(a), Arg::Reg(b), Arg::Imm(Imm::Int(1))] if a == d && b == counter))
    };
    let step = if adds_one(&tail[n - 2], counter) {
        1
    } else if let (true, InstKind::Op { opcode: Opcode::Mov(_), args, .. }) = (n >= 3 && tail[n - 2].guard.is_none(), &tail[n - 2].kind) {
        match args[..] {
            [Arg::Reg(k), Arg::Reg(t)] if k == counter && adds_one(&tail[n - 3], t) => 2,
            _ => 0,
        }
    } else {
        0
    };
    if !test_ok || step == 0 || tail[n - 1].guard.is_some() {
        return false;
    }
    let test = tail[n - 1].clone();
    let body: Vec<Inst> = chain.iter().flat_map(|&b| func.blocks[b].insts.iter().cloned()).collect();
    let body = &body[..body.len() - 1 - step];
    if body.len() > MAX_INSTS || body.iter().any(|i| i.defs().contains(&counter)) {
        return false;
    }
    // Registers written once in the loop are renamed in each copy; none may be read outside,
    // or in the loop before it is written (a value from the trip before).
    let temps: Vec<Reg> = body.iter().flat_map(|i| i.defs()).filter(|r| single.contains_key(r)).collect();
    let mut written: Vec<Reg> = Vec::new();
    for inst in body {
        if inst.uses().iter().any(|r| temps.contains(r) && !written.contains(r)) {
            return false;
        }
        written.extend(inst.defs());
    }
    for (b, block) in func.blocks.iter().enumerate() {
        if l.contains(b) {
            continue;
        }
        if block.insts.iter().flat_map(|i| i.uses()).any(|r| temps.contains(&r)) || matches!(block.term, Term::Branch { pred, .. } if temps.contains(&pred)) {
            return false;
        }
    }

    // The unrolled block.
    let class = func.class(counter);
    let mut insts: Vec<Inst> = Vec::new();
    for j in 0..FACTOR {
        let mut map: HashMap<Reg, Reg> = HashMap::default();
        if j > 0 {
            let kj = func.fresh(class);
            insts.push(Inst::op(Opcode::arith(Arith::Add, Type::s(ty.bits())), 1, vec![Arg::Reg(kj), Arg::Reg(counter), Arg::imm(j)]).at(test.loc));
            map.insert(counter, kj);
        }
        for inst in body {
            let mut new = inst.clone();
            for r in new.defs() {
                if temps.contains(&r) {
                    let f = func.fresh(func.class(r));
                    map.insert(r, f);
                }
            }
            rename(&mut new, &map);
            insts.push(new);
        }
    }
    insts.push(Inst::op(Opcode::arith(Arith::Add, Type::s(ty.bits())), 1, vec![Arg::Reg(counter), Arg::Reg(counter), Arg::imm(FACTOR)]).at(test.loc));
    let again4 = func.fresh(RegClass::Pred);
    let mut test4 = test.clone();
    if let InstKind::Op { args, .. } = &mut test4.kind {
        args[0] = Arg::Reg(again4);
    }
    insts.push(test4);
    let f = func.blocks.len();
    let term_loc = func.blocks[latch].term_loc;
    func.blocks.push(Block { insts, term: Term::Branch { pred: again4, negate: false, if_true: BlockId(f as u32), if_false: exit }, term_loc });

    let mut known = Known { aligned: HashMap::default() };
    // In `F` the counter is `start` plus a multiple of 4: as aligned as `start`, up to 4 (a
    // piece start is demanded a multiple of 4 below).
    let start_bits = match start {
        Arg::Imm(Imm::Int(s)) => s.trailing_zeros().min(2),
        _ => 2,
    };
    known.aligned.insert(counter, start_bits);
    let demands = match vectorize::run(func, f, &known) {
        Some(d) => d,
        _ => {
            func.blocks.pop();
            return false;
        }
    };
    // A piece start: its alignment is one more demand. (An immediate start is known above.)
    let mut demands = demands;
    if !matches!(start, Arg::Imm(_)) {
        demands.push(vectorize::Demand { value: start.clone(), modulus: FACTOR as u32 });
    }

    // The dispatch: `G ? F : header`, each part of `G` a test of constants that rustc
    // evaluates ([`folded`]) or a `setp` of constants, so that ptxas folds it at once.
    let mut tests = vec![(end.clone(), start.clone(), FACTOR as u64)];
    for dm in &demands {
        let Some(v) = folded::resolve(func, &dm.value, &single) else {
            func.blocks.pop();
            return false;
        };
        tests.push((v, Arg::imm(0), dm.modulus as u64));
    }
    let mut d: Vec<Inst> = Vec::new();
    let mut g: Option<Reg> = None;
    for (a, b, m) in tests {
        match folded::multiple_of_difference(&a, &b, m) {
            Ok(true) => {}
            Ok(false) => {
                func.blocks.pop();
                return false;
            }
            Err(piece) => {
                let p = func.fresh(RegClass::Pred);
                d.push(Inst::op(Opcode::Setp(Cmp::Ne, Type::U32), 1, vec![Arg::Reg(p), piece, Arg::imm(0)]));
                g = Some(and(func, &mut d, g, p, false));
            }
        }
    }
    for q in conds {
        g = Some(and(func, &mut d, g, q, true));
    }
    let dispatch = func.blocks.len();
    let loc = func.blocks[pre].term_loc;
    // Nothing to test: the loop is always the unrolled one.
    let term = match g {
        Some(g) => Term::Branch { pred: g, negate: false, if_true: BlockId(f as u32), if_false: BlockId(header as u32) },
        None => Term::Jump(BlockId(f as u32)),
    };
    func.blocks.push(Block { insts: d.into_iter().map(|i| i.at(loc)).collect(), term, term_loc: loc });
    match &mut func.blocks[pre].term {
        Term::Jump(t) if t.0 as usize == header => *t = BlockId(dispatch as u32),
        Term::Branch { if_true, if_false, .. } => {
            for t in [if_true, if_false] {
                if t.0 as usize == header {
                    *t = BlockId(dispatch as u32);
                }
            }
        }
        _ => {}
    }
    true
}

/// The condition `q` of a check's predicate `x && q` (or `q` itself), when `q` is written
/// before the loop and is a constant to ptxas.
fn invariant_condition(func: &Func, l: &super::dom::Loop, pred: Reg, single: &super::hoist::DefSites) -> Option<Reg> {
    let outside = |r: Reg| single.get(&r).is_some_and(|&(b, i)| !l.contains(b) && constant_setp(&func.blocks[b].insts[i]));
    if outside(pred) {
        return Some(pred);
    }
    let &(b, i) = single.get(&pred)?;
    let inst = &func.blocks[b].insts[i];
    let InstKind::Op { opcode: Opcode::Arith(Arith::And, _, Type::Pred), args, .. } = &inst.kind else { return None };
    if inst.guard.is_some() {
        return None;
    }
    args[1..].iter().find_map(|a| match a {
        Arg::Reg(r) if outside(*r) => Some(*r),
        _ => None,
    })
}

/// A `setp` of immediates and pieces, unpredicated: ptxas folds it before it unrolls.
fn constant_setp(inst: &Inst) -> bool {
    inst.guard.is_none() && matches!(&inst.kind, InstKind::Op { opcode: Opcode::Setp(..), args, .. } if args[1..].iter().all(|a| matches!(a, Arg::Imm(_) | Arg::Sym(Sym::Piece(_)))))
}

fn rename(inst: &mut Inst, map: &HashMap<Reg, Reg>) {
    let swap = |r: &mut Reg| {
        if let Some(n) = map.get(r) {
            *r = *n;
        }
    };
    if let Some((g, _)) = &mut inst.guard {
        swap(g);
    }
    if let InstKind::Op { args, .. } = &mut inst.kind {
        for a in args.iter_mut() {
            rename_arg(a, &swap);
        }
    }
}

fn rename_arg(a: &mut Arg, swap: &dyn Fn(&mut Reg)) {
    match a {
        Arg::Reg(r) => swap(r),
        Arg::Mem { base, .. } => rename_arg(base, swap),
        Arg::Vec(v) | Arg::Index(v) => v.iter_mut().for_each(|a| rename_arg(a, swap)),
        Arg::Imm(_) | Arg::Sym(_) => {}
    }
}

/// `a && b` (`a && !b` when `negate`; `b` alone without `a`).
fn and(func: &mut Func, out: &mut Vec<Inst>, a: Option<Reg>, b: Reg, negate: bool) -> Reg {
    let b = if negate {
        let n = func.fresh(RegClass::Pred);
        out.push(Inst::op(Opcode::arith(Arith::Not, Type::Pred), 1, vec![Arg::Reg(n), Arg::Reg(b)]));
        n
    } else {
        b
    };
    let Some(a) = a else { return b };
    let o = func.fresh(RegClass::Pred);
    out.push(Inst::op(Opcode::arith(Arith::And, Type::Pred), 1, vec![Arg::Reg(o), Arg::Reg(a), Arg::Reg(b)]));
    o
}


