//! Bounds checks folded into a `while` loop's bound: in saxpy's grid-stride loop
//! `while i < y.len() { y[i] = a * x[i] + y[i]; i += stride }`, the check of `x[i]` made on
//! every trip becomes part of the loop's test. The loop runs while `i < M`, with
//! `M = min(y.len(), x.len())` computed once before it; when it ends with `i < y.len()` still
//! true, the trip Rust would have run fails its check, and the code after the loop branches to
//! that check's failure (same message, same line).
//!
//! A `for` loop over a runtime range folds the same way (`x[base + j]` and `y[base + j]` on
//! two lines): the lowering writes it rotated, with the test `i < A` in the latch after the
//! increment and a guard before the loop that tests the first trip (`start < A`, `i` set to
//! `start`); both compare with `M` instead, and both exits go to the test after the loop. It
//! runs after `ir::hoist`, which checks the last trip's index before the loop where every
//! failure in the loop reports one line (layernorm's row loops): the loop then counts to its
//! own bound, the same for the whole warp, where `M` is each thread's (docs/performance.md,
//! "Hoisted again"). Such a loop was folded before, when the branch before it made ptxas copy
//! sm_90's global memory descriptor to uniform registers before each load (66 `R2UR`s in
//! layernorm); with 32-bit counters and stepped pointers there are none.
//!
//! An unsigned `for i in (a..b).step_by(s)` loop is written the same way, its latch testing
//! `i < b && i >= s` after `i += s` (the second test fails when the sum wraps, where Rust's
//! `StepBy` stops). It folds where `s <= 2^63` (a widened `u32` stride): the folded loop's
//! trips start below a bounds check's length, so below `2^63`, and the sum cannot wrap. The
//! latch then tests `i < M` alone and the test after the loop `i < b` (`stepped_test`).
//!
//! A 32-bit counter (`while i < n` with `i, n: u32`, indexing `x[i as usize]`, as CUDA's
//! grid-stride loop is written) folds too: its checks compare `i` widened (`cvt.u64.u32`), or
//! `base` plus it, and `M` is computed in 64 bits from the widened bound and narrowed, exact
//! since `M <= A < 2^32` (`Index` keeps the widening, which the report chain computes again).
//!
//! Why this is exact (docs/performance.md, "Checks folded into a loop's bound"): the loop's
//! test (the header's, or the latch's and the guard's) is `i < A`, with `A` not written in
//! the loop; each folded check fails on a trip exactly when `i >= L'`, where `i` is the tested
//! value (not written between the test and the check), for an `L'` computed before the loop:
//! - the index is `i` itself: `L' = len`;
//! - the index is `base + i` with `base` not written in the loop and `ir::range` proving that
//!   `base + i` does not wrap for any `i < A`: it is below `len` exactly when `i < len - base`,
//!   so `L' = max(len, base) - base` (0 when `base >= len`: every trip fails).
//!
//! With `M = min(A, L'_1, ...)`, a trip with `i < M` passes the header in both versions and
//! every folded check; one with `i >= M` leaves the new loop; if `i >= A` Rust leaves too, and
//! otherwise Rust runs that trip, and one of its folded checks fails. The code after the loop
//! tests `i < A` and then each folded check again, in the source's order, and reports the
//! first that fails: the one Rust reports, provided nothing in the trip before it can fail or
//! stop otherwise (where every folded check reports the same message and line, it needs no
//! test to tell which, and goes to that report). A base the chain needs is computed again
//! there where it rests only on parameters, thread and block indices and immediates, so that
//! it is not kept live across the loop for the cold path. So a check folds only when:
//! - the loop holds no other loop, no call, no inline assembly, and is left only by its
//!   test or a failed check;
//! - the check is on the trip's straight path from the header (each block entered only from
//!   the one before, ending in a jump or a failure branch), and every failure branch before it
//!   on that path is a folded check (a division by zero, or a check that does not fold, ends
//!   the search: Rust could report it first).
//!
//! Whatever the trip did before its check (a store, an atomic) is not done: a failed check
//! ends the whole launch, after which the memory the kernel was writing is not defined, as
//! when `ir::hoist` fails before a loop. Two checks of the same index against the same length
//! (softmax's `y[base + j] = y[base + j] / total`) are one: the second fails only where the
//! first already has.

use super::dom::{Cfg, Loop};
use super::hoist::{failure, same_failure, single_defs};
use super::range::{Range, Ranges};
use super::{Arg, Arith, Block, BlockId, Cmp, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, StateSpace, Sym, Term, Type};

pub fn run(func: &mut Func) {
    // The graph changes with each fold: recompute it.
    let mut done: Vec<usize> = Vec::new();
    loop {
        let cfg = Cfg::new(func);
        let loops = cfg.loops();
        let Some(l) = loops.iter().find(|l| !done.contains(&l.header)) else { return };
        done.push(l.header);
        fold_loop(func, &cfg, l, &loops);
    }
}

