//! 64-bit comparisons that constants from outside the body make 32-bit or decide, under a test
//! of those constants that ptxas folds.
//!
//! The transpose's tile index `(ty + j) * (T + 1) + tx`, compared with the tile's 1056
//! elements, is a `usize`: 64-bit arithmetic and a 64-bit compare, where nvcc (and ptxas, given
//! 32-bit arithmetic) compares 32 bits. With `T` a piece (a module-level `const`), the macro
//! cannot show that the index is below 2^32; under the assumption that every piece lies in
//! `1..=bound` ([`super::const_range`]) it can. A `setp.<cmp>.u64 p, a, b` whose operands are
//! below 2^32 under the assumption is then also
//!
//! ```text
//! setp.<cmp>.u32  p32, lo(a), lo(b)      // lo: ir::narrow's low halves, exact for any value
//! setp.ne.u32     g, G, 0                // G: a piece, 1 where the pieces are in 1..=bound
//! p = g ? p32 : p64                      // p64: the 64-bit compare as it was
//! ```
//!
//! and one whose outcome the assumed ranges decide (`v`) is `p = g ? v : p64`. The 64-bit
//! compare of two values below 2^32 is the compare of their low halves, so `p` is what it was
//! whatever the constants are. `g` compares two immediates once rustc has written `G`: ptxas
//! folds it before anything else, and keeps one version (the 64-bit arithmetic that only
//! `p64` read is then dead). Each compare tries the bounds of [`BOUNDS`], largest first, and
//! uses the first that proves it, so a kernel with larger constants still gets the guard
//! that holds for it.
//!
//! It runs after `ir::narrow` (whose choice of what to narrow counts the 64-bit compares as
//! they were) and only on compares that the ranges without the assumption do not decide
//! (`ir::bce` has done those).

use super::const_range;
use super::range::Ranges;
use super::{Arg, Arith, Cmp, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Sym, Term, Type};
use std::collections::{HashMap, HashSet};

/// The bounds assumed for the pieces, tried in this order.
const BOUNDS: [u64; 4] = [1 << 20, 1 << 16, 1 << 12, 1 << 8];

pub fn run(func: &mut Func) {
    let exact = Ranges::compute(func);
    let assumed: Vec<(u64, Ranges)> = BOUNDS.iter().map(|&b| (b, const_range::assuming(func, b))).collect();
    let piece = const_range::piece_reg(func);
    let as_reg = |a: &Arg| match a {
        Arg::Sym(Sym::Piece(_)) => Arg::Reg(piece),
        _ => a.clone(),
    };
    let mut uses: HashMap<Reg, usize> = HashMap::new();
    let mut widened: HashSet<Reg> = HashSet::new();
    for block in &func.blocks {
        for inst in &block.insts {
            for r in inst.uses() {
                *uses.entry(r).or_insert(0) += 1;
            }
            if let (InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U64, Type::U32), args, .. }, None) = (&inst.kind, inst.guard) {
                if let Arg::Reg(d) = args[0] {
                    widened.insert(d);
                }
            }
        }
        if let Term::Branch { pred, .. } = block.term {
            *uses.entry(pred).or_insert(0) += 1;
        }
    }
    // An operand whose low half costs nothing beside its 64-bit value, or whose 64-bit value
    // only this compare reads (it is then computed in 32 bits alone); else narrowing computes
    // both widths, which pays only in a loop (measured: the transpose's `y < h` in its two
    // unrolled loops, 214 -> 206 SASS instructions on sm_80; the matmul's `row < n` before
    // its loop, 209 -> 216).
    let cfg = super::dom::Cfg::new(func);
    let loops = cfg.loops();
    let in_loop = |b: usize| loops.iter().any(|l| l.contains(b));
    let cheap = |a: &Arg| match a {
        Arg::Reg(r) => uses.get(r) == Some(&1) || widened.contains(r),
        _ => true,
    };
    // The compares to rewrite, found first, rewritten from the last (positions stay valid).
    let mut sites: Vec<(usize, usize, u64, Outcome)> = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let Some((cmp, x, y)) = compare(inst) else { continue };
            if exact.decide(cmp, Type::U64, &x, &y).is_some() {
                continue;
            }
            let (xr, yr) = (as_reg(&x), as_reg(&y));
            let found = assumed.iter().find_map(|(bound, r)| {
                if let Some(v) = r.decide(cmp, Type::U64, &xr, &yr) {
                    return Some((*bound, Outcome::Decided(v)));
                }
                let below = |a: &Arg| r.of(a, 64).is_some_and(|r| r.hi <= u32::MAX as u64);
                (below(&xr) && below(&yr) && (in_loop(b) || (cheap(&x) && cheap(&y)))).then_some((*bound, Outcome::Narrow))
            });
            if let Some((bound, o)) = found {
                sites.push((b, i, bound, o));
            }
        }
    }
    for (b, i, bound, outcome) in sites.into_iter().rev() {
        rewrite(func, b, i, bound, outcome);
    }
}

