//! Value ranges under an assumption about the constants the macro cannot see: a module-level
//! `const` (`T`, `TILE`) reaches the PTX as a piece, a number rustc writes. `ir::range` gives a
//! piece no range, so `(ty + j) * (T + 1) + tx` has none, although with `T = 32` it is below
//! 2^32 by far. Here every integer piece is taken to lie in `1..=bound`, and the ranges follow
//! as `ir::range` computes them (through the registers written once), plus those of `for`
//! loop counters whose end has a range.
//!
//! What is decided from these ranges holds only where the assumption does: a pass that uses
//! them enters the code that relies on them under [`guard`], a test of the pieces that rustc
//! evaluates to 1 or 0 ([`super::folded`]'s kind, which ptxas folds at once), with the code as
//! it was for the other case. So the result is exact for every value of the constants.
//!
//! A counter `k` of a `for` loop counting up to an excluded end (`k < end` when the loop's
//! header is entered: `Func::entry_facts`, or the test that ends a trip) gets the range `start..=end - 1 + step` where every write of `k` is a constant
//! start (`mov k, c`) or an advance by a constant step (`add k, k, s`) in the block that
//! advances a `for` loop (`Func::for_loops`: the counter is written nowhere else, and that block
//! is reached only from a trip, entered with `k < end`): before an advance `k <= end - 1`,
//! after it `k <= end - 1 + s`. A `step_by` whose advance would wrap ends the loop, and leaves
//! `k` at what the advance wrote, below `s`: in the range too.

use super::range::{Range, Ranges};
use super::{Arg, Arith, Func, Imm, InstKind, Opcode, Reg, Sym};
use proc_macro2::TokenStream;
use quote::quote;
use super::fast_hash::{HashMap, HashSet};