/// The header's test: `setp` at `at` in the header, the trip runs when its predicate is
/// `want`, which is when `i < bound`; `stay` and `exit` are the header's successors.
struct Header {
    at: usize,
    want: bool,
    i: Reg,
    bound: Arg,
    exit: usize,
    /// `u64`, or `u32` for a 32-bit counter whose checks index with its widened value.
    ty: Type,
}

/// A check that folds: its block, failure block, comparison, length and index form.
struct Check {
    block: usize,
    stub: usize,
    setp: Inst,
    len: Arg,
    index: Index,
}

/// How a folded check's index is made from the counter `i`. A 32-bit counter's index reads
/// `i` widened (`cvt.u64.u32`): the register it is widened into is kept, to be computed
/// again after the loop.
enum Index {
    /// `i` itself (or a 64-bit copy of it), or its widening.
    Counter(Option<Reg>),
    /// `base + i` (or `base` plus the widening), computed by the `add`.
    Offset { add: Inst, base: Arg, widen: Option<Reg> },
}

impl Index {
    fn base(&self) -> Option<Arg> {
        match self {
            Index::Offset { base, .. } => Some(base.clone()),
            Index::Counter(_) => None,
        }
    }
}

impl Check {
    /// The same index and length as `other`: the two fail together.
    fn same_as(&self, other: &Check) -> bool {
        same_arg(&self.len, &other.len) && match (&self.index, &other.index) {
            (Index::Counter(_), Index::Counter(_)) => true,
            (Index::Offset { base: a, .. }, Index::Offset { base: b, .. }) => same_arg(a, b),
            _ => false,
        }
    }
}

fn same_base(a: &Option<Arg>, b: &Option<Arg>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_arg(a, b),
        _ => false,
    }
}

fn same_arg(a: &Arg, b: &Arg) -> bool {
    match (a, b) {
        (Arg::Reg(x), Arg::Reg(y)) => x == y,
        (Arg::Imm(Imm::Int(x)), Arg::Imm(Imm::Int(y))) => x == y,
        _ => false,
    }
}

/// The test `block` ends with, as `i < bound` deciding whether the loop runs another trip.
fn branch_test(func: &Func, h: usize, l: &Loop, written: &[bool]) -> Option<Header> {
    let Term::Branch { pred, negate, if_true, if_false } = func.blocks[h].term else { return None };
    let (t_in, f_in) = (l.contains(if_true.0 as usize), l.contains(if_false.0 as usize));
    if t_in == f_in {
        return None;
    }
    let want = t_in != negate;
    let exit = if t_in { if_false } else { if_true }.0 as usize;
    let at = func.blocks[h].insts.iter().rposition(|i| i.defs().contains(&pred))?;
    let setp = &func.blocks[h].insts[at];
    let InstKind::Op { opcode: Opcode::Setp(cmp, ty @ (Type::U64 | Type::U32)), args, .. } = &setp.kind else { return None };
    if setp.guard.is_some() || args.len() != 3 {
        return None;
    }
    // The comparison under which the trip runs, as `i < bound`.
    let runs = if want { *cmp } else { cmp.negated() };
    let (i, bound) = match runs {
        Cmp::Lt => (&args[1], &args[2]),
        Cmp::Gt => (&args[2], &args[1]),
        _ => return None,
    };
    let Arg::Reg(i) = *i else { return None };
    let invariant = invariant(bound, written);
    // The test's block must not change `i` after the test (the trip's checks see the tested
    // value).
    let rewritten = func.blocks[h].insts[at + 1..].iter().any(|x| x.defs().contains(&i));
    (invariant && !rewritten && written[i.0 as usize]).then(|| Header { at, want, i, bound: bound.clone(), exit, ty: *ty })
}

/// An integer or a register the loop does not write (`written`).
fn invariant(a: &Arg, written: &[bool]) -> bool {
    match a {
        Arg::Reg(r) => !written[r.0 as usize],
        Arg::Imm(Imm::Int(_)) => true,
        _ => false,
    }
}

/// Whether the loop's one latch branches on an `and.pred` (a `step_by` loop's, perhaps): a
/// cheap test before `stepped_test` needs the value ranges.
fn and_latch(func: &Func, l: &Loop) -> bool {
    let [latch] = l.latches[..] else { return false };
    let Term::Branch { pred, .. } = func.blocks[latch].term else { return false };
    let def = func.blocks[latch].insts.iter().rev().find(|x| x.defs().contains(&pred));
    def.is_some_and(|x| matches!(x.kind, InstKind::Op { opcode: Opcode::Arith(Arith::And, _, Type::Pred), .. }))
}

