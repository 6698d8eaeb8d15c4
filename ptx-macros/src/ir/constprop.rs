//! Constant propagation into arithmetic, and branches on constant comparisons folded away.
//!
//! Constants from outside the body (`TILE`, `N`) are materialised once, as `mov r, 16` (the
//! number is rustc's: the macro sees only the name), and then used through the register. ptxas propagates most of them, but not before it expands
//! 64-bit `div`/`rem` into a call to its division subroutine: `(n + TILE - 1) / TILE` cost the
//! tiled matmul a 64-bit division call and the divide-by-zero check of a constant divisor.
//! Here the immediate replaces the register in the instructions that take immediates, so
//! ptxas sees `div.u64 %rd, %rd, 16` (a shift). A `setp` of two immediates the macro knows is
//! evaluated here and its branch becomes a jump.
//!
//! Only registers written exactly once, by an unguarded `mov` of an integer immediate, are
//! propagated: Rust's definite initialisation means every read comes after that write.

use super::{Arg, Func, Imm, InstKind, Reg, RegClass, Sym, Term};
use std::collections::HashMap;

/// Instructions whose source operands may be immediates (the PTX ISA's `a, b` operands).
const TAKES_IMMEDIATES: [&str; 15] =
    ["add", "sub", "mul", "mad", "div", "rem", "and", "or", "xor", "shl", "shr", "setp", "min", "max", "selp"];

pub fn run(func: &mut Func) {
    let consts = constants(func);
    if consts.is_empty() {
        return;
    }
    let mut folded: HashMap<Reg, bool> = HashMap::new();
    for b in &mut func.blocks {
        for inst in &mut b.insts {
            let InstKind::Op { opcode, defs, args } = &mut inst.kind else { continue };
            let base = opcode.split('.').next().unwrap_or("");
            if !TAKES_IMMEDIATES.contains(&base) {
                continue;
            }
            let value = |a: &Arg| match a {
                Arg::Reg(r) => match consts.get(r) {
                    Some(Arg::Imm(Imm::Int(v))) => Some(*v),
                    _ => None,
                },
                Arg::Imm(Imm::Int(v)) => Some(*v),
                _ => None,
            };
            if base == "setp" && *defs == 1 && args.len() == 3 && inst.guard.is_none() {
                if let (Some(x), Some(y), Arg::Reg(p)) = (value(&args[1]), value(&args[2]), &args[0]) {
                    if let Some(v) = compare(opcode, x, y) {
                        folded.insert(*p, v);
                        continue;
                    }
                }
            }
            // At least one register source stays: PTX does not take every instruction with
            // immediates only, and ptxas folds what remains.
            let sources = *defs..args.len();
            let mut registers = args[sources.clone()].iter().filter(|a| matches!(a, Arg::Reg(_))).count();
            // An outside constant's piece is its bits as an unsigned number (`4294967293` for
            // an `i32` of -3): kept out of 16- and 32-bit signed instructions, whose reading of
            // such an immediate we would rather not rely on.
            let narrow_signed = opcode.split('.').any(|t| t == "s16" || t == "s32");
            for a in args[sources].iter_mut().rev() {
                if let Arg::Reg(r) = a {
                    if let Some(v) = consts.get(r) {
                        if registers > 1 && !(narrow_signed && matches!(v, Arg::Sym(_))) {
                            *a = v.clone();
                            registers -= 1;
                        }
                    }
                }
            }
        }
    }
    // A predicate written once, by a folded comparison, decides its branches.
    let pred_defs = def_counts(func);
    for b in &mut func.blocks {
        if let Term::Branch { pred, negate, if_true, if_false } = b.term {
            if let (Some(v), Some(1)) = (folded.get(&pred), pred_defs.get(&pred)) {
                b.term = Term::Jump(if *v != negate { if_true } else { if_false });
            }
        }
    }
}

fn def_counts(func: &Func) -> HashMap<Reg, usize> {
    let mut counts = HashMap::new();
    for i in func.blocks.iter().flat_map(|b| &b.insts) {
        for r in i.defs() {
            *counts.entry(r).or_insert(0) += 1;
        }
    }
    counts
}

/// Registers written once, by `mov r, <integer>`, and the integer: an immediate, or a constant
/// from outside the body, which rustc evaluates into the text.
fn constants(func: &Func) -> HashMap<Reg, Arg> {
    let defs = def_counts(func);
    let mut out = HashMap::new();
    for i in func.blocks.iter().flat_map(|b| &b.insts) {
        if let (InstKind::Op { opcode, defs: 1, args }, None) = (&i.kind, i.guard) {
            if let (true, [Arg::Reg(r), v @ (Arg::Imm(Imm::Int(_)) | Arg::Sym(Sym::Piece(_)))]) = (opcode.starts_with("mov."), args.as_slice()) {
                let integer = matches!(func.class(*r), RegClass::B16 | RegClass::B32 | RegClass::B64);
                if integer && defs.get(r) == Some(&1) {
                    out.insert(*r, v.clone());
                }
            }
        }
    }
    out
}

/// `setp.<cmp>.<type> x, y` on integer constants, or `None` for types it does not evaluate.
fn compare(opcode: &str, x: i64, y: i64) -> Option<bool> {
    let mut parts = opcode.split('.').skip(1);
    let (cmp, ty) = (parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None; // `setp.cmp.and.type`: combines with another predicate
    }
    let bits: u32 = ty.get(1..)?.parse().ok()?;
    let ord = match (ty.as_bytes()[0], bits) {
        (b's', 64) => x.cmp(&y),
        (b's', 32) => (x as i32).cmp(&(y as i32)),
        (b's', 16) => (x as i16).cmp(&(y as i16)),
        (b'u' | b'b', 64) => (x as u64).cmp(&(y as u64)),
        (b'u' | b'b', 32) => (x as u32).cmp(&(y as u32)),
        (b'u' | b'b', 16) => (x as u16).cmp(&(y as u16)),
        _ => return None,
    };
    use std::cmp::Ordering::*;
    Some(match cmp {
        "eq" => ord == Equal,
        "ne" => ord != Equal,
        "lt" | "lo" => ord == Less,
        "le" | "ls" => ord != Greater,
        "gt" | "hi" => ord == Greater,
        "ge" | "hs" => ord != Less,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::compare;

    #[test]
    fn compares_as_the_type_says() {
        assert_eq!(compare("setp.eq.u64", 16, 0), Some(false));
        assert_eq!(compare("setp.ge.u64", 0, 16), Some(false));
        assert_eq!(compare("setp.lt.u32", -1, 0), Some(false));
        assert_eq!(compare("setp.lt.s32", -1, 0), Some(true));
        assert_eq!(compare("setp.lt.f32", 0, 1), None);
        assert_eq!(compare("setp.lt.and.u32", 0, 1), None);
    }
}