/// The ranges of the registers written once (and of `for` loop counters) when every integer
/// piece lies in `1..=bound`.
pub fn assuming(func: &Func, bound: u64) -> Ranges {
    let piece = piece_reg(func);
    let mut ranges = Ranges::default();
    ranges.set(piece, Range { lo: 1, hi: bound });
    let defs = super::range::def_counts(func);
    let as_reg = |a: &Arg| match a {
        Arg::Sym(Sym::Piece(_)) => Arg::Reg(piece),
        _ => a.clone(),
    };
    let mut counters: HashSet<Reg> = HashSet::default();
    for _ in 0..3 {
        // `ir::range`'s rules, with each piece read as a register of the assumed range.
        loop {
            let mut changed = false;
            for inst in func.blocks.iter().flat_map(|b| &b.insts) {
                let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { continue };
                let Some(Arg::Reg(d)) = args.first() else { continue };
                if inst.guard.is_some() || defs.get(d.0 as usize) != Some(&1) || ranges.of(&Arg::Reg(*d), 64).is_some() {
                    continue;
                }
                // Copied only where a piece is read (most instructions read none).
                let pieces = args[1..].iter().any(|a| matches!(a, Arg::Sym(Sym::Piece(_))));
                let copied: Vec<Arg>;
                let src = if pieces {
                    copied = args[1..].iter().map(as_reg).collect();
                    &copied[..]
                } else {
                    &args[1..]
                };
                if let Some(r) = ranges.of_op(*opcode, src, &func.launch) {
                    ranges.set(*d, r);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let before = counters.len();
        let loops = for_counters(func);
        for &(k, _, _) in &loops {
            if counters.contains(&k) {
                continue;
            }
            // The largest end of the loops that count with `k`.
            let mut end = Range { lo: 0, hi: 0 };
            for (_, e, bits) in loops.iter().filter(|l| l.0 == k) {
                match ranges.of(&as_reg(e), *bits) {
                    Some(r) => end.hi = end.hi.max(r.hi),
                    None => {
                        end.hi = u64::MAX;
                        break;
                    }
                }
            }
            if end.hi == u64::MAX {
                continue;
            }
            if let Some(r) = counter_range(func, k, end, &defs) {
                ranges.set(k, r);
                counters.insert(k);
            }
        }
        if counters.len() == before {
            break;
        }
    }
    ranges
}

/// The register that stands for every piece in the ranges of [`assuming`] (one past the
/// function's registers when they were computed).
pub fn piece_reg(func: &Func) -> Reg {
    Reg(func.regs.len() as u32)
}

/// The counters of `for` loops counting up to an excluded end, each with its end and the
/// compare's width: from `Func::entry_facts`, and from the test that ends a trip in the block
/// that advances the loop (`k < end`, or `k < end && k >= step` for an unsigned `step_by`),
/// which the lowering writes only for such loops, whose header is entered with `k < end`.
fn for_counters(func: &Func) -> Vec<(Reg, Arg, u32)> {
    let mut out: Vec<(Reg, Arg, u32)> = func.entry_facts.iter().filter(|f| !f.ty.is_signed() && !f.ty.is_float()).map(|f| (f.reg, f.bound.clone(), f.ty.bits())).collect();
    for f in &func.for_loops {
        let block = &func.blocks[f.next.0 as usize];
        let super::Term::Branch { pred, negate: false, .. } = block.term else { continue };
        let def = |p: Reg| block.insts.iter().rev().find(|i| i.defs().contains(&p)).filter(|i| i.guard.is_none());
        let mut cands = vec![pred];
        if let Some(InstKind::Op { opcode: Opcode::Arith(Arith::And, _, super::Type::Pred), args, .. }) = def(pred).map(|i| &i.kind) {
            cands.extend(args[1..].iter().filter_map(|a| if let Arg::Reg(r) = a { Some(*r) } else { None }));
        }
        for c in cands {
            if let Some(InstKind::Op { opcode: Opcode::Setp(super::Cmp::Lt, t), args, .. }) = def(c).map(|i| &i.kind) {
                if let [_, Arg::Reg(k), end] = &args[..] {
                    if !t.is_signed() && !t.is_float() {
                        out.push((*k, end.clone(), t.bits()));
                    }
                }
            }
        }
    }
    out
}

/// The range of the counter `k` of a `for` loop with the end's range `end`, where its writes
/// are a constant start and advances by a constant step in a loop's advancing block.
fn counter_range(func: &Func, k: Reg, end: Range, defs: &[u32]) -> Option<Range> {
    let advancing: Vec<usize> = func.for_loops.iter().map(|f| f.next.0 as usize).collect();
    let (mut lo, mut hi, mut step) = (u64::MAX, 0u64, 0u64);
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if !inst.defs().contains(&k) {
                continue;
            }
            // An advance by a constant step, only in the advancing block.
            if let Some(s) = super::trips::advance(func, defs, b, i, k) {
                if !advancing.contains(&b) {
                    return None;
                }
                step = step.max(s);
                continue;
            }
            match (&inst.kind, inst.guard) {
                (InstKind::Op { opcode: Opcode::Mov(_), defs: 1, args }, None) => match args[1] {
                    Arg::Imm(Imm::Int(c)) => {
                        lo = lo.min(c as u64);
                        hi = hi.max(c as u64);
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
    }
    if lo > hi {
        return None;
    }
    if end.hi > 0 && step > 0 {
        hi = hi.max(end.hi.checked_add(step - 1)?);
    }
    Some(Range { lo, hi })
}

/// Where the registers are written and which `for` counters end where: built once per
/// function, then asked for the pieces of each compare's operands.
pub struct Pieces {
    site: HashMap<Reg, Vec<(usize, usize)>>,
    loops: Vec<(Reg, Arg, u32)>,
}

impl Pieces {
    pub fn new(func: &Func) -> Pieces {
        let mut site: HashMap<Reg, Vec<(usize, usize)>> = HashMap::default();
        for (b, block) in func.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                for r in inst.defs() {
                    site.entry(r).or_default().push((b, i));
                }
            }
        }
        Pieces { site, loops: for_counters(func) }
    }

    /// The pieces that the ranges of `args` rest on: those read by the instructions their
    /// registers are computed by, through registers written once and counters' starts and ends.
    pub fn of<'a>(&'a self, func: &'a Func, args: &'a [Arg]) -> Vec<TokenStream> {
        let mut seen: HashSet<Reg> = HashSet::default();
        // By reference until the end: a token stream's clone is a call into the compiler.
        let mut out: Vec<&TokenStream> = Vec::new();
        let mut stack: Vec<&Arg> = args.iter().collect();
        while let Some(a) = stack.pop() {
            match a {
                Arg::Sym(Sym::Piece(p)) => out.push(p),
                Arg::Reg(r) if seen.insert(*r) => {
                    for &(b, i) in self.site.get(r).into_iter().flatten() {
                        if let InstKind::Op { args, defs, .. } = &func.blocks[b].insts[i].kind {
                            stack.extend(&args[*defs..]);
                        }
                    }
                    stack.extend(self.loops.iter().filter(|l| l.0 == *r).map(|l| &l.1));
                }
                _ => {}
            }
        }
        // Each once, by text: made only where there are two or more (each `to_string` is a
        // call into the compiler too).
        if out.len() > 1 {
            let mut keys: HashSet<String> = HashSet::default();
            out.retain(|p| keys.insert(p.to_string()));
        }
        out.into_iter().cloned().collect()
    }
}

/// The test that the assumption of [`assuming`] holds for `pieces`: a piece rustc evaluates to
/// 1 where each is a number in `1..=bound`, else to 0.
pub fn guard(pieces: &[TokenStream], bound: u64) -> Arg {
    Arg::Sym(Sym::Piece(quote!(::ptx_runtime::__private::const_test::outcome(
        ::ptx_runtime::__private::const_test::all_within(&[#(#pieces),*], 1, #bound)
    ))))
}
