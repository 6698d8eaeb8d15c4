//! Loop versioning: a loop whose every remaining bounds check can be decided before it gets a
//! copy without the checks, and one test before the loop picks the copy. The tiled matmul's
//! tile loop reads `a[row * n + ac]` under `if row < n && ac < n` and `b[br * n + col]` under
//! `if br < n && col < n`, and stores into two shared tiles whose checks (and the inner
//! loop's) `hoist` decided once before the loop but must still report after the loads'
//! (Rust's order): five branches to the failure call in every trip, so ptxas could neither
//! predicate the loads nor schedule the trip as one block. No check is ever hoisted past
//! another: where the test fails, the checks run as they would in the loop, so what a failing
//! launch reports (message, line) is exactly Rust's.
//!
//! Where the test fails, the loop with its checks runs as it was, or, where that is exact, a
//! replay of only its checks (see [`replay`]) runs first and then the copy without them: the
//! replay keeps what the loop's branches and its failures read, and the barriers, and drops the
//! loads, the stores and the work on loaded values; it is exact when what it keeps is
//! arithmetic on registers. The kernel then holds the loop once (the matmul: 250 → 208 SASS
//! instructions on sm_80, 279 → 231 on sm_90). A replay with barriers is decided for the whole
//! block (`bar.red.and`, at a point every thread that enters the loop reaches, see
//! [`block_decision`]), one without for each warp (`vote.sync.all`).
//!
//! The test is a sufficient condition, made of values the loop does not write: for a check
//! that fails when `x >= len`, `upper(x) < len`, where `upper(x)` is at least every value `x`
//! takes where the check runs:
//! - a value the loop does not write is its own bound;
//! - a register tested `x < B` by a branch that every path to the check takes (the `if`
//!   around the access) is at most `B - 1` there, a `for` loop's counter below its end
//!   (`Func::entry_facts`) at most `end - 1` (where `B` is 0 the check never runs, so the
//!   bound need not hold);
//! - `a + b`, `a * b` and `a << s` of unsigned values grow with their operands: bounded by the
//!   same operation on the operands' bounds, computed before the loop with a test that it did
//!   not wrap (left out where `ir::range` proves it cannot);
//! - a check whose predicate the loop does not write (a check `hoist` moved out of an inner
//!   loop) holds when the predicate says so; `and`/`or`/`not` of predicates combine their
//!   operands' conditions, and a predicate that is a constant needs none.
//!
//! Only registers written once, in the loop but not in a loop inside it, are bounded by the
//! branches they are tested by (their value at the check is the one tested), and the loop is
//! copied only when every check in it has a condition, one of them runs only on some trips (under
//! an `if`: checks on every trip are `hoist`'s and `fold`'s, which copy nothing), it is entered
//! from one block, and it holds no inline PTX or call (whose labels and scopes a copy would
//! repeat).
//!
//! This runs after the other passes (before `rotate`): the copy shares the original's
//! registers, so a register the loop writes once is written twice after it;
//! `Func::for_loops` and `Func::entry_facts` describe the copy's loops as they do the
//! original's.

use super::dom::{Cfg, Loop};
use super::hoist::{failure, single_defs, DefSites};
use super::range::Ranges;
use super::{Arg, Arith, BarRed, Block, BlockId, Cmp, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Sym, Term, Type, Vote};
use super::fast_hash::HashMap;

/// How deep a predicate or an index is followed.
const DEPTH: u32 = 10;

/// Loops larger than this many instructions are not copied.
const MAX_COPIED: usize = 400;

pub fn run(func: &mut Func) {
    if !(0..func.blocks.len()).any(|b| failure(func, b)) {
        return;
    }
    let mut tried: Vec<usize> = Vec::new();
    // Block sets of the loops copied so far (originals and copies): loops inside them stay.
    let mut covered: Vec<Vec<bool>> = Vec::new();
    // The graph changes only where a loop is copied: computed again then.
    let mut cfg = Cfg::new(func);
    let mut loops = cfg.loops();
    loop {
        let inside = |b: usize| covered.iter().any(|c| c.get(b).copied().unwrap_or(false));
        // Outer loops first: versioning one copies the loops inside it.
        let Some(l) = loops
            .iter()
            .filter(|l| !tried.contains(&l.header) && !inside(l.header))
            .max_by_key(|l| l.body.iter().filter(|&&x| x).count())
        else {
            return;
        };
        tried.push(l.header);
        if let Some(copy) = version(func, &cfg, &loops, l) {
            let mut set = l.body.clone();
            set.resize(func.blocks.len(), false);
            for b in copy {
                set[b] = true;
            }
            covered.push(set);
            cfg = Cfg::new(func);
            loops = cfg.loops();
        }
    }
}