/// The latch of an unsigned `step_by` loop as the lowering writes it: `i = i + s`, then
/// `p = i < bound && i >= s` (the second false exactly when the sum wrapped), the trip running
/// when `p` holds; as `branch_test`, the `setp` of `i < bound`. Only where `s <= 2^63`: then a
/// trip that starts below `2^63` cannot wrap, and the folded loop's trips start below the least
/// length it tests (a bounds check's length is below `2^63`, Rust's `isize::MAX` bound). So the
/// folded loop's latch branches on `i < M` alone, and the test after the loop asks `i < bound`
/// only (docs/performance.md, "`step_by` loops").
fn stepped_test(func: &Func, latch: usize, l: &Loop, written: &[bool], ranges: &Ranges) -> Option<Header> {
    let Term::Branch { pred, negate: false, if_true, if_false } = func.blocks[latch].term else { return None };
    if !l.contains(if_true.0 as usize) || l.contains(if_false.0 as usize) {
        return None;
    }
    let insts = &func.blocks[latch].insts;
    let def_at = |r: Reg, before: usize| insts[..before].iter().rposition(|x| x.defs().contains(&r));
    let and_at = def_at(pred, insts.len())?;
    let InstKind::Op { opcode: Opcode::Arith(Arith::And, _, Type::Pred), args, .. } = &insts[and_at].kind else { return None };
    let (&[_, Arg::Reg(a), Arg::Reg(b)], None) = (&args[..], &insts[and_at].guard) else { return None };
    let setp = |r: Reg| {
        let at = def_at(r, and_at)?;
        match &insts[at].kind {
            InstKind::Op { opcode: Opcode::Setp(cmp, Type::U64), args, .. } if insts[at].guard.is_none() && args.len() == 3 => Some((at, *cmp, args[1].clone(), args[2].clone())),
            _ => None,
        }
    };
    let ((at, Cmp::Lt, Arg::Reg(i), bound), (wrap_at, Cmp::Ge, Arg::Reg(j), step)) = (setp(a)?, setp(b)?) else { return None };
    // `i` is the advance's sum (`add i, i, s`, or `add t, i, s; mov i, t` as the lowering
    // writes it), written last before both tests.
    let set_at = def_at(i, at.min(wrap_at))?;
    let sum = |k: usize, to: Reg| {
        matches!(&insts[k].kind, InstKind::Op { opcode: Opcode::Arith(Arith::Add, Mode::None, Type::U64 | Type::S64 | Type::B64), args, .. }
            if insts[k].guard.is_none() && args.len() == 3 && matches!(args[0], Arg::Reg(r) if r == to) && matches!(args[1], Arg::Reg(r) if r == i) && same_arg(&args[2], &step))
    };
    let advance = sum(set_at, i)
        || match &insts[set_at].kind {
            InstKind::Op { opcode: Opcode::Mov(_), args, .. } if insts[set_at].guard.is_none() && args.len() == 2 => match args[1] {
                Arg::Reg(t) => def_at(t, set_at).is_some_and(|k| sum(k, t) && !insts[k + 1..set_at].iter().any(|x| x.defs().contains(&i) || x.defs().contains(&t))),
                _ => false,
            },
            _ => false,
        };
    if j != i || !advance {
        return None;
    }
    if ranges.of(&step, 64).is_none_or(|r| r.hi > 1 << 63) {
        return None;
    }
    (invariant(&bound, written) && invariant(&step, written)).then(|| Header { at, want: true, i, bound, exit: if_false.0 as usize, ty: Type::U64 })
}

