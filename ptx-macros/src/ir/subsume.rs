//! Checks that others in the same combined run decide (`ir::combine`): the stencil's
//! `input[i]`, `input[i - 1]`, `input[i + 1]`, `input[i - w]`, `input[i + w]` share a length
//! and a base `i`, and fail only if the least of them wraps below zero or the greatest reaches
//! the length; the branch of the run needs only those two compares.
//!
//! Each index is a base `X` plus an offset `o` (a constant, `+r` or `-r` for a register `r`,
//! or nothing), and `v = X + o` is its value as an integer, without wrapping. With `ir::range`
//! proving `X + o < 2^64` (no wrap above) and `|o| <= 2^63`, a check fails exactly when
//! `v < 0` or `v >= len`: a `v` below zero wraps to at least `2^64 - 2^63`, which no length
//! reaches (Rust bounds a slice by `isize::MAX` bytes). So a check A can leave the branch when
//! another check B kept there has `o_A <= o_B` for every value (A reaches the length only if B
//! does) and, unless `X + o_A` cannot go below zero, another C kept there has `o_C <= o_A`
//! (A wraps only if C does). `X - r` cannot go below zero where `X >= r` is proved: by the
//! ranges, or because `X` is an exact `y * r + z` with `y >= 1` (the stencil's `i - w`, with
//! `i = y * w + x` and `y != 0`). The report chain of a run on several lines still tests every
//! check in the source's order, so the report is Rust's; on one line, it is the same report.

use super::range::{Range, Ranges};
use super::{Arg, Arith, Cmp, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, Type};

/// A base or a length: a register or an integer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Value {
    Reg(Reg),
    Int(i64),
}

impl Value {
    fn of(a: &Arg) -> Option<Value> {
        match a {
            Arg::Reg(r) => Some(Value::Reg(*r)),
            Arg::Imm(Imm::Int(v)) => Some(Value::Int(*v)),
            _ => None,
        }
    }

    fn arg(self) -> Arg {
        match self {
            Value::Reg(r) => Arg::Reg(r),
            Value::Int(v) => Arg::imm(v),
        }
    }
}

/// An offset: its values as an interval, and what it is, so that `+r` is known equal to `+r`.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Offset {
    lo: i128,
    hi: i128,
    sym: Option<(Reg, bool)>,
}

impl Offset {
    /// Every value of `self` at most every value of `other`.
    fn below(&self, other: &Offset) -> bool {
        (self.sym.is_some() && self.sym == other.sym) || self.hi <= other.lo
    }
}

/// For each of `setps` (the run's comparisons `setp.ge.u64 p, idx, len`, first to last, as
/// written in the function, each index's computation intact; the first in block `first`),
/// whether the others decide it, by the ranges that hold at `first`.
/// At least one check of each length stays.
pub fn decided(func: &Func, first: usize, setps: &[Inst], def_site: &super::hoist::DefSites) -> Vec<bool> {
    let ranges = super::path_range::at(func, first);
    let mut out = vec![false; setps.len()];
    let operands: Vec<Option<(Value, Value)>> = setps
        .iter()
        .map(|s| match &s.kind {
            InstKind::Op { opcode: Opcode::Setp(Cmp::Ge, Type::U64), args, .. } if args.len() == 3 && s.guard.is_none() => Some((Value::of(&args[1])?, Value::of(&args[2])?)),
            _ => None,
        })
        .collect();
    // A check of the same index (the same computation of the same registers: in a run, the
    // registers a later index reads hold their values from the first check on) against the same
    // length as an earlier one fails exactly when that one does.
    for k in 0..setps.len() {
        let Some((idx, len)) = operands[k] else { continue };
        if (0..k).any(|j| !out[j] && operands[j].is_some_and(|(i, l)| l == len && same_value(func, i, idx, def_site, 0))) {
            out[k] = true;
        }
    }
    let operands: Vec<Option<(Value, Value)>> = operands.iter().zip(&out).map(|(o, d)| if *d { None } else { *o }).collect();
    let mut lengths: Vec<&Value> = Vec::new();
    for (_, len) in operands.iter().flatten() {
        if !lengths.contains(&len) {
            lengths.push(len);
        }
    }
    for len in lengths {
        let members: Vec<usize> = (0..setps.len()).filter(|&k| operands[k].as_ref().is_some_and(|(_, l)| l == len)).collect();
        if members.len() < 2 {
            continue;
        }
        // Every way to read each index as base + offset; the base most of them share.
        let forms: Vec<Vec<(Value, Offset)>> = members.iter().map(|&k| forms(func, operands[k].unwrap().0, def_site, &ranges)).collect();
        let mut count: Vec<(Value, usize)> = Vec::new();
        for f in &forms {
            for (base, _) in f {
                match count.iter_mut().find(|(b, _)| b == base) {
                    Some((_, n)) => *n += 1,
                    None => count.push((*base, 1)),
                }
            }
        }
        let Some((base, n)) = count.into_iter().max_by_key(|(_, n)| *n) else { continue };
        if n < 2 {
            continue;
        }
        let x = ranges.of(&base.arg(), 64).unwrap_or(Range { lo: 0, hi: u64::MAX });
        // (member, offset, cannot go below zero) for those whose value is exact above.
        let exact: Vec<(usize, Offset, bool)> = members
            .iter()
            .zip(&forms)
            .filter_map(|(&k, f)| {
                let (_, o) = f.iter().find(|(b, _)| *b == base)?;
                let top = x.hi as i128 + o.hi;
                let never_below = x.lo as i128 + o.lo >= 0 || matches!(o.sym, Some((r, true)) if at_least(func, base, r, &ranges, def_site, 0));
                (top <= u64::MAX as i128 && o.lo >= -(1i128 << 63)).then_some((k, *o, never_below))
            })
            .collect();
        // Decided against checks still kept: each one left out is covered by one that stays,
        // which by induction holds as more leave.
        for a in 0..exact.len() {
            let (k, o, never_below) = exact[a];
            let kept = |b: usize| b != a && !out[exact[b].0];
            let above = (0..exact.len()).any(|b| kept(b) && o.below(&exact[b].1));
            let under = never_below || (0..exact.len()).any(|c| kept(c) && exact[c].1.below(&o));
            if above && under {
                out[k] = true;
            }
        }
    }
    out
}