/// Copies `l` without its checks behind a test; the copy's blocks, or `None` where some check
/// has no condition.
fn version(func: &mut Func, cfg: &Cfg, loops: &[Loop], l: &Loop) -> Option<Vec<usize>> {
    let n = func.blocks.len();
    let body: Vec<usize> = (0..n).filter(|&b| l.contains(b)).collect();
    let size: usize = body.iter().map(|&b| func.blocks[b].insts.len()).sum();
    if size > MAX_COPIED {
        return None;
    }
    let plain = body.iter().flat_map(|&b| &func.blocks[b].insts).all(|i| matches!(i.kind, InstKind::Op { .. }));
    let [entry] = l.entries(cfg)[..] else { return None };
    if !plain || !matches!(func.blocks[entry].term, Term::Jump(_) | Term::Branch { .. }) {
        return None;
    }
    // Each check: its block, its predicate, the successor it continues at, and the predicate's
    // value that fails. Found first: most loops have no check left under a condition, and
    // the analysis below costs a pass over the function.
    let mut found = Vec::new();
    for &b in &body {
        let Term::Branch { pred, negate, if_true, if_false } = func.blocks[b].term else { continue };
        if doomed(func, l, if_true.0 as usize, 0) {
            found.push((b, pred, if_false, !negate));
        } else if doomed(func, l, if_false.0 as usize, 0) {
            found.push((b, pred, if_true, negate));
        }
    }
    // Some check runs only on some trips (under an `if`): what keeps ptxas from predicating the
    // trip. Checks on every trip are `hoist`'s and `fold`'s, which copy nothing.
    let under_if = |b: usize| l.latches.iter().any(|&x| !cfg.dominates(b, x));
    if !found.iter().any(|c| under_if(c.0)) {
        return None;
    }
    let mut written = vec![false; func.regs.len()];
    for &b in &body {
        for r in func.blocks[b].insts.iter().flat_map(|i| i.defs()) {
            written[r.0 as usize] = true;
        }
    }
    let (_, site) = single_defs(func);
    let ranges = Ranges::compute(func);
    let inner: Vec<&Loop> = loops.iter().filter(|o| o.header != l.header && l.contains(o.header)).collect();
    let mut d = Derive { func, cfg, loops, l, inner, written, site, ranges, new_regs: Vec::new(), out: Vec::new(), facts: Vec::new() };
    let mut checks: Vec<(usize, BlockId)> = Vec::new();
    let mut conds: Vec<Reg> = Vec::new();
    let mut conditional = false;
    for (b, pred, pass, fails_when) in found {
        d.facts = d.path_facts(b);
        match d.never(pred, fails_when, (b, d.func.blocks[b].insts.len()), 0)? {
            Cond::Always => {}
            Cond::When(r) => {
                conds.push(r);
                conditional |= under_if(b);
            }
        }
        checks.push((b, pass));
    }
    if conds.is_empty() || !conditional {
        return None;
    }
    // Emit: the test, in a block of its own between the entry and the loop.
    let inner: Vec<usize> = d.inner.iter().map(|o| o.header).collect();
    let Derive { new_regs, mut out, .. } = d;
    func.regs.extend(new_regs);
    let mut all = conds[0];
    for &c in &conds[1..] {
        let r = func.fresh(RegClass::Pred);
        out.push(Inst::op(Opcode::arith(Arith::And, Type::Pred), 1, vec![Arg::Reg(r), Arg::Reg(all), Arg::Reg(c)]));
        all = r;
    }
    // One copy per warp: the threads of a warp must not split between the copies, whose
    // barriers are different instructions (`bar.sync` is aligned: a warp's threads reach the
    // same one) and whose warp-wide operations would see half a warp. A warp with a thread
    // that might fail runs the replay of the checks (or the checked loop), which is exact for
    // every thread. A replay with barriers is decided for the block instead, below.
    let every = all;
    let mask = func.fresh(RegClass::B32);
    out.push(Inst::op(Opcode::Activemask, 1, vec![Arg::Reg(mask)]));
    let warp = func.fresh(RegClass::Pred);
    out.push(Inst::op(Opcode::Vote(Vote::All, Type::Pred), 1, vec![Arg::Reg(warp), Arg::Reg(all), Arg::Reg(mask)]));
    let all = warp;
    let loc = func.blocks[l.header].insts.first().and_then(|i| i.loc).or(func.blocks[l.header].term_loc);
    for i in &mut out {
        i.loc = loc;
    }
    let map: HashMap<usize, usize> = body.iter().enumerate().map(|(k, &b)| (b, n + k)).collect();
    let remap = |t: BlockId| BlockId(map.get(&(t.0 as usize)).copied().unwrap_or(t.0 as usize) as u32);
    for &b in &body {
        let old = &func.blocks[b];
        let term = match old.term.clone() {
            Term::Jump(t) => Term::Jump(remap(t)),
            Term::Branch { pred, negate, if_true, if_false } => match checks.iter().find(|c| c.0 == b) {
                Some(&(_, pass)) => Term::Jump(remap(pass)),
                None => Term::Branch { pred, negate, if_true: remap(if_true), if_false: remap(if_false) },
            },
            t => t,
        };
        let copy = Block { insts: old.insts.clone(), term, term_loc: old.term_loc };
        func.blocks.push(copy);
    }
    // The copy's `for` loops count as the original's do: the same facts at its headers, the
    // same advances (`ir::trips` bounds a counter the two loops share on both, so that
    // `ir::narrow_reg` counts the matmul's tile counter in 32 bits).
    let facts: Vec<super::EntryFact> = func.entry_facts.iter().filter(|f| map.contains_key(&(f.block.0 as usize))).map(|f| super::EntryFact { block: remap(f.block), bound: f.bound.clone(), ..*f }).collect();
    let fors: Vec<super::ForLoop> = func.for_loops.iter().filter(|f| map.contains_key(&(f.next.0 as usize))).map(|f| super::ForLoop { next: remap(f.next), exit: remap(f.exit) }).collect();
    func.entry_facts.extend(facts);
    func.for_loops.extend(fors);
    let header = BlockId(l.header as u32);
    // A replay with barriers is run by the whole block or none of it, decided once its first
    // trip is certain (see `replay`).
    let barriers = body.iter().flat_map(|&b| &func.blocks[b].insts).any(|i| matches!(i.kind, InstKind::Op { opcode: Opcode::BarSync, .. }));
    let decision = if barriers { block_decision(func, cfg, l) } else { None };
    let replayed = if barriers && decision.is_none() { None } else { replay(func, l, &body, n..n + body.len(), remap(header)) };
    let slow = match replayed {
        Some(replay) => replay,
        None => {
            // The checked copy runs only where a check may fail: its inner loops are not
            // unrolled (ptxas unrolls the unchecked copy's), which keeps the kernel from
            // growing by two.
            for h in inner {
                let mut pragma = crate::text::Text::new();
                pragma.str(".pragma \"nounroll\";\n");
                func.blocks[h].insts.insert(0, Inst { guard: None, kind: InstKind::Raw(pragma), loc: None });
            }
            header
        }
    };
    let test = BlockId(func.blocks.len() as u32);
    match (replayed, decision) {
        (Some(_), Some(first)) => {
            // `bar.red.and` of every thread's test (after the header's, where it has one).
            out.truncate(out.len() - 2);
            let block = func.fresh(RegClass::Pred);
            let vote = Inst::op(Opcode::BarRed(BarRed::And, Type::Pred), 1, vec![Arg::Reg(block), Arg::imm(0), Arg::Reg(every)]).at(loc);
            let term = Term::Branch { pred: block, negate: false, if_true: remap(header), if_false: slow };
            match first {
                Some((header_insts, pred, negate, enter, exit)) => {
                    out.extend(header_insts);
                    let decide = BlockId(test.0 + 1);
                    let (if_true, if_false) = if enter { (decide, exit) } else { (exit, decide) };
                    func.blocks.push(Block { insts: out, term: Term::Branch { pred, negate, if_true, if_false }, term_loc: loc });
                    func.blocks.push(Block { insts: vec![vote], term, term_loc: loc });
                }
                None => {
                    out.push(vote);
                    func.blocks.push(Block { insts: out, term, term_loc: loc });
                }
            }
        }
        _ => {
            let term = Term::Branch { pred: all, negate: false, if_true: remap(header), if_false: slow };
            func.blocks.push(Block { insts: out, term, term_loc: loc });
        }
    }
    match &mut func.blocks[entry].term {
        Term::Jump(t) => *t = test,
        Term::Branch { if_true, if_false, .. } => {
            for t in [if_true, if_false] {
                if *t == header {
                    *t = test;
                }
            }
        }
        _ => {}
    }
    Some((n..n + body.len()).collect())
}