/// A `for` loop as the lowering writes it: the header only jumps into the body, the one latch
/// advances the counter and tests `i < bound`, and the block that enters the loop tests the
/// first trip (`start < bound`, with `i` set to `start` there) and otherwise skips to the same
/// exit. Returns the latch's test, the latch, and the guard (its block and its `setp`).
///
/// With `ranges`, the latch may be an unsigned `step_by` loop's (`stepped_test`).
fn rotated_test(func: &Func, cfg: &Cfg, l: &Loop, written: &[bool], ranges: Option<&Ranges>) -> Option<(Header, usize, (usize, usize))> {
    let [latch] = l.latches[..] else { return None };
    if latch == l.header || !matches!(func.blocks[l.header].term, Term::Jump(_)) {
        return None;
    }
    let h = match ranges {
        None => branch_test(func, latch, l, written)?,
        Some(ranges) => stepped_test(func, latch, l, written, ranges)?,
    };
    // The counter is written in the latch only (by the increment before the test).
    let writes_i = |b: usize| func.blocks[b].insts.iter().any(|x| x.defs().contains(&h.i));
    if (0..func.blocks.len()).any(|b| l.contains(b) && b != latch && writes_i(b)) {
        return None;
    }
    let [pre] = l.entries(cfg)[..] else { return None };
    let Term::Branch { pred: g, negate, if_true, if_false } = func.blocks[pre].term else { return None };
    let (t, f) = (if_true.0 as usize, if_false.0 as usize);
    let want = match (t, f) {
        (t, f) if t == l.header && f == h.exit => !negate,
        (t, f) if f == l.header && t == h.exit => negate,
        _ => return None,
    };
    let insts = &func.blocks[pre].insts;
    let gs = insts.iter().rposition(|i| i.defs().contains(&g))?;
    let InstKind::Op { opcode: Opcode::Setp(cmp, ty), args, .. } = &insts[gs].kind else { return None };
    if insts[gs].guard.is_some() || args.len() != 3 || *ty != h.ty {
        return None;
    }
    let (start, bound) = match if want { *cmp } else { cmp.negated() } {
        Cmp::Lt => (&args[1], &args[2]),
        Cmp::Gt => (&args[2], &args[1]),
        _ => return None,
    };
    if !same_arg(bound, &h.bound) {
        return None;
    }
    // When the guard skips the loop, `i` holds the `start` it compared: the exit's test of
    // `i < bound` then asks what the guard asked.
    let last_i = insts.iter().rposition(|x| x.defs().contains(&h.i));
    // `i`'s last write copies `start` (`mov i, start`).
    let copies_start = |d: usize| matches!(&insts[d].kind, InstKind::Op { opcode: Opcode::Mov(_), args: m, .. } if insts[d].guard.is_none() && m.len() == 2 && same_arg(&m[1], start));
    let starts_i = match (start, last_i) {
        (Arg::Reg(r), None) => *r == h.i,
        // `i` set to the compared register after the test (`setp p, s, b; mov i, s`), which
        // nothing writes in between.
        (Arg::Reg(r), Some(d)) if d > gs => copies_start(d) && !insts[gs..d].iter().any(|x| x.defs().contains(r)),
        (Arg::Reg(r), Some(d)) => *r == h.i && d < gs,
        (Arg::Imm(Imm::Int(_)), Some(d)) => copies_start(d),
        _ => false,
    };
    starts_i.then_some((h, latch, (pre, gs)))
}

