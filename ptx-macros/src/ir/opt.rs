//! The optimiser: what ptxas does not do for us, or does too late, then clean-ups that keep the
//! PTX free of redundant moves and dead values. ptxas optimises the rest at -O3.
//!
//! - **Constant propagation** ([`super::constprop`]): immediates into arithmetic, branches on
//!   constant comparisons folded.
//! - **Unrolled warp loops** ([`super::unroll_full`]): a loop holding `shfl.sync`, `vote.sync`
//!   or `bar.warp.sync`, which ptxas keeps rolled, unrolled completely where its trips can be
//!   counted here (a warp reduction's `offset /= 2` from 16), as nvcc's front end does.
//! - **Redundant comparisons** ([`super::bce`]): a bounds check that a dominating loop
//!   condition already decided.
//! - **Hoisted checks** ([`super::hoist`]): a bounds check on an index that grows with a `for`
//!   loop's counter, made once before the loop for the last trip's index, where every failure
//!   in the loop reports one line (layernorm's row loops).
//! - **Folded checks** ([`super::fold`]): a bounds check on every trip of a `while` loop
//!   (saxpy's grid-stride loop), or of a `for` loop over a runtime range that hoisting left
//!   (its failures on two lines), made part of the loop's bound, tested again after the loop.
//! - **Combined checks** ([`super::combine`]): bounds checks in a row on one line of source
//!   compared at the first and branched on once.
//! - **Deferred checks** ([`super::defer`]): in a short `for` loop, a failed check skips the
//!   rest of the trip and is reported when the loop ends, so that no branch to the failure
//!   call separates the trips ptxas unrolls. Such a loop with a known, small number of trips
//!   is then unrolled here ([`super::unroll_full`]): ptxas does not always.
//! - **Unrolled loops, vector shared loads** ([`super::unroll`], [`super::vectorize`]): a
//!   short `for` loop whose body reads adjacent shared words on adjacent trips unrolled by 4,
//!   under a guard ptxas folds, and each four such loads made one `ld.shared.v4`.
//! - **32-bit indices** ([`super::narrow`]): a 64-bit index truncated to a 32-bit shared
//!   address computed from its operands' low halves.
//! - **32-bit compares** ([`super::narrow_cmp`]): a 64-bit compare whose operands are below
//!   2^32 when the outside constants (`T`, `TILE`) are small, or that they decide, made so
//!   under a test of those constants that ptxas folds ([`super::const_range`]).
//! - **Repeated arithmetic** ([`super::cse`]): integer arithmetic that a dominating
//!   instruction already computed (an index written for its check and its access) is read
//!   from there.
//! - **Invariant parts of indices** ([`super::reassoc`]): in a `for` loop with a constant end,
//!   which ptxas unrolls, an index becomes a base computed before the loop plus multiples of
//!   the counter, which ptxas folds into immediate offsets.
//! - **Pointer induction variables** ([`super::strength`]): an address that steps with a
//!   `for` loop's 64-bit counter becomes a pointer advanced with it.
//! - **Loop-invariant arithmetic** ([`super::licm`]): computed once before the loop (the
//!   hoisted check of an inner loop leaves the outer loop too).
//! - **Versioned loops** ([`super::version`]): a loop whose remaining checks can all be decided
//!   by values it does not write gets a copy without them, picked by one test before it.
//! - **Stepped indices** ([`super::iv`]): a 64-bit value that grows with a `for` loop's
//!   counter and stays read (a check's index) becomes a register stepped with it, instead of
//!   being rebuilt by multiplies on every trip.
//! - **32-bit registers** ([`super::narrow_reg`]): a 64-bit register whose every value is
//!   below 2^32 (a reduction's `tid`, `s`, `tid + s`), computed and compared in 32 bits where
//!   all its writes and reads can be.
//! - **Rotated loops** ([`super::rotate`]): the test of a loop's header copied to its bottom,
//!   as nvcc's loops are.
//! - **Raised checks** ([`super::raise`]): a check joined to the one before it where the code
//!   between has no effect and always reaches it (layernorm's third loop's check, made with
//!   its first's), reporting them in the source's order.
//! - **Move coalescing**: `op t, ...; mov x, t;` where `t` is used only by that `mov` becomes
//!   `op x, ...;` (assignments to mutable locals, `if`/`loop` results).
//! - **Merged branches**: a branch whose two ways meet before either does anything (an `if`
//!   whose arms dead code emptied) becomes a jump, and what only it read goes (ptxas 13.5
//!   crashed on such branches in loops for sm_75).
//! - **Dead code**: instructions without side effects whose results nothing with an effect
//!   reads, directly or through other such instructions, are removed (unused parameter loads,
//!   address arithmetic of unused fields, `v /= 7` of a variable never read again); last, by
//!   liveness, writes that every path overwrites before a read (the widening of a counter
//!   `narrow_reg` left after its advance, read only before the loop).

use super::{Arg, Func, Inst, InstKind, Opcode, Reg};