/// The checked loop made a replay of its checks, where that is exact: the instructions its
/// branches (its checks, the `if`s around them, its own tests) and the failures it reaches
/// depend on are kept, and its barriers, the rest (loads, stores, arithmetic on the loaded values)
/// removed; where it would leave the loop other than by failing (its end, a `break`, a
/// `return`), it goes to the unchecked copy `fast`, which then runs from the start. A warp
/// whose test fails runs the replay first: a check that fails there fails in the trip and in
/// the order it would in the loop (the branches decide the same way, on the same values, and
/// the failure blocks read the values they would), and where none fails, the unchecked copy
/// is the loop. So the kernel holds the loop once, and a replay of a few instructions a trip,
/// where it held two copies of the loop.
///
/// Exact where every kept instruction is arithmetic on registers (no load: the loop's stores
/// may change what it reads; no `%clock`), and where the loop's barriers are `bar.sync`, kept
/// in place: a thread's checks between two barriers are the ones the loop makes there, so a
/// thread cannot fail a check past a barrier that another thread's failure before it would
/// have kept it from (the matmul's wide block: the first trip's tile store fails in one thread
/// while the others wait at the barrier). Otherwise `None`, and the checked loop stays as it
/// is. What the replay writes and was written before the loop (the counter) is saved before it
/// and restored after, for the copy. Returns the block that enters the replay.
fn replay(func: &mut Func, l: &Loop, body: &[usize], copied: std::ops::Range<usize>, fast: BlockId) -> Option<BlockId> {
    let inside = |b: usize| l.body.get(b).copied().unwrap_or(false);
    // What decides: the body's branches, and what the failure blocks they reach read.
    let decides = |term: &Term| match term {
        Term::Branch { pred, .. } => Some(*pred),
        _ => None,
    };
    let mut needed: super::fast_hash::HashSet<Reg> = Default::default();
    let mut chain: Vec<usize> = Vec::new();
    for &b in body {
        let term = &func.blocks[b].term;
        if !matches!(term, Term::Branch { .. } | Term::Jump(_) | Term::Ret | Term::Trap) {
            return None;
        }
        needed.extend(decides(term));
        for t in term.successors().into_iter().map(|t| t.0 as usize) {
            if !inside(t) && doomed(func, l, t, 0) && !chain.contains(&t) {
                chain.push(t);
            }
        }
    }
    let mut k = 0;
    while let Some(&c) = chain.get(k) {
        k += 1;
        if chain.len() > 64 {
            return None;
        }
        needed.extend(func.blocks[c].insts.iter().flat_map(|i| i.uses()));
        needed.extend(decides(&func.blocks[c].term));
        for t in func.blocks[c].term.successors().into_iter().map(|t| t.0 as usize) {
            if !chain.contains(&t) {
                chain.push(t);
            }
        }
    }
    // Kept: what writes a needed register, and what that reads, to a fixed point (the loop
    // carries values round).
    let mut keep: Vec<Vec<bool>> = body.iter().map(|&b| vec![false; func.blocks[b].insts.len()]).collect();
    loop {
        let mut changed = false;
        for (k, &b) in body.iter().enumerate() {
            for (i, inst) in func.blocks[b].insts.iter().enumerate().rev() {
                if !keep[k][i] && inst.defs().iter().any(|r| needed.contains(r)) {
                    keep[k][i] = true;
                    changed = true;
                    needed.extend(inst.uses());
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Barriers stay where they are: a thread's checks between two barriers are then the ones
    // the loop would make there, whatever the other threads do. Other block- or warp-wide
    // operations leave the loop as it is.
    for (k, &b) in body.iter().enumerate() {
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            match &inst.kind {
                InstKind::Op { opcode: Opcode::BarSync, .. } => keep[k][i] = true,
                InstKind::Op { opcode: Opcode::BarRed(..) | Opcode::BarWarpSync, .. } => return None,
                _ => {}
            }
        }
    }
    let replayable = |inst: &Inst| match &inst.kind {
        InstKind::Op { opcode: Opcode::BarSync, .. } => true,
        InstKind::Op { opcode, args, .. } => {
            opcode.is_pure()
                && !matches!(opcode, Opcode::Ld(_))
                && !args.iter().any(|a| {
                    matches!(a, Arg::Sym(Sym::Named(name)) if name.starts_with("%clock") || name.starts_with("%globaltimer"))
                })
        }
        _ => false,
    };
    let mut written: Vec<Reg> = Vec::new();
    for (k, &b) in body.iter().enumerate() {
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            if keep[k][i] {
                if !replayable(inst) {
                    return None;
                }
                for r in inst.defs() {
                    if !written.contains(&r) {
                        written.push(r);
                    }
                }
            }
        }
    }
    // Saved: what the replay writes that something before or after the loop writes too.
    let outside = |b: usize| !inside(b) && !copied.contains(&b);
    let saved: Vec<Reg> = written
        .into_iter()
        .filter(|r| {
            (0..func.blocks.len())
                .filter(|&b| outside(b))
                .any(|b| func.blocks[b].insts.iter().any(|i| i.defs().contains(r)))
        })
        .collect();
    let mov = |class: RegClass| {
        Opcode::Mov(match class {
            RegClass::Pred => Type::Pred,
            RegClass::B16 => Type::B16,
            RegClass::B32 => Type::B32,
            RegClass::B64 => Type::B64,
            RegClass::F32 => Type::F32,
            RegClass::F64 => Type::F64,
        })
    };
    let mut save = Vec::new();
    let mut restore = Vec::new();
    let cfg = super::dom::Cfg::new(func);
    let loops = cfg.loops();
    for &r in &saved {
        let class = func.regs[r.0 as usize];
        // A register set to one constant wherever it is set outside the loop (a `for` loop's
        // counter, `mov t, 0`) holds that constant when the replay starts: restored as the
        // constant, so that it keeps a range (`ir::narrow_reg` counts the matmul's tile
        // counter in 32 bits) where a copy of a copy had none.
        // The one write outside must dominate the loop and be in every loop around it (set
        // again on each trip of an enclosing loop, not once before it).
        let writes: Vec<(usize, &Inst)> = (0..func.blocks.len()).filter(|&b| outside(b)).flat_map(|b| func.blocks[b].insts.iter().filter(move |i| i.defs().contains(&r)).map(move |i| (b, i))).collect();
        let constant = match writes.as_slice() {
            [(b, Inst { guard: None, kind: InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, .. })] if cfg.dominates(*b, l.header) && loops.iter().filter(|o| o.header != l.header).all(|o| !o.contains(l.header) || o.contains(*b)) => match args[1] {
                Arg::Imm(Imm::Int(c)) => Some(c),
                _ => None,
            },
            _ => None,
        };
        if let Some(c) = constant {
            restore.push(Inst::op(mov(class), 1, vec![Arg::Reg(r), Arg::imm(c)]));
            continue;
        }
        let s = func.fresh(class);
        save.push(Inst::op(mov(class), 1, vec![Arg::Reg(s), Arg::Reg(r)]));
        restore.push(Inst::op(mov(class), 1, vec![Arg::Reg(r), Arg::Reg(s)]));
    }
    let loc = func.blocks[l.header].term_loc;
    let leave = BlockId(func.blocks.len() as u32);
    func.blocks.push(Block { insts: restore, term: Term::Jump(fast), term_loc: loc });
    let stays = |t: BlockId| inside(t.0 as usize) || chain.contains(&(t.0 as usize));
    for (k, &b) in body.iter().enumerate() {
        let block = &mut func.blocks[b];
        let mut i = 0;
        block.insts.retain(|_| {
            i += 1;
            keep[k][i - 1]
        });
        let to = |t: BlockId| if stays(t) { t } else { leave };
        block.term = match block.term.clone() {
            Term::Jump(t) => Term::Jump(to(t)),
            Term::Branch { pred, negate, if_true, if_false } => Term::Branch { pred, negate, if_true: to(if_true), if_false: to(if_false) },
            Term::Ret => Term::Jump(leave),
            t => t,
        };
    }
    let enter = BlockId(func.blocks.len() as u32);
    func.blocks.push(Block { insts: save, term: Term::Jump(BlockId(l.header as u32)), term_loc: loc });
    Some(enter)
}

/// Where a replay with barriers may decide for the whole block (`bar.red.and`, which every
/// thread must reach): where every thread that enters the loop reaches one of its barriers on
/// the first trip (or fails a check before), as the loop's own barriers need. That holds when a
/// block with a `bar.sync` comes before every way out of the loop but its header's test (one
/// that fails excepted); where the header tests, its test runs first, once more, so that a loop
/// that makes no trip adds no barrier either. `None` where that cannot be shown; else the
/// header's test to run first, if it has one: its instructions (arithmetic on registers), the
/// predicate, whether it is negated, whether the way taken when it holds enters the loop, and
/// the way out.
#[allow(clippy::type_complexity)]
fn block_decision(func: &Func, cfg: &Cfg, l: &Loop) -> Option<Option<(Vec<Inst>, Reg, bool, bool, BlockId)>> {
    let inside = |t: usize| l.body.get(t).copied().unwrap_or(false);
    let body: Vec<usize> = (0..l.body.len()).filter(|&b| inside(b)).collect();
    let h = &func.blocks[l.header];
    let test = match h.term {
        Term::Branch { pred, negate, if_true, if_false } => match (inside(if_true.0 as usize), inside(if_false.0 as usize)) {
            (true, false) => Some((pred, negate, true, if_false)),
            (false, true) => Some((pred, negate, false, if_true)),
            _ => None,
        },
        _ => None,
    };
    let exiting: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&b| !(test.is_some() && b == l.header))
        .filter(|&b| func.blocks[b].term.successors().iter().any(|t| !inside(t.0 as usize) && !doomed(func, l, t.0 as usize, 0)))
        .collect();
    let barrier = |b: usize| func.blocks[b].insts.iter().any(|i| matches!(i.kind, InstKind::Op { opcode: Opcode::BarSync, .. }));
    if !body.iter().any(|&b| barrier(b) && exiting.iter().all(|&x| cfg.dominates(b, x))) {
        return None;
    }
    let Some((pred, negate, enter, exit)) = test else { return Some(None) };
    let pure = |i: &Inst| i.guard.is_none() && matches!(&i.kind, InstKind::Op { opcode, .. } if opcode.is_pure() && !matches!(opcode, Opcode::Ld(_)));
    h.insts.iter().all(pure).then(|| Some((h.insts.clone(), pred, negate, enter, exit)))
}

/// A block outside the loop from which every path fails: a failure block, or the chain
/// `fold` and `combine` write to find which of several checks failed (branches to failure
/// blocks, ending in one).
fn doomed(func: &Func, l: &Loop, b: usize, depth: u32) -> bool {
    if l.body.get(b).copied().unwrap_or(false) || depth > DEPTH {
        return false;
    }
    failure(func, b)
        || match func.blocks[b].term {
            Term::Jump(t) => doomed(func, l, t.0 as usize, depth + 1),
            Term::Branch { if_true, if_false, .. } => doomed(func, l, if_true.0 as usize, depth + 1) && doomed(func, l, if_false.0 as usize, depth + 1),
            _ => false,
        }
}

/// What a check needs before the loop: nothing (it never fails), or a predicate.
enum Cond {
    Always,
    When(Reg),
}

/// `x < bound` (or `x <= bound` when `inclusive`) holds at the check, compared as unsigned
/// `bits`-bit integers, `bound` not written in the loop.
#[derive(Clone)]
struct Fact {
    x: Reg,
    bound: Arg,
    inclusive: bool,
    bits: u32,
}

struct Derive<'a> {
    func: &'a Func,
    cfg: &'a Cfg,
    loops: &'a [Loop],
    l: &'a Loop,
    inner: Vec<&'a Loop>,
    written: Vec<bool>,
    site: DefSites,
    ranges: Ranges,
    /// Registers made for the test (numbered after the function's).
    new_regs: Vec<RegClass>,
    /// The test's instructions.
    out: Vec<Inst>,
    /// The facts at the check being derived.
    facts: Vec<Fact>,
}