fn fold_loop(func: &mut Func, cfg: &Cfg, l: &Loop, others: &[Loop]) {
    let in_loop: Vec<usize> = (0..func.blocks.len()).filter(|&b| l.contains(b)).collect();
    let mut written = vec![false; func.regs.len()];
    for &b in &in_loop {
        for r in func.blocks[b].insts.iter().flat_map(|i| i.defs()) {
            written[r.0 as usize] = true;
        }
    }
    let mut ranges = None;
    let (h, test_block, guard) = match branch_test(func, l.header, l, &written) {
        Some(h) => (h, l.header, None),
        None => match rotated_test(func, cfg, l, &written, None) {
            Some((h, latch, guard)) => (h, latch, Some(guard)),
            None if and_latch(func, l) => {
                let r = ranges.insert(Ranges::compute(func));
                match rotated_test(func, cfg, l, &written, Some(r)) {
                    Some((h, latch, guard)) => (h, latch, Some(guard)),
                    None => return,
                }
            }
            None => return,
        },
    };
    // A loop to a constant (`while b < 256 { local[b] = 0; b += threads }`) makes a few trips
    // per thread: a fold would cost more than it saves (see the module documentation).
    if matches!(h.bound, Arg::Imm(_)) {
        return;
    }
    let [pre] = l.entries(cfg)[..] else { return };
    if others.iter().any(|o| o.header != l.header && l.contains(o.header)) {
        return;
    }
    for &b in &in_loop {
        let block = &func.blocks[b];
        if block.insts.iter().any(|i| matches!(i.kind, InstKind::Call { .. } | InstKind::Asm { .. } | InstKind::Raw(_))) {
            return;
        }
        let leaves = block.term.successors().into_iter().map(|s| s.0 as usize).any(|s| !l.contains(s) && !(b == test_block && s == h.exit) && !failure(func, s));
        if leaves {
            return;
        }
    }

    // The trip's straight path from the header, and the checks on it that fold.
    let (def_count, def_site) = single_defs(func);
    let ranges = ranges.unwrap_or_else(|| Ranges::compute(func));
    // A 32-bit bound is below 2^32 whatever the ranges know of it.
    let widest = Range { lo: 0, hi: u64::MAX >> (64 - h.ty.bits()) };
    let trips = ranges.of(&h.bound, h.ty.bits()).unwrap_or(widest);
    let mut checks: Vec<Check> = Vec::new();
    let mut dropped: Vec<usize> = Vec::new();
    let mut i_written = false;
    let mut spine: Vec<usize> = Vec::new();
    let (mut prev, mut b) = (l.header, stay(func, l));
    while l.contains(b) && b != l.header && cfg.preds[b] == [prev] {
        let block = &func.blocks[b];
        let next = match block.term {
            Term::Jump(t) => t.0 as usize,
            Term::Branch { pred, negate: false, if_true, if_false } if failure(func, if_true.0 as usize) => {
                let Some(check) = foldable(func, b, pred, if_true.0 as usize, &h, &spine, &written, &def_count, &def_site, &ranges, trips) else { break };
                let Some(&(_, at)) = def_site.get(&pred) else { break };
                if i_written || block.insts[..at].iter().any(|x| x.defs().contains(&h.i)) {
                    break;
                }
                if checks.iter().any(|c| c.same_as(&check)) {
                    dropped.push(b);
                } else {
                    checks.push(check);
                }
                if_false.0 as usize
            }
            _ => break,
        };
        i_written |= block.insts.iter().any(|x| x.defs().contains(&h.i));
        spine.push(b);
        prev = b;
        b = next;
    }
    if checks.is_empty() {
        return;
    }

    // Before the loop: the least of the loop's bound and each check's bound on `i`. Checks
    // with one base share the subtraction: `min(len_1, len_2)` less the base.
    let loc = checks[0].setp.loc;
    let mut pre_insts: Vec<Inst> = Vec::new();
    let mut bound = h.bound.clone();
    let mut bases: Vec<Option<Arg>> = Vec::new();
    // A 32-bit counter's bound is widened, and the least (below it) narrowed again: exact.
    let narrow = h.ty == Type::U32;
    if narrow {
        let wide = func.fresh(RegClass::B64);
        pre_insts.push(Inst::op(Opcode::Cvt(Mode::None, Type::U64, Type::U32), 1, vec![Arg::Reg(wide), bound]));
        bound = Arg::Reg(wide);
    }
    for c in &checks {
        let base = c.index.base();
        if !bases.iter().any(|b| same_base(b, &base)) {
            bases.push(base);
        }
    }
    for base in &bases {
        let mut len: Option<Arg> = None;
        for c in checks.iter().filter(|c| same_base(&c.index.base(), base)) {
            len = Some(match len {
                None => c.len.clone(),
                Some(l) => least(func, &mut pre_insts, l, c.len.clone()),
            });
        }
        let Some(len) = len else { continue };
        let limit = match (base, &len) {
            (None, _) => len,
            (Some(Arg::Imm(Imm::Int(k))), Arg::Imm(Imm::Int(n))) => Arg::imm((*n as u64).saturating_sub(*k as u64) as i64),
            (Some(base), _) => {
                let (top, limit) = (func.fresh(RegClass::B64), func.fresh(RegClass::B64));
                let (a, b) = if matches!(len, Arg::Imm(_)) { (base.clone(), len) } else { (len, base.clone()) };
                pre_insts.push(Inst::op(Opcode::arith(Arith::Max, Type::U64), 1, vec![Arg::Reg(top), a, b]));
                pre_insts.push(Inst::op(Opcode::arith(Arith::Sub, Type::S64), 1, vec![Arg::Reg(limit), Arg::Reg(top), base.clone()]));
                Arg::Reg(limit)
            }
        };
        bound = least(func, &mut pre_insts, bound, limit);
    }
    if narrow {
        let least32 = func.fresh(RegClass::B32);
        pre_insts.push(Inst::op(Opcode::Cvt(Mode::None, Type::U32, Type::U64), 1, vec![Arg::Reg(least32), bound]));
        bound = Arg::Reg(least32);
    } else if trips.hi <= u32::MAX as u64 && matches!((&bound, &h.bound), (Arg::Reg(m), b) if !matches!(b, Arg::Reg(x) if x == m)) {
        // The least is at most the loop's bound, below 2^32 (softmax's `j < n`, `n` a widened
        // `u32`): narrowed and widened again, exact, so that ptxas sees its high half is zero
        // and keeps one register live across the loop instead of two.
        let (least32, wide) = (func.fresh(RegClass::B32), func.fresh(RegClass::B64));
        pre_insts.push(Inst::op(Opcode::Cvt(Mode::None, Type::U32, Type::U64), 1, vec![Arg::Reg(least32), bound]));
        pre_insts.push(Inst::op(Opcode::Cvt(Mode::None, Type::U64, Type::U32), 1, vec![Arg::Reg(wide), Arg::Reg(least32)]));
        bound = Arg::Reg(wide);
    }
    let pre_insts: Vec<Inst> = pre_insts.into_iter().map(|i| i.at(loc)).collect();
    match guard {
        // The least bound is computed before the guard, which tests the first trip against it:
        // what it reads must be written before that point.
        Some((pre, gs)) => {
            let ready = |r: &Reg| match def_site.get(r) {
                Some(&(db, di)) => (db == pre && di < gs) || (db != pre && cfg.dominates(db, pre)),
                None => false,
            };
            let reads = pre_insts.iter().flat_map(|i| match &i.kind {
                InstKind::Op { defs, args, .. } => args[*defs..].to_vec(),
                _ => Vec::new(),
            });
            let computed: Vec<Reg> = pre_insts.iter().flat_map(|i| i.defs()).collect();
            if !reads.filter_map(|a| if let Arg::Reg(r) = a { Some(r) } else { None }).all(|r| computed.contains(&r) || ready(&r)) {
                return;
            }
            let n = pre_insts.len();
            func.blocks[pre].insts.splice(gs..gs, pre_insts);
            retest(func, pre, gs + n, &h.bound, &bound);
        }
        None if matches!(func.blocks[pre].term, Term::Jump(t) if t.0 as usize == l.header) => func.blocks[pre].insts.extend(pre_insts),
        None => {
            let p = func.blocks.len();
            func.blocks.push(Block { insts: pre_insts, term: Term::Jump(BlockId(l.header as u32)), term_loc: None });
            retarget(&mut func.blocks[pre].term, l.header, p);
        }
    }

    // The loop's test compares `i` with the least bound instead (a `step_by` loop's latch
    // branches on that comparison alone: see `stepped_test`).
    let old = func.blocks[test_block].insts[h.at].clone();
    retest(func, test_block, h.at, &h.bound, &bound);

    // The checks leave the loop.
    for c in &checks {
        if let Term::Branch { if_false, .. } = func.blocks[c.block].term {
            func.blocks[c.block].term = Term::Jump(if_false);
        }
    }
    for &d in &dropped {
        if let Term::Branch { if_false, .. } = func.blocks[d].term {
            func.blocks[d].term = Term::Jump(if_false);
        }
    }

    // After the loop, a block tests whether Rust would have run another trip, and if so goes
    // to the report chain. Where the exit block is entered only from the header, that block
    // becomes the test and its code moves to a new block (so that the code after the loop
    // still follows it in the layout); otherwise the test is a new block on the exit edge.
    let exit = h.exit;
    let exit_test = if guard.is_none() && cfg.preds[exit] == [l.header] {
        let moved = func.blocks.len();
        let old_exit = std::mem::replace(&mut func.blocks[exit], Block { insts: Vec::new(), term: Term::Open, term_loc: None });
        func.blocks.push(old_exit);
        let renamed = |b: &mut BlockId| {
            if b.0 as usize == exit {
                *b = BlockId(moved as u32);
            }
        };
        func.entry_facts.iter_mut().for_each(|f| renamed(&mut f.block));
        func.for_loops.iter_mut().for_each(|f| {
            renamed(&mut f.next);
            renamed(&mut f.exit);
        });
        (exit, moved)
    } else {
        let e = func.blocks.len();
        func.blocks.push(Block { insts: Vec::new(), term: Term::Open, term_loc: None });
        retarget(&mut func.blocks[test_block].term, exit, e);
        if let Some((pre, _)) = guard {
            retarget(&mut func.blocks[pre].term, exit, e);
        }
        (e, exit)
    };
    let (t, after) = exit_test;
    let r = func.fresh(RegClass::Pred);
    let mut again = old;
    if let InstKind::Op { args, .. } = &mut again.kind {
        args[0] = Arg::Reg(r);
    }
    let chain = report_chain(func, &checks, h.i, &def_count, &def_site);
    func.blocks[t] = Block {
        insts: vec![again.at(loc)],
        term: Term::Branch { pred: r, negate: !h.want, if_true: BlockId(chain as u32), if_false: BlockId(after as u32) },
        term_loc: func.blocks[checks[0].block].term_loc,
    };
}

