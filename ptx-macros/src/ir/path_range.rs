//! Value ranges that hold at one block: `ir::range`'s, narrowed by the integer comparisons of
//! the branches every path to the block takes. In the stencil's inner branch, `x < width`
//! (the early return) and `x != 0`, `y != 0` (the border test) hold, so `width >= 2`,
//! `w = width as usize >= 2` and `i = y * w + x >= 3`: `i - 1` cannot wrap and `i + 1 <= i + w`.
//!
//! A comparison is taken from each edge `d -> c` on the block's dominator chain where `c` is
//! entered only from `d`: the branch's predicate has the edge's value there (`or.pred` false
//! makes both operands false, `and.pred` true both true). It narrows only registers written
//! once, in a block outside every loop: such a register holds one value in a thread's run,
//! the one the branch compared, so the narrowed range holds wherever the block is reached
//! (every path to it takes the edge). Ranges computed from narrowed ones (`w` from `width`)
//! hold there for the same reason. Unsigned comparisons only (`u32`, `u64`): signed ones order
//! negative values differently.

use super::dom::Cfg;
use super::hoist::single_defs;
use super::range::{Range, Ranges};
use super::{Arg, Arith, Cmp, Func, Imm, InstKind, Mode, Opcode, Reg, Term, Type};
use super::fast_hash::HashMap;

/// `a <cmp> b` holds, compared as `ty`.
#[derive(Clone, Copy, Debug)]
struct Fact {
    cmp: Cmp,
    ty: Type,
    a: Operand,
    b: Operand,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Operand {
    Reg(Reg),
    Int(u64),
}

/// The ranges at the start of `block`.
pub fn at(func: &Func, block: usize) -> Ranges {
    let global = Ranges::compute(func);
    let cfg = Cfg::new(func);
    let loops = cfg.loops();
    let (_, site) = single_defs(func);
    let once = |r: Reg| site.get(&r).is_some_and(|&(b, _)| !loops.iter().any(|l| l.contains(b)));
    let mut facts = Vec::new();
    let mut c = block;
    while let Some(d) = cfg.idom[c].filter(|&d| d != c) {
        if cfg.preds[c] == [d] {
            if let Term::Branch { pred, negate, if_true, if_false } = func.blocks[d].term {
                if if_true != if_false {
                    collect(func, &site, pred, (if_true.0 as usize == c) != negate, &mut facts, 0);
                }
            }
        }
        c = d;
    }
    if facts.is_empty() {
        return global;
    }
    let mut seeds: HashMap<Reg, Range> = HashMap::default();
    // A few rounds: `x != 0` first narrows `x`, then `x < width` narrows `width` by it.
    for _ in 0..3 {
        for f in &facts {
            narrow(f, &global, &mut seeds, &once);
        }
    }
    Ranges::compute_from(func, seeds)
}

/// The comparisons that `pred` having the value `value` establishes.
fn collect(func: &Func, site: &super::hoist::DefSites, pred: Reg, value: bool, out: &mut Vec<Fact>, depth: u32) {
    let Some(&(b, i)) = site.get(&pred) else { return };
    let inst = &func.blocks[b].insts[i];
    let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return };
    if inst.guard.is_some() || depth > 8 {
        return;
    }
    match (opcode, args.as_slice()) {
        (Opcode::Setp(cmp, ty @ (Type::U32 | Type::U64)), [_, a, b]) if matches!(cmp, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge) => {
            let (Some(a), Some(b)) = (operand(a), operand(b)) else { return };
            let cmp = if value { *cmp } else { cmp.negated() };
            out.push(Fact { cmp, ty: *ty, a, b });
        }
        (Opcode::Arith(Arith::Or, Mode::None, Type::Pred), [_, Arg::Reg(x), Arg::Reg(y)]) if !value => {
            collect(func, site, *x, false, out, depth + 1);
            collect(func, site, *y, false, out, depth + 1);
        }
        (Opcode::Arith(Arith::And, Mode::None, Type::Pred), [_, Arg::Reg(x), Arg::Reg(y)]) if value => {
            collect(func, site, *x, true, out, depth + 1);
            collect(func, site, *y, true, out, depth + 1);
        }
        _ => {}
    }
}

fn operand(a: &Arg) -> Option<Operand> {
    match a {
        Arg::Reg(r) => Some(Operand::Reg(*r)),
        Arg::Imm(Imm::Int(v)) => Some(Operand::Int(*v as u64)),
        _ => None,
    }
}

/// Narrows the ranges of `f`'s registers (those `once` allows) by what `f` says of them.
fn narrow(f: &Fact, global: &Ranges, seeds: &mut HashMap<Reg, Range>, once: &dyn Fn(Reg) -> bool) {
    let bits = f.ty.bits();
    let full = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let get = |o: Operand, seeds: &HashMap<Reg, Range>| match o {
        Operand::Int(v) => {
            let v = v & full;
            Range { lo: v, hi: v }
        }
        Operand::Reg(r) => seeds.get(&r).copied().or_else(|| global.of(&Arg::Reg(r), bits)).filter(|r| r.hi <= full).unwrap_or(Range { lo: 0, hi: full }),
    };
    // Swapped so that the fact reads `a < b`, `a <= b`, `a == b` or `a != b`.
    let (cmp, a, b) = match f.cmp {
        Cmp::Gt => (Cmp::Lt, f.b, f.a),
        Cmp::Ge => (Cmp::Le, f.b, f.a),
        c => (c, f.a, f.b),
    };
    let (ra, rb) = (get(a, seeds), get(b, seeds));
    let (na, nb) = match cmp {
        Cmp::Lt if rb.hi > 0 && ra.lo < u64::MAX => (Range { lo: ra.lo, hi: ra.hi.min(rb.hi - 1) }, Range { lo: rb.lo.max(ra.lo + 1), hi: rb.hi }),
        Cmp::Le => (Range { lo: ra.lo, hi: ra.hi.min(rb.hi) }, Range { lo: rb.lo.max(ra.lo), hi: rb.hi }),
        Cmp::Eq => {
            let both = Range { lo: ra.lo.max(rb.lo), hi: ra.hi.min(rb.hi) };
            (both, both)
        }
        Cmp::Ne => {
            // Only a constant at an end of the other's range narrows it.
            let off = |r: Range, c: Range| {
                if c.lo != c.hi || r.lo == r.hi {
                    r
                } else if r.lo == c.lo {
                    Range { lo: r.lo + 1, hi: r.hi }
                } else if r.hi == c.lo {
                    Range { lo: r.lo, hi: r.hi - 1 }
                } else {
                    r
                }
            };
            (off(ra, rb), off(rb, ra))
        }
        _ => return,
    };
    for (o, r) in [(a, na), (b, nb)] {
        // An empty range: the block is never reached this way; nothing to learn.
        if let Operand::Reg(x) = o {
            if r.lo <= r.hi && once(x) {
                seeds.insert(x, r);
            }
        }
    }
}