pub fn run(func: &mut Func) {
    super::constprop::run(func);
    // Each unrolled trip's counter is an immediate: propagated, and its tests folded, again.
    if super::unroll_full::run(func) {
        super::constprop::run(func);
    }
    super::bce::run(func);
    super::hoist::run(func);
    super::fold::run(func);
    super::combine::run(func);
    let deferred = super::defer::run(func);
    super::unroll::run(func);
    // The checks decided above leave comparisons nothing reads: gone before `narrow` counts
    // who reads a 64-bit index.
    remove_dead(func);
    super::narrow::run(func);
    super::narrow_cmp::run(func);
    super::licm::run(func);
    coalesce_moves(func);
    // After the moves are coalesced: an index is then the `add` that computes it.
    super::cse::run(func);
    super::bce::again(func);
    super::reassoc::run(func);
    super::strength::run(func);
    // After every pass that reads `Func::for_loops` or counts a register's writes.
    super::version::run(func);
    // After `version`, whose test bounds values the loop computes, not ones it steps.
    super::iv::run(func);
    // After the passes that match 64-bit compares and counters.
    super::narrow_reg::run(func);
    // Peepholes on the code as it now stands: a widened `u32` index scaled by `mul.wide.u32`
    // (after `narrow_reg`, whose twins are widened where 64-bit readers remain), and global
    // accesses through generic pointers made from global addresses.
    super::wide_index::run(func);
    super::space::run(func);
    remove_dead(func);
    // The short loops whose checks `defer` made branch-free, unrolled once the passes above
    // have made their indices bases and offsets (the counters' values then propagated).
    if super::unroll_full::run_deferred(func, &deferred) {
        super::constprop::run(func);
        remove_dead(func);
    }
    // Last: the passes above find loops by their tested headers.
    super::rotate::run(func);
    // Then branches left with nothing to choose between, and what only they read (which may
    // empty the arms of an enclosing `if`).
    while merge_branches(func) {
        remove_dead(func);
    }
    // On the branches as they now stand (an iterator's slice checks are one by now).
    super::raise::run(func);
    remove_dead(func);
    while remove_overwritten(func) {
        remove_dead(func);
    }
}

/// A pure instruction none of whose results any read sees: each is written again, on every
/// path, before it is read (`narrow_reg`'s widening of a loop counter after its advance, where
/// only the index computed before the loop reads the 64-bit form). `remove_dead` keeps every
/// write of a register that something reads; this asks, by backward liveness over the blocks,
/// whether this write is the one read. A guarded write does not end a register's liveness (the
/// value before it may be the one read). Whether any instruction went.
fn remove_overwritten(func: &mut Func) -> bool {
    let words = func.regs.len().div_ceil(64);
    let n = func.blocks.len();
    let set = |v: &mut [u64], r: Reg| {
        if let Some(w) = v.get_mut(r.0 as usize / 64) {
            *w |= 1 << (r.0 % 64);
        }
    };
    let clear = |v: &mut [u64], r: Reg| {
        if let Some(w) = v.get_mut(r.0 as usize / 64) {
            *w &= !(1 << (r.0 % 64));
        }
    };
    let has = |v: &[u64], r: Reg| v.get(r.0 as usize / 64).is_some_and(|w| w >> (r.0 % 64) & 1 == 1);
    // What a block reads before writing it, and what it writes unguarded: the live registers
    // at its start are `reads | (live at its end & !writes)`.
    let step = |live: &mut Vec<u64>, inst: &Inst| {
        if inst.guard.is_none() {
            inst.defs().into_iter().for_each(|r| clear(live, r));
        }
        inst.uses().into_iter().for_each(|r| set(live, r));
    };
    let at_end = |b: &super::Block, live_in: &[Vec<u64>]| {
        let mut live = vec![0u64; words];
        for s in b.term.successors() {
            for (w, x) in live.iter_mut().zip(&live_in[s.0 as usize]) {
                *w |= x;
            }
        }
        if let super::Term::Branch { pred, .. } = b.term {
            set(&mut live, pred);
        }
        live
    };
    let mut live_in = vec![vec![0u64; words]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let block = &func.blocks[b];
            let mut live = at_end(block, &live_in);
            for inst in block.insts.iter().rev() {
                step(&mut live, inst);
            }
            if live != live_in[b] {
                live_in[b] = live;
                changed = true;
            }
        }
    }
    let removable = |inst: &Inst| matches!(&inst.kind, InstKind::Op { opcode, defs, args } if *defs > 0 && opcode.is_pure() && !reads_clock(args));
    let mut removed = false;
    for b in 0..n {
        let mut live = at_end(&func.blocks[b], &live_in);
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut kept = Vec::with_capacity(insts.len());
        for inst in insts.into_iter().rev() {
            if removable(&inst) && !inst.defs().into_iter().any(|r| has(&live, r)) {
                removed = true;
                continue;
            }
            step(&mut live, &inst);
            kept.push(inst);
        }
        kept.reverse();
        func.blocks[b].insts = kept;
    }
    removed
}