/// The `setp` at `at` in `block`, whose predicate the block's branch reads, compared again with
/// `bound` in place of `old` into a new predicate the branch reads instead (the old `setp`
/// stays for whatever else reads it).
fn retest(func: &mut Func, block: usize, at: usize, old: &Arg, bound: &Arg) {
    let q = compare_again(func, block, at, old, bound);
    if let Term::Branch { pred, .. } = &mut func.blocks[block].term {
        *pred = q;
    }
}

/// The `setp` at `at` in `block` with `bound` in place of `old`, into a new predicate, inserted
/// after it.
fn compare_again(func: &mut Func, block: usize, at: usize, old: &Arg, bound: &Arg) -> Reg {
    let mut test = func.blocks[block].insts[at].clone();
    let q = func.fresh(RegClass::Pred);
    if let InstKind::Op { args, .. } = &mut test.kind {
        args[0] = Arg::Reg(q);
        for a in &mut args[1..] {
            if same_arg(a, old) {
                *a = bound.clone();
            }
        }
    }
    func.blocks[block].insts.insert(at + 1, test);
    q
}

/// The header's successor in the loop.
fn stay(func: &Func, l: &Loop) -> usize {
    func.blocks[l.header].term.successors().into_iter().map(|s| s.0 as usize).find(|&s| l.contains(s)).unwrap_or(l.header)
}