impl Derive<'_> {
    fn fresh(&mut self, class: RegClass) -> Reg {
        self.new_regs.push(class);
        Reg((self.func.regs.len() + self.new_regs.len() - 1) as u32)
    }

    fn emit(&mut self, class: RegClass, opcode: Opcode, src: Vec<Arg>) -> Reg {
        let r = self.fresh(class);
        let mut args = vec![Arg::Reg(r)];
        args.extend(src);
        self.out.push(Inst::op(opcode, 1, args));
        r
    }

    fn invariant(&self, a: &Arg) -> bool {
        match a {
            Arg::Reg(r) => !self.written[r.0 as usize],
            // An integer, or a constant that rustc evaluates (`TILE * TILE`).
            Arg::Imm(Imm::Int(_)) | Arg::Sym(Sym::Piece(_)) => true,
            _ => false,
        }
    }

    /// Inside a loop nested in this one.
    fn nested(&self, b: usize) -> bool {
        self.inner.iter().any(|o| o.contains(b))
    }

    /// Whether the instruction at `site` runs before the one at `at` on every path to it.
    fn before(&self, site: (usize, usize), at: (usize, usize)) -> bool {
        if site.0 == at.0 { site.1 < at.1 } else { self.cfg.dominates(site.0, at.0) }
    }

    /// The loop's register `x`, written once by an unguarded instruction that runs before `at`
    /// (so `at` reads what it wrote): where, and the instruction.
    fn def(&self, x: Reg, at: (usize, usize)) -> Option<((usize, usize), &Inst)> {
        let &site = self.site.get(&x)?;
        let inst = &self.func.blocks[site.0].insts[site.1];
        (self.l.contains(site.0) && self.before(site, at) && inst.guard.is_none()).then_some((site, inst))
    }

    /// The facts the branches on the way to `c` establish (from the loop's header down).
    fn path_facts(&self, c: usize) -> Vec<Fact> {
        let mut facts = Vec::new();
        let mut at = c;
        while at != self.l.header {
            let Some(d) = self.cfg.idom[at].filter(|&d| d != at) else { break };
            if self.cfg.preds[at] == [d] && !self.nested(d) {
                if let Term::Branch { pred, negate, if_true, if_false } = self.func.blocks[d].term {
                    if if_true != if_false {
                        self.collect(pred, (if_true.0 as usize == at) != negate, d, &mut facts, 0);
                    }
                }
            }
            at = d;
        }
        facts
    }

    /// The comparisons that `pred` having `value` at the end of block `d` establishes.
    fn collect(&self, pred: Reg, value: bool, d: usize, out: &mut Vec<Fact>, depth: u32) {
        if depth > DEPTH {
            return;
        }
        let Some(&(b, i)) = self.site.get(&pred) else { return };
        let inst = &self.func.blocks[b].insts[i];
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return };
        if inst.guard.is_some() {
            return;
        }
        let sub = |k: usize| match args.get(k) {
            Some(Arg::Reg(r)) => Some(*r),
            _ => None,
        };
        match *opcode {
            Opcode::Setp(cmp, ty) if args.len() == 3 && matches!(ty, Type::U32 | Type::U64 | Type::B32 | Type::B64) => {
                let Some((x, bound, strict)) = less(if value { cmp } else { cmp.negated() }, &args[1], &args[2]) else { return };
                let inclusive = !strict;
                let Arg::Reg(x) = *x else { return };
                // Tested where it holds the value the check reads: written once, before `d`
                // in the same trip, outside the inner loops.
                let once = self.site.get(&x).is_some_and(|&(xb, _)| !self.l.contains(xb) || (!self.nested(xb) && self.cfg.dominates(xb, d)));
                if once && self.invariant(bound) {
                    out.push(Fact { x, bound: bound.clone(), inclusive, bits: ty.bits() });
                }
            }
            Opcode::Arith(Arith::And, Mode::None, Type::Pred) | Opcode::Arith(Arith::Or, Mode::None, Type::Pred) => {
                let and = matches!(opcode, Opcode::Arith(Arith::And, ..));
                let (Some(x), Some(y)) = (sub(1), sub(2)) else { return };
                if and == value {
                    // Both operands have the value.
                    self.collect(x, value, d, out, depth + 1);
                    self.collect(y, value, d, out, depth + 1);
                } else {
                    // One of them has it: the other where one is the constant that decides nothing.
                    match (self.constant(x, 0), self.constant(y, 0)) {
                        (Some(k), _) if k != value => self.collect(y, value, d, out, depth + 1),
                        (_, Some(k)) if k != value => self.collect(x, value, d, out, depth + 1),
                        _ => {}
                    }
                }
            }
            Opcode::Arith(Arith::Not, Mode::None, Type::Pred) => {
                if let Some(x) = sub(1) {
                    self.collect(x, !value, d, out, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// The value of a predicate that is a constant wherever it is read.
    fn constant(&self, p: Reg, depth: u32) -> Option<bool> {
        if depth > DEPTH {
            return None;
        }
        let &(b, i) = self.site.get(&p)?;
        let inst = &self.func.blocks[b].insts[i];
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        if inst.guard.is_some() {
            return None;
        }
        let of = |a: &Arg| match a {
            Arg::Reg(r) => self.constant(*r, depth + 1),
            Arg::Imm(Imm::Int(v)) => Some(*v != 0),
            _ => None,
        };
        match *opcode {
            Opcode::Mov(Type::Pred) if args.len() == 2 => of(&args[1]),
            Opcode::Arith(Arith::Not, Mode::None, Type::Pred) if args.len() == 2 => of(&args[1]).map(|v| !v),
            Opcode::Arith(Arith::And, Mode::None, Type::Pred) if args.len() == 3 => match (of(&args[1]), of(&args[2])) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Opcode::Arith(Arith::Or, Mode::None, Type::Pred) if args.len() == 3 => match (of(&args[1]), of(&args[2])) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Opcode::Setp(cmp, ty) if args.len() == 3 && !ty.is_float() => {
                let (a, b) = (self.int(&args[1], depth + 1)?, self.int(&args[2], depth + 1)?);
                let bits = ty.bits();
                let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                let (a, b) = (a as u64 & m, b as u64 & m);
                let (a, b) = if ty.is_signed() {
                    let sh = 64 - bits;
                    (((a << sh) as i64 >> sh) as i128, ((b << sh) as i64 >> sh) as i128)
                } else {
                    (a as i128, b as i128)
                };
                Some(match cmp {
                    Cmp::Eq => a == b,
                    Cmp::Ne => a != b,
                    Cmp::Lt => a < b,
                    Cmp::Le => a <= b,
                    Cmp::Gt => a > b,
                    Cmp::Ge => a >= b,
                    Cmp::Neu => return None,
                })
            }
            _ => None,
        }
    }

    /// An integer operand's value where it is a constant: an immediate, or a register written
    /// once by a `mov` of one (what the unrolling leaves for ptxas to fold).
    fn int(&self, a: &Arg, depth: u32) -> Option<i64> {
        match a {
            Arg::Imm(Imm::Int(v)) => Some(*v),
            Arg::Reg(r) if depth <= DEPTH => {
                let &(b, i) = self.site.get(r)?;
                let inst = &self.func.blocks[b].insts[i];
                match &inst.kind {
                    InstKind::Op { opcode: Opcode::Mov(t), defs: 1, args } if args.len() == 2 && inst.guard.is_none() && !t.is_float() => self.int(&args[1], depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A condition under which `p` never has the value `fails_when` at block `c`.
    fn never(&mut self, p: Reg, fails_when: bool, at: (usize, usize), depth: u32) -> Option<Cond> {
        if depth > DEPTH {
            return None;
        }
        if let Some(k) = self.constant(p, 0) {
            return (k != fails_when).then_some(Cond::Always);
        }
        if !self.written[p.0 as usize] {
            // Decided before the loop: it never fails when it does not fail there.
            if !fails_when {
                return Some(Cond::When(p));
            }
            let r = self.emit(RegClass::Pred, Opcode::arith(Arith::Not, Type::Pred), vec![Arg::Reg(p)]);
            return Some(Cond::When(r));
        }
        let (site, inst) = self.def(p, at)?;
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        let (opcode, args) = (*opcode, args.clone());
        let reg = |k: usize| match args.get(k) {
            Some(Arg::Reg(r)) => Some(*r),
            _ => None,
        };
        match opcode {
            Opcode::Setp(cmp, ty) if args.len() == 3 && matches!(ty, Type::U32 | Type::U64 | Type::B32 | Type::B64) => {
                // Fails when `y <= x` (or `y < x`): never when `upper(x) < y` (`<=`).
                let (y, x, strict) = less(if fails_when { cmp } else { cmp.negated() }, &args[1], &args[2])?;
                if !self.invariant(y) {
                    return None;
                }
                let bits = ty.bits();
                let (x, y) = (x.clone(), y.clone());
                let (ux, _, ok) = self.upper(&x, bits, site, depth + 1)?;
                let holds = self.emit(RegClass::Pred, Opcode::Setp(if strict { Cmp::Le } else { Cmp::Lt }, Type::u(bits)), vec![ux, y]);
                Some(Cond::When(self.and(ok, Some(holds)).unwrap_or(holds)))
            }
            Opcode::Arith(op @ (Arith::And | Arith::Or), Mode::None, Type::Pred) => {
                let (x, y) = (reg(1)?, reg(2)?);
                // `and` fails when both fail (`or` when both do not pass): either condition.
                if (op == Arith::And) == fails_when {
                    let a = self.never(x, fails_when, site, depth + 1);
                    let b = self.never(y, fails_when, site, depth + 1);
                    match (a, b) {
                        (Some(Cond::Always), _) | (_, Some(Cond::Always)) => Some(Cond::Always),
                        (Some(Cond::When(a)), Some(Cond::When(b))) => {
                            Some(Cond::When(self.emit(RegClass::Pred, Opcode::arith(Arith::Or, Type::Pred), vec![Arg::Reg(a), Arg::Reg(b)])))
                        }
                        (a, b) => a.or(b),
                    }
                } else {
                    let a = self.never(x, fails_when, site, depth + 1)?;
                    let b = self.never(y, fails_when, site, depth + 1)?;
                    Some(match (a, b) {
                        (Cond::Always, b) => b,
                        (a, Cond::Always) => a,
                        (Cond::When(a), Cond::When(b)) => Cond::When(self.emit(RegClass::Pred, Opcode::arith(Arith::And, Type::Pred), vec![Arg::Reg(a), Arg::Reg(b)])),
                    })
                }
            }
            Opcode::Arith(Arith::Not, Mode::None, Type::Pred) => self.never(reg(1)?, !fails_when, site, depth + 1),
            Opcode::Mov(Type::Pred) => self.never(reg(1)?, fails_when, site, depth + 1),
            _ => None,
        }
    }

    /// `a && b` of optional predicates.
    fn and(&mut self, a: Option<Reg>, b: Option<Reg>) -> Option<Reg> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.emit(RegClass::Pred, Opcode::arith(Arith::And, Type::Pred), vec![Arg::Reg(a), Arg::Reg(b)])),
            (a, b) => a.or(b),
        }
    }

    /// A value computed before the loop that is at least every value `x` (a `bits`-bit
    /// unsigned integer) has at block `c`; its greatest possible value; and a predicate that
    /// holds when it was computed without wrapping (`None`: it cannot wrap).
    fn upper(&mut self, x: &Arg, bits: u32, at: (usize, usize), depth: u32) -> Option<(Arg, u128, Option<Reg>)> {
        let full = mask(bits) as u128;
        if depth > DEPTH {
            return None;
        }
        match x {
            Arg::Imm(Imm::Int(v)) => return Some((x.clone(), (*v as u64 & mask(bits)) as u128, None)),
            Arg::Reg(r) if !self.written[r.0 as usize] => {
                let hi = self.ranges.of(x, bits).map_or(full, |r| r.hi as u128);
                return Some((x.clone(), hi, None));
            }
            Arg::Reg(_) => {}
            Arg::Sym(Sym::Piece(_)) => return Some((x.clone(), full, None)),
            _ => return None,
        }
        let Arg::Reg(r) = *x else { return None };
        // Tested against a bound on the way to the check, or a `for` loop's counter.
        let fact = self.fact(r, bits, at).or_else(|| self.counter(r, bits, at));
        if let Some(f) = fact {
            let hi = self.ranges.of(&f.bound, bits).map_or(full, |r| r.hi as u128);
            if f.inclusive {
                return Some((f.bound, hi, None));
            }
            // `x < B`: `B >= 1` wherever the check runs.
            return Some(match f.bound {
                Arg::Imm(Imm::Int(v)) => {
                    let v = (v as u64 & mask(bits)).saturating_sub(1);
                    (Arg::imm(v as i64), v as u128, None)
                }
                b => {
                    let t = self.emit(class(bits), Opcode::arith(Arith::Sub, Type::s(bits)), vec![b, Arg::imm(1)]);
                    (Arg::Reg(t), hi.saturating_sub(1), None)
                }
            });
        }
        let (site, inst) = self.def(r, at)?;
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        let (opcode, args) = (*opcode, args.clone());
        match opcode {
            Opcode::Mov(t) if args.len() == 2 && t.bits() == bits && !t.is_float() => self.upper(&args[1], bits, site, depth + 1),
            // Zero extension keeps the value.
            Opcode::Cvt(Mode::None, to, from) if args.len() == 2 && to.bits() == bits && !to.is_float() && !from.is_float() && !from.is_signed() && from.bits() < bits => {
                let (u, hi, ok) = self.upper(&args[1], from.bits(), site, depth + 1)?;
                let w = self.emit(class(bits), Opcode::Cvt(Mode::None, Type::u(bits), Type::u(from.bits())), vec![u]);
                Some((Arg::Reg(w), hi, ok))
            }
            Opcode::Arith(op @ (Arith::Add | Arith::Mul | Arith::Shl), mode, t) if args.len() == 3 && t.bits() == bits && !t.is_float() => {
                let shift = matches!(op, Arith::Shl);
                if !matches!((op, mode), (Arith::Add, Mode::None) | (Arith::Mul, Mode::Lo) | (Arith::Shl, Mode::None)) {
                    return None;
                }
                let (ua, ha, oka) = self.upper(&args[1], bits, site, depth + 1)?;
                let (ub, hb, okb) = if shift {
                    let Arg::Imm(Imm::Int(s)) = args[2] else { return None };
                    if !(0..bits as i64).contains(&s) {
                        return None;
                    }
                    (args[2].clone(), s as u128, None)
                } else {
                    self.upper(&args[2], bits, site, depth + 1)?
                };
                let ok = self.and(oka, okb);
                let hi = match op {
                    Arith::Add => ha + hb,
                    Arith::Mul => ha.saturating_mul(hb),
                    _ => ha.checked_shl(hb as u32).unwrap_or(u128::MAX),
                };
                let result = self.emit(class(bits), opcode, vec![ua.clone(), ub.clone()]);
                if hi <= full {
                    return Some((Arg::Reg(result), hi, ok));
                }
                // May wrap: tested.
                let fits = match op {
                    Arith::Add => self.emit(RegClass::Pred, Opcode::Setp(Cmp::Ge, Type::u(bits)), vec![Arg::Reg(result), ua]),
                    // By a constant (`TILE`): compared with `MAX / TILE`, which ptxas folds.
                    Arith::Mul => match (super::hoist::quotient(Type::u(bits), &ub), super::hoist::quotient(Type::u(bits), &ua)) {
                        (Some(q), _) => self.emit(RegClass::Pred, Opcode::Setp(Cmp::Le, Type::u(bits)), vec![ua, q]),
                        (None, Some(q)) => self.emit(RegClass::Pred, Opcode::Setp(Cmp::Le, Type::u(bits)), vec![ub, q]),
                        (None, None) => {
                            let high = self.emit(class(bits), Opcode::Arith(Arith::Mul, Mode::Hi, Type::u(bits)), vec![ua, ub]);
                            self.emit(RegClass::Pred, Opcode::Setp(Cmp::Eq, Type::u(bits)), vec![Arg::Reg(high), Arg::imm(0)])
                        }
                    },
                    _ => {
                        let Arg::Imm(Imm::Int(s)) = ub else { return None };
                        if s == 0 {
                            return Some((Arg::Reg(result), hi, ok));
                        }
                        let high = self.emit(class(bits), Opcode::arith(Arith::Shr, Type::u(bits)), vec![ua, Arg::imm(bits as i64 - s)]);
                        self.emit(RegClass::Pred, Opcode::Setp(Cmp::Eq, Type::u(bits)), vec![Arg::Reg(high), Arg::imm(0)])
                    }
                };
                Some((Arg::Reg(result), full, self.and(ok, Some(fits))))
            }
            _ => None,
        }
    }

    /// A fact of the path to the check about `x`, where `at` reads the value the fact is about:
    /// `x` is written once in a trip (outside the inner loops), before `at`.
    fn fact(&self, x: Reg, bits: u32, at: (usize, usize)) -> Option<Fact> {
        let f = self.facts.iter().find(|f| f.x == x && f.bits == bits)?;
        let &site = self.site.get(&x)?;
        (!self.nested(site.0) && self.before(site, at)).then(|| f.clone())
    }

    /// `x < end` for a `for` loop's counter `x` read at `at`: the fact holds when the loop's
    /// header is entered, `at` is in that loop, after its header, and the loop writes `x` only
    /// where a trip ends (and not in `at`'s block).
    fn counter(&self, x: Reg, bits: u32, at: (usize, usize)) -> Option<Fact> {
        let f = self.func.entry_facts.iter().find(|f| f.reg == x && f.ty.bits() == bits && !f.ty.is_signed() && !f.ty.is_float())?;
        let h = f.block.0 as usize;
        let lk = self.loops.iter().find(|o| o.header == h)?;
        if !self.l.contains(h) || !lk.contains(at.0) || !self.cfg.dominates(h, at.0) || !self.invariant(&f.bound) {
            return None;
        }
        for (b, block) in self.func.blocks.iter().enumerate() {
            if !block.insts.iter().any(|i| i.defs().contains(&x)) || !lk.body.get(b).copied().unwrap_or(false) {
                continue;
            }
            // A write in the loop: where a trip ends (only the header or the exit follow).
            let ends = block.term.successors().iter().all(|s| s.0 as usize == h || !lk.contains(s.0 as usize));
            if !ends || b == at.0 {
                return None;
            }
        }
        Some(Fact { x, bound: f.bound.clone(), inclusive: false, bits })
    }
}

/// `a <cmp> b` as `lo < hi` (strict) or `lo <= hi`.
fn less<'a>(cmp: Cmp, a: &'a Arg, b: &'a Arg) -> Option<(&'a Arg, &'a Arg, bool)> {
    match cmp {
        Cmp::Lt => Some((a, b, true)),
        Cmp::Le => Some((a, b, false)),
        Cmp::Gt => Some((b, a, true)),
        Cmp::Ge => Some((b, a, false)),
        _ => None,
    }
}

fn class(bits: u32) -> RegClass {
    if bits == 64 { RegClass::B64 } else { RegClass::B32 }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}