/// A branch whose two ways meet before either does anything (they reach one block through
/// blocks that only jump: an `if` whose arms the passes above emptied) becomes a jump to its
/// fall-through way. ptxas 13.5 segfaulted for sm_75 at -O1 and above on such branches in a
/// loop (difftest seed 208851637, kernel 11: `if c { let t = ..; }` with nothing left of `t`).
/// Whether any branch changed.
fn merge_branches(func: &mut Func) -> bool {
    let n = func.blocks.len();
    // Where a block leads, followed through blocks that only jump (not round a cycle of them).
    let lands = |func: &Func, b: usize| {
        let mut at = b;
        for _ in 0..n {
            match func.blocks[at].term {
                super::Term::Jump(t) if func.blocks[at].insts.is_empty() && t.0 as usize != at => at = t.0 as usize,
                _ => break,
            }
        }
        at
    };
    let mut changed = false;
    for b in 0..n {
        if let super::Term::Branch { if_true, if_false, .. } = func.blocks[b].term {
            if lands(func, if_true.0 as usize) == lands(func, if_false.0 as usize) {
                func.blocks[b].term = super::Term::Jump(if_false);
                changed = true;
            }
        }
    }
    changed
}

/// How many times each register is read, by register number.
fn use_counts(func: &Func) -> Vec<usize> {
    let mut counts = vec![0; func.regs.len()];
    let mut count = |r: Reg| {
        if let Some(n) = counts.get_mut(r.0 as usize) {
            *n += 1;
        }
    };
    for b in &func.blocks {
        for i in &b.insts {
            i.uses().into_iter().for_each(&mut count);
        }
        if let super::Term::Branch { pred, .. } = b.term {
            count(pred);
        }
    }
    counts
}

fn coalesce_moves(func: &mut Func) {
    let uses = use_counts(func);
    let defs = super::range::def_counts(func);
    let classes = func.regs.clone();
    for b in &mut func.blocks {
        let mut i = 1;
        while i < b.insts.len() {
            let (prev, cur) = b.insts.split_at_mut(i);
            let prev = &mut prev[i - 1];
            let cur = &cur[0];
            let target = match (&cur.kind, cur.guard) {
                (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) if args.len() == 2 => {
                    match (&args[0], &args[1]) {
                        (Arg::Reg(x), Arg::Reg(t)) => Some((*x, *t)),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((x, t)) = target {
                let single_use = uses.get(t.0 as usize) == Some(&1) && defs.get(t.0 as usize) == Some(&1);
                let same_class = classes[x.0 as usize] == classes[t.0 as usize];
                let defines_t = match &prev.kind {
                    InstKind::Op { defs: 1, args, .. } => matches!(args[0], Arg::Reg(r) if r == t),
                    _ => false,
                };
                if single_use && same_class && defines_t && prev.guard.is_none() {
                    if let InstKind::Op { args, .. } = &mut prev.kind {
                        args[0] = Arg::Reg(x);
                    }
                    b.insts.remove(i);
                    continue;
                }
            }
            i += 1;
        }
    }
}

fn reads_clock(args: &[Arg]) -> bool {
    args.iter().any(|a| matches!(a, Arg::Sym(super::Sym::Named(n)) if n.starts_with("%clock") || n.starts_with("%globaltimer")))
}

fn remove_dead(func: &mut Func) {
    // Mark and sweep: the registers read by what must stay (an instruction with an effect, a
    // branch) are live, and so, transitively, are those read by the pure instructions that
    // write a live register; a pure instruction that writes none is removed. Counting reads
    // instead would keep an instruction that reads its own result (`v /= 7` of a variable
    // never read again): ptxas 13.5 segfaulted on such a dead division (difftest seed
    // 20261204 kernel 30).
    let removable = |inst: &Inst| matches!(&inst.kind, InstKind::Op { opcode, defs, args } if *defs > 0 && opcode.is_pure() && !reads_clock(args));
    let mut live = vec![false; func.regs.len()];
    let mut work: Vec<Reg> = Vec::new();
    let mark = |r: Reg, live: &mut Vec<bool>, work: &mut Vec<Reg>| {
        if let Some(l) = live.get_mut(r.0 as usize) {
            if !*l {
                *l = true;
                work.push(r);
            }
        }
    };
    let mut writers: Vec<Vec<(usize, usize)>> = vec![Vec::new(); func.regs.len()];
    for (bi, b) in func.blocks.iter().enumerate() {
        for (ii, inst) in b.insts.iter().enumerate() {
            if removable(inst) {
                for r in inst.defs() {
                    if let Some(w) = writers.get_mut(r.0 as usize) {
                        w.push((bi, ii));
                    }
                }
            } else {
                inst.uses().into_iter().for_each(|r| mark(r, &mut live, &mut work));
            }
        }
        if let super::Term::Branch { pred, .. } = b.term {
            mark(pred, &mut live, &mut work);
        }
    }
    while let Some(r) = work.pop() {
        for &(bi, ii) in writers.get(r.0 as usize).map(Vec::as_slice).unwrap_or_default() {
            func.blocks[bi].insts[ii].uses().into_iter().for_each(|u| mark(u, &mut live, &mut work));
        }
    }
    let is_live = |r: &Reg| live.get(r.0 as usize).copied().unwrap_or(true);
    for b in &mut func.blocks {
        b.insts.retain(|inst| !removable(inst) || inst.defs().iter().any(is_live));
    }
}