/// The check `block` ends with, where it folds: `setp.ge.u64 pred, idx, len` in the block,
/// `len` not written in the loop, `idx` the header's `i` or `base + i` proved not to wrap,
/// computed on the trip's path before the check (`spine`: the blocks before `block`, which do
/// not write `i`).
#[allow(clippy::too_many_arguments)]
fn foldable(func: &Func, block: usize, pred: Reg, stub: usize, h: &Header, spine: &[usize], written: &[bool], def_count: &[usize], def_site: &super::hoist::DefSites, ranges: &Ranges, trips: Range) -> Option<Check> {
    if def_count[pred.0 as usize] != 1 {
        return None;
    }
    let &(b, at) = def_site.get(&pred)?;
    let setp = &func.blocks[b].insts[at];
    let InstKind::Op { opcode: Opcode::Setp(Cmp::Ge, Type::U64), args, .. } = &setp.kind else { return None };
    if b != block || setp.guard.is_some() || args.len() != 3 {
        return None;
    }
    let invariant = |a: &Arg| invariant(a, written);
    let len = args[2].clone();
    if !invariant(&len) {
        return None;
    }
    let Arg::Reg(idx) = args[1] else { return None };
    let check = |index| Some(Check { block, stub, setp: setp.clone(), len: len.clone(), index });
    if idx == h.i {
        return check(Index::Counter(None));
    }
    // The single, unguarded instruction that writes `r` on the trip's path before the check.
    let def_before = |r: Reg| {
        if def_count[r.0 as usize] != 1 {
            return None;
        }
        let &(db, di) = def_site.get(&r)?;
        let def = &func.blocks[db].insts[di];
        let InstKind::Op { opcode, args, .. } = &def.kind else { return None };
        (def.guard.is_none() && args.len() >= 2 && (spine.contains(&db) || (db == block && di < at))).then_some((def, opcode, args))
    };
    // `a` as the counter: `i` itself, or (for a 32-bit counter) its widening.
    let counter = |a: &Arg| -> Option<Option<Reg>> {
        let Arg::Reg(r) = *a else { return None };
        match h.ty {
            Type::U32 => match def_before(r)? {
                (_, Opcode::Cvt(Mode::None, Type::U64, Type::U32), args) if same_arg(&args[1], &Arg::Reg(h.i)) => Some(Some(r)),
                _ => None,
            },
            _ => (r == h.i).then_some(None),
        }
    };
    if let Some(widen @ Some(_)) = counter(&args[1]) {
        return check(Index::Counter(widen));
    }
    let (def, opcode, dargs) = def_before(idx)?;
    match opcode {
        Opcode::Mov(t) if t.bits() == 64 && dargs.len() == 2 && h.ty == Type::U64 && counter(&dargs[1]).is_some() => check(Index::Counter(None)),
        Opcode::Arith(Arith::Add, Mode::None, Type::U64 | Type::S64 | Type::B64) if dargs.len() == 3 => {
            let (base, widen) = match (counter(&dargs[1]), counter(&dargs[2])) {
                (Some(w), _) => (&dargs[2], w),
                (_, Some(w)) => (&dargs[1], w),
                _ => return None,
            };
            if !invariant(base) || trips.hi == 0 {
                return None;
            }
            // On a trip, `i < bound`: the sum is exact if `base + (bound - 1)` is.
            let base_range = ranges.of(base, 64)?;
            base_range.hi.checked_add(trips.hi - 1)?;
            check(Index::Offset { add: def.clone(), base: base.clone(), widen })
        }
        _ => None,
    }
}

