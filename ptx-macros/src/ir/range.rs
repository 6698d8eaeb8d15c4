//! Value ranges of integer registers, from the special registers and the kernel's launch
//! bounds: under `#[kernel(block = (16, 16))]` the launch guarantees `%tid.x < 16`, so
//! `ty * 16 + tx` is at most 255 and a shared tile of 256 needs no check; without bounds
//! `%tid.x < 1024` and `%laneid < 32` still hold, and `v & 255` is at most 255 (see
//! [`super::bce`], which asks).
//!
//! A register written once gets the unsigned interval `[lo, hi]` its defining instruction
//! gives from its operands' intervals; arithmetic that could wrap gives nothing. Registers
//! written more than once (mutable locals) and guarded definitions give nothing: no fixpoint,
//! sound by construction. This is the start of issue 14's range analysis (loop induction
//! variables and dominating comparisons are still to come).

use super::{Arg, Func, Imm, InstKind, LaunchFacts, Reg, Sym};
use std::collections::HashMap;

/// An inclusive unsigned interval.
pub type Range = (u64, u64);

/// The interval of every register whose definition bounds it.
pub fn ranges(func: &Func) -> HashMap<Reg, Range> {
    let mut out = HashMap::new();
    let mut defs: HashMap<Reg, usize> = HashMap::new();
    for b in &func.blocks {
        for i in &b.insts {
            for r in i.defs() {
                *defs.entry(r).or_insert(0) += 1;
            }
        }
    }
    // Definitions come before uses in block order except across back edges, which only
    // mutable locals (written more than once) cross; two sweeps catch the rest.
    for _ in 0..2 {
        for b in &func.blocks {
            for i in &b.insts {
                let InstKind::Op { opcode, defs: 1, args } = &i.kind else { continue };
                let Some(Arg::Reg(d)) = args.first() else { continue };
                if i.guard.is_some() || defs.get(d) != Some(&1) || out.contains_key(d) {
                    continue;
                }
                if let Some(r) = eval(opcode, &args[1..], &out, &func.launch) {
                    out.insert(*d, r);
                }
            }
        }
    }
    out
}

fn eval(opcode: &str, args: &[Arg], known: &HashMap<Reg, Range>, launch: &LaunchFacts) -> Option<Range> {
    let get = |a: &Arg| -> Option<Range> {
        match a {
            Arg::Reg(r) => known.get(r).copied(),
            Arg::Imm(Imm::Int(v)) if *v >= 0 => Some((*v as u64, *v as u64)),
            _ => None,
        }
    };
    let mut parts = opcode.split('.');
    let op = parts.next()?;
    let ty = opcode.rsplit('.').next()?;
    let bits: u32 = ty.get(1..)?.parse().ok()?;
    let max = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let fits = |r: (u64, u64)| (r.1 <= max).then_some(r);
    match (op, args) {
        ("mov", [Arg::Sym(Sym::Named(s))]) => {
            if s == "%laneid" {
                return Some((0, 31));
            }
            if let Some(axis) = ["%tid.x", "%tid.y", "%tid.z"].iter().position(|t| t == s) {
                return Some((0, launch.tid_bound(axis).checked_sub(1)?));
            }
            let axis = ["%ntid.x", "%ntid.y", "%ntid.z"].iter().position(|t| t == s)?;
            Some((1, launch.tid_bound(axis)))
        }
        ("mov", [a]) => get(a),
        // Between unsigned types the value is kept when it fits the destination
        // (`cvt.u64.u32` is the `as usize` of an index).
        ("cvt", [a]) => {
            let (dst, src) = (parts.next()?, parts.next()?);
            if parts.next().is_some() || !dst.starts_with('u') || !src.starts_with('u') {
                return None;
            }
            let dst_bits: u32 = dst[1..].parse().ok()?;
            let r = get(a)?;
            (dst_bits >= 64 || r.1 < 1u64 << dst_bits).then_some(r)
        }
        ("add", [a, b]) if !opcode.contains(".f") => {
            let (a, b) = (get(a)?, get(b)?);
            fits((a.0.checked_add(b.0)?, a.1.checked_add(b.1)?))
        }
        ("sub", [a, b]) if !opcode.contains(".f") => {
            let (a, b) = (get(a)?, get(b)?);
            // No wrap: the smallest minuend is at least the largest subtrahend.
            (a.0 >= b.1).then(|| (a.0 - b.1, a.1 - b.0))
        }
        ("mul", [a, b]) if opcode.starts_with("mul.lo.") => {
            let (a, b) = (get(a)?, get(b)?);
            fits((a.0.checked_mul(b.0)?, a.1.checked_mul(b.1)?))
        }
        ("shl", [a, Arg::Imm(Imm::Int(s))]) if (0..64).contains(s) => {
            let a = get(a)?;
            let hi = a.1.checked_mul(1u64 << s)?;
            fits((a.0 << s, hi))
        }
        ("and", [a, b]) => {
            let hi = match (get(a), get(b)) {
                (Some(a), Some(b)) => a.1.min(b.1),
                (Some(x), None) | (None, Some(x)) => x.1,
                _ => return None,
            };
            Some((0, hi))
        }
        _ => None,
    }
}

/// Whether `a <cmp> b` (unsigned) is decided by the intervals: `Some(true)` when it holds for
/// every value, `Some(false)` when for none.
pub fn decide(cmp: &str, a: Range, b: Range) -> Option<bool> {
    let lt = |x: Range, y: Range| if x.1 < y.0 { Some(true) } else if x.0 >= y.1 { Some(false) } else { None };
    let le = |x: Range, y: Range| if x.1 <= y.0 { Some(true) } else if x.0 > y.1 { Some(false) } else { None };
    match cmp {
        "lt" => lt(a, b),
        "le" => le(a, b),
        "gt" => lt(b, a),
        "ge" => le(b, a),
        _ => None,
    }
}