/// Two operands that hold the same value: the same, or results of the same unguarded pure
/// arithmetic on operands that are.
fn same_value(func: &Func, a: Value, b: Value, def_site: &super::hoist::DefSites, depth: u32) -> bool {
    if a == b {
        return true;
    }
    let (Value::Reg(x), Value::Reg(y)) = (a, b) else { return false };
    let (Some(&(bx, ix)), Some(&(by, iy))) = (def_site.get(&x), def_site.get(&y)) else { return false };
    let (p, q) = (&func.blocks[bx].insts[ix], &func.blocks[by].insts[iy]);
    let (InstKind::Op { opcode: o1, defs: 1, args: a1 }, InstKind::Op { opcode: o2, defs: 1, args: a2 }) = (&p.kind, &q.kind) else { return false };
    depth < 4
        && o1 == o2
        && matches!(o1, Opcode::Arith(..) | Opcode::Cvt(..) | Opcode::Mov(_))
        && o1.is_pure()
        && p.guard.is_none()
        && q.guard.is_none()
        && a1.len() == a2.len()
        && a1[1..].iter().zip(&a2[1..]).all(|(u, v)| match (Value::of(u), Value::of(v)) {
            (Some(u), Some(v)) => same_value(func, u, v, def_site, depth + 1),
            _ => false,
        })
}

/// The ways to read `idx` as base + offset: itself plus nothing, and for an unguarded 64-bit
/// `add`/`sub` written once, its operands.
fn forms(func: &Func, idx: Value, def_site: &super::hoist::DefSites, ranges: &Ranges) -> Vec<(Value, Offset)> {
    let zero = Offset { lo: 0, hi: 0, sym: None };
    let mut out = vec![(idx, zero)];
    let Value::Reg(r) = idx else { return out };
    let Some(&(b, i)) = def_site.get(&r) else { return out };
    let inst = &func.blocks[b].insts[i];
    let InstKind::Op { opcode: Opcode::Arith(op @ (Arith::Add | Arith::Sub), Mode::None, Type::U64 | Type::S64 | Type::B64), defs: 1, args } = &inst.kind else { return out };
    if inst.guard.is_some() || args.len() != 3 {
        return out;
    }
    let offset = |a: &Arg, negate: bool| -> Option<Offset> {
        let (lo, hi, sym) = match a {
            Arg::Imm(Imm::Int(c)) => (*c as i128, *c as i128, None),
            Arg::Reg(y) => {
                let r = ranges.of(a, 64).unwrap_or(Range { lo: 0, hi: u64::MAX });
                (r.lo as i128, r.hi as i128, Some((*y, negate)))
            }
            _ => return None,
        };
        Some(if negate { Offset { lo: -hi, hi: -lo, sym } } else { Offset { lo, hi, sym } })
    };
    match op {
        Arith::Add => {
            out.extend(Value::of(&args[1]).zip(offset(&args[2], false)));
            out.extend(Value::of(&args[2]).zip(offset(&args[1], false)));
        }
        _ => out.extend(Value::of(&args[1]).zip(offset(&args[2], true))),
    }
    out
}

/// `x >= r` for every value: `x` is `r`, or `x.lo >= r.hi`, or `x` is `a + b` with one of them
/// at least `r`, or `y * r` with `y >= 1` (the stencil's `i = y * w + x` with `y >= 1` is at
/// least `w`), each sum and product exact by the operands' ranges.
fn at_least(func: &Func, x: Value, r: Reg, ranges: &Ranges, def_site: &super::hoist::DefSites, depth: u32) -> bool {
    let full = Range { lo: 0, hi: u64::MAX };
    let range = |v: &Arg| ranges.of(v, 64).unwrap_or(full);
    if x == Value::Reg(r) || range(&x.arg()).lo >= range(&Arg::Reg(r)).hi {
        return true;
    }
    let Value::Reg(xr) = x else { return false };
    let Some(&(b, i)) = def_site.get(&xr) else { return false };
    let inst = &func.blocks[b].insts[i];
    let InstKind::Op { opcode: Opcode::Arith(op, mode, Type::U64 | Type::S64 | Type::B64), defs: 1, args } = &inst.kind else { return false };
    if inst.guard.is_some() || args.len() != 3 || depth > 4 {
        return false;
    }
    let (a, c) = (range(&args[1]), range(&args[2]));
    match (op, mode) {
        (Arith::Add, Mode::None) if a.hi.checked_add(c.hi).is_some() => {
            args[1..].iter().any(|v| Value::of(v).is_some_and(|v| at_least(func, v, r, ranges, def_site, depth + 1)))
        }
        (Arith::Mul, Mode::Lo) if a.hi.checked_mul(c.hi).is_some() => {
            (matches!(args[1], Arg::Reg(y) if y == r) && c.lo >= 1) || (matches!(args[2], Arg::Reg(y) if y == r) && a.lo >= 1)
        }
        _ => false,
    }
}