/// The failure after the loop: each check's comparison again, at the value `i` left the loop
/// with, in the source's order; the first that fails is reported (the last needs no test: one
/// of them fails). Returns the chain's first block.
fn report_chain(func: &mut Func, checks: &[Check], i: Reg, def_count: &[usize], def_site: &super::hoist::DefSites) -> usize {
    let start = func.blocks.len();
    let Some((last, tested)) = checks.split_last() else { unreachable!("a fold has a check") };
    // Checks that all report one failure (one message, one line) need no test to tell which.
    if tested.iter().all(|c| same_failure(func, c.stub, last.stub)) {
        return last.stub;
    }
    for (k, c) in tested.iter().enumerate() {
        let mut insts = Vec::new();
        // A 32-bit counter widened again, into a fresh register.
        let mut widen = |insts: &mut Vec<Inst>| {
            let d = func.fresh(RegClass::B64);
            insts.push(Inst::op(Opcode::Cvt(Mode::None, Type::U64, Type::U32), 1, vec![Arg::Reg(d), Arg::Reg(i)]).at(c.setp.loc));
            d
        };
        let idx = match &c.index {
            Index::Counter(None) => Arg::Reg(i),
            Index::Counter(Some(_)) => Arg::Reg(widen(&mut insts)),
            Index::Offset { add, base, widen: w } => {
                let widened = w.map(|w| (w, widen(&mut insts)));
                let mut add = add.clone();
                let d = func.fresh(RegClass::B64);
                // The base computed again here where it can be (softmax's `row * n`): otherwise
                // it stays live across the loop for this test only (4 registers on sm_90).
                let mut budget = REMAT_BUDGET;
                let again = match base {
                    Arg::Reg(b) => rematerialize(func, def_count, def_site, *b, &mut insts, &mut budget),
                    _ => None,
                };
                if let InstKind::Op { args, .. } = &mut add.kind {
                    args[0] = Arg::Reg(d);
                    for a in &mut args[1..] {
                        match (again, widened) {
                            (Some(again), _) if same_arg(a, base) => *a = Arg::Reg(again),
                            (_, Some((w, d))) if matches!(a, Arg::Reg(r) if *r == w) => *a = Arg::Reg(d),
                            _ => {}
                        }
                    }
                }
                insts.push(add);
                Arg::Reg(d)
            }
        };
        let p = func.fresh(RegClass::Pred);
        let mut setp = c.setp.clone();
        if let InstKind::Op { args, .. } = &mut setp.kind {
            args[0] = Arg::Reg(p);
            args[1] = idx;
        }
        insts.push(setp);
        let term = Term::Branch { pred: p, negate: false, if_true: BlockId(c.stub as u32), if_false: BlockId((start + k + 1) as u32) };
        func.blocks.push(Block { insts, term, term_loc: func.blocks[c.block].term_loc });
    }
    func.blocks.push(Block { insts: Vec::new(), term: Term::Jump(BlockId(last.stub as u32)), term_loc: None });
    start
}

/// At most this many instructions are copied to compute a base again.
const REMAT_BUDGET: usize = 8;

/// `r` computed again, into fresh registers appended to `out`, from what a thread never sees
/// change (immediates, its parameters, its thread and block indices and sizes) by unguarded
/// pure instructions, each register on the way written once: the copy has `r`'s value wherever
/// `r` has been written. `None` where `r` rests on anything else or takes more than `budget`
/// instructions.
fn rematerialize(func: &mut Func, def_count: &[usize], def_site: &super::hoist::DefSites, r: Reg, out: &mut Vec<Inst>, budget: &mut usize) -> Option<Reg> {
    if def_count.get(r.0 as usize) != Some(&1) || *budget == 0 {
        return None;
    }
    let &(b, i) = def_site.get(&r)?;
    let mut copy = func.blocks[b].insts[i].clone();
    let InstKind::Op { opcode, defs: 1, args } = &mut copy.kind else { return None };
    let constant_space = !matches!(opcode, Opcode::Ld(m) if m.space != StateSpace::Param);
    if copy.guard.is_some() || !opcode.is_pure() || !constant_space {
        return None;
    }
    *budget -= 1;
    for a in &mut args[1..] {
        match a {
            Arg::Imm(_) | Arg::Sym(Sym::Param(_)) => {}
            Arg::Sym(Sym::Named(n)) if is_thread_constant(n) => {}
            Arg::Mem { base, .. } if matches!(**base, Arg::Sym(Sym::Param(_))) => {}
            Arg::Reg(x) => *a = Arg::Reg(rematerialize(func, def_count, def_site, *x, out, budget)?),
            _ => return None,
        }
    }
    let d = func.fresh(func.class(r));
    args[0] = Arg::Reg(d);
    out.push(copy);
    Some(d)
}

/// Special registers whose value a thread never sees change.
fn is_thread_constant(name: &str) -> bool {
    ["%tid.", "%ntid.", "%ctaid.", "%nctaid."].iter().any(|p| name.starts_with(p)) || name == "%laneid"
}

/// `min.u64` of two bounds (computed here when both are constants).
fn least(func: &mut Func, out: &mut Vec<Inst>, a: Arg, b: Arg) -> Arg {
    match (&a, &b) {
        (Arg::Imm(Imm::Int(x)), Arg::Imm(Imm::Int(y))) => Arg::imm((*x as u64).min(*y as u64) as i64),
        _ => {
            let m = func.fresh(RegClass::B64);
            // The immediate second, as nvcc writes it.
            let (a, b) = if matches!(a, Arg::Imm(_)) { (b, a) } else { (a, b) };
            out.push(Inst::op(Opcode::arith(Arith::Min, Type::U64), 1, vec![Arg::Reg(m), a, b]));
            Arg::Reg(m)
        }
    }
}

fn retarget(term: &mut Term, from: usize, to: usize) {
    let fix = |b: &mut BlockId| {
        if b.0 as usize == from {
            *b = BlockId(to as u32);
        }
    };
    match term {
        Term::Jump(b) => fix(b),
        Term::Branch { if_true, if_false, .. } => {
            fix(if_true);
            fix(if_false);
        }
        _ => {}
    }
}