#[derive(Clone, Copy)]
enum Outcome {
    Decided(bool),
    Narrow,
}

/// An unguarded `setp.<cmp>.u64 p, a, b` (integer order, unsigned).
fn compare(inst: &Inst) -> Option<(Cmp, Arg, Arg)> {
    let InstKind::Op { opcode: Opcode::Setp(cmp, Type::U64), defs: 1, args } = &inst.kind else { return None };
    if inst.guard.is_some() || args.len() != 3 || !matches!(cmp, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge) {
        return None;
    }
    let operand = |a: &Arg| matches!(a, Arg::Reg(_) | Arg::Imm(Imm::Int(_)) | Arg::Sym(Sym::Piece(_)));
    (operand(&args[1]) && operand(&args[2])).then(|| (*cmp, args[1].clone(), args[2].clone()))
}

fn rewrite(func: &mut Func, b: usize, i: usize, bound: u64, outcome: Outcome) {
    let inst = func.blocks[b].insts[i].clone();
    let Some((cmp, x, y)) = compare(&inst) else { return };
    let InstKind::Op { args, .. } = &inst.kind else { return };
    let Arg::Reg(p) = args[0] else { return };
    let pieces = const_range::pieces(func, &[x.clone(), y.clone()]);
    if pieces.is_empty() {
        return;
    }
    let loc = inst.loc;
    let mut out: Vec<Inst> = Vec::new();
    // What `g` selects: the 32-bit compare, or the decided outcome.
    let narrowed = match outcome {
        Outcome::Narrow => {
            let Some((low, lows)) = super::narrow::low_halves(func, (b, i), &[x, y]) else { return };
            out.extend(low);
            let p32 = fresh(func, RegClass::Pred);
            out.push(Inst::op(Opcode::Setp(cmp, Type::U32), 1, vec![Arg::Reg(p32), lows[0].clone(), lows[1].clone()]));
            Some(p32)
        }
        Outcome::Decided(_) => None,
    };
    let p64 = fresh(func, RegClass::Pred);
    let mut wide = inst.clone();
    if let InstKind::Op { args, .. } = &mut wide.kind {
        args[0] = Arg::Reg(p64);
    }
    out.push(wide);
    let g = fresh(func, RegClass::Pred);
    out.push(Inst::op(Opcode::Setp(Cmp::Ne, Type::U32), 1, vec![Arg::Reg(g), const_range::guard(&pieces, bound), Arg::imm(0)]));
    let ng = fresh(func, RegClass::Pred);
    out.push(Inst::op(Opcode::arith(Arith::Not, Type::Pred), 1, vec![Arg::Reg(ng), Arg::Reg(g)]));
    let pred_op = |op| Opcode::arith(op, Type::Pred);
    match (outcome, narrowed) {
        (_, Some(p32)) => {
            let (t1, t2) = (fresh(func, RegClass::Pred), fresh(func, RegClass::Pred));
            out.push(Inst::op(pred_op(Arith::And), 1, vec![Arg::Reg(t1), Arg::Reg(g), Arg::Reg(p32)]));
            out.push(Inst::op(pred_op(Arith::And), 1, vec![Arg::Reg(t2), Arg::Reg(ng), Arg::Reg(p64)]));
            out.push(Inst::op(pred_op(Arith::Or), 1, vec![Arg::Reg(p), Arg::Reg(t1), Arg::Reg(t2)]));
        }
        (Outcome::Decided(true), None) => out.push(Inst::op(pred_op(Arith::Or), 1, vec![Arg::Reg(p), Arg::Reg(p64), Arg::Reg(g)])),
        (_, None) => out.push(Inst::op(pred_op(Arith::And), 1, vec![Arg::Reg(p), Arg::Reg(p64), Arg::Reg(ng)])),
    }
    let out: Vec<Inst> = out.into_iter().map(|i| i.at(loc)).collect();
    func.blocks[b].insts.splice(i..=i, out);
}

fn fresh(func: &mut Func, class: RegClass) -> Reg {
    func.regs.push(class);
    Reg(func.regs.len() as u32 - 1)
}
