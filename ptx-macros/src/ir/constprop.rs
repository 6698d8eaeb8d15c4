//! Constant propagation into arithmetic, and branches on constant comparisons folded away.
//!
//! Constants from outside the body (`TILE`, `N`) are materialised once, as `mov r, 16` (the
//! number is rustc's: the macro sees only the name), and then used through the register. ptxas propagates most of them, but not before it expands
//! 64-bit `div`/`rem` into a call to its division subroutine: `(n + TILE - 1) / TILE` cost the
//! tiled matmul a 64-bit division call and the divide-by-zero check of a constant divisor.
//! Here the immediate replaces the register in the instructions that take immediates, so
//! ptxas sees `div.u64 %rd, %rd, 16` (a shift). A `setp` of two immediates the macro knows is
//! evaluated here and its branch becomes a jump, as does a branch on a predicate the macro
//! knows (`if false`, `x.is_nan()` of a literal, `&&`/`||`/`!` of such). `popc` and `clz` of
//! an immediate (`(true as usize).is_power_of_two()`) are counted first, so that such tests of
//! them fold too.
//!
//! Only registers written exactly once, by an unguarded `mov` of an integer immediate, are
//! propagated: Rust's definite initialisation means every read comes after that write.

use super::{Arg, Arith, Cmp, Func, Imm, InstKind, Opcode, Reg, RegClass, Sym, Term, Type};
use super::fast_hash::HashMap;

pub fn run(func: &mut Func) {
    count_bits(func);
    let consts = constants(func);
    let mut folded: HashMap<Reg, bool> = HashMap::default();
    for b in func.blocks.iter_mut().filter(|_| !consts.is_empty()) {
        for inst in &mut b.insts {
            let InstKind::Op { opcode, defs, args } = &mut inst.kind else { continue };
            if !opcode.takes_immediates() {
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
            if let (Opcode::Setp(cmp, ty), 1, 3, None) = (*opcode, *defs, args.len(), inst.guard) {
                if let (Some(x), Some(y), Arg::Reg(p)) = (value(&args[1]), value(&args[2]), &args[0]) {
                    if let Some(v) = compare(cmp, ty, x, y) {
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
            let narrow_signed = matches!(opcode, Opcode::Arith(_, _, Type::S16 | Type::S32) | Opcode::Setp(_, Type::S16 | Type::S32) | Opcode::Selp(Type::S16 | Type::S32));
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
    // A predicate written once, by a folded comparison, `mov.pred p, 0|1` (`if false`,
    // `x.is_nan()` of a literal) or `not`/`and`/`or`/`xor` of such, decides its branches, so
    // the dead side never reaches ptxas (as nvcc folds `if (0)`; ptxas 13 crashed on a loop
    // holding a constant-false `return` and `panic!`, difftest seed 20261125 kernel 352).
    let pred_defs = super::range::def_counts(func);
    fold_predicates(func, &pred_defs, &mut folded);
    for b in &mut func.blocks {
        if let Term::Branch { pred, negate, if_true, if_false } = b.term {
            if let (Some(v), Some(1)) = (folded.get(&pred), pred_defs.get(pred.0 as usize)) {
                b.term = Term::Jump(if *v != negate { if_true } else { if_false });
            }
        }
    }
}

/// Adds to `folded` every predicate written once, unguarded, whose value the known ones give.
fn fold_predicates(func: &Func, defs: &[u32], folded: &mut HashMap<Reg, bool>) {
    loop {
        let before = folded.len();
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            let (InstKind::Op { opcode, defs: 1, args }, None) = (&inst.kind, inst.guard) else { continue };
            let Some(Arg::Reg(p)) = args.first() else { continue };
            if func.class(*p) != RegClass::Pred || defs.get(p.0 as usize) != Some(&1) || folded.contains_key(p) {
                continue;
            }
            let known = |a: &Arg| match a {
                Arg::Reg(r) => folded.get(r).copied(),
                Arg::Imm(Imm::Int(v)) => Some(*v != 0),
                _ => None,
            };
            let (a, b) = (args.get(1).and_then(known), args.get(2).and_then(known));
            let value = match opcode {
                Opcode::Mov(Type::Pred) => a,
                Opcode::Arith(Arith::Not, _, Type::Pred) => a.map(|x| !x),
                Opcode::Arith(Arith::And, _, Type::Pred) => match (a, b) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(x), Some(y)) => Some(x && y),
                    _ => None,
                },
                Opcode::Arith(Arith::Or, _, Type::Pred) => match (a, b) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(x), Some(y)) => Some(x || y),
                    _ => None,
                },
                Opcode::Arith(Arith::Xor, _, Type::Pred) => a.zip(b).map(|(x, y)| x != y),
                _ => None,
            };
            if let Some(v) = value {
                folded.insert(*p, v);
            }
        }
        if folded.len() == before {
            return;
        }
    }
}

/// Registers written once, by `mov r, <integer>`, and the integer: an immediate, or a constant
/// from outside the body, which rustc evaluates into the text.
fn constants(func: &Func) -> HashMap<Reg, Arg> {
    let defs = super::range::def_counts(func);
    let mut out = HashMap::default();
    for i in func.blocks.iter().flat_map(|b| &b.insts) {
        if let (InstKind::Op { opcode, defs: 1, args }, None) = (&i.kind, i.guard) {
            if let (Opcode::Mov(_), [Arg::Reg(r), v @ (Arg::Imm(Imm::Int(_)) | Arg::Sym(Sym::Piece(_)))]) = (opcode, args.as_slice()) {
                let integer = matches!(func.class(*r), RegClass::B16 | RegClass::B32 | RegClass::B64);
                if integer && defs.get(r.0 as usize) == Some(&1) {
                    out.insert(*r, v.clone());
                }
            }
        }
    }
    out
}

/// `popc` and `clz` of an integer immediate (`(true as usize).is_power_of_two()`,
/// `8u32.leading_zeros()`) written as the `mov` of their count, so that a comparison of it
/// folds here with its branch (ptxas 13 crashed on a loop behind such a constant `return`,
/// difftest seed 20261202 kernel 27).
fn count_bits(func: &mut Func) {
    for inst in func.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        let InstKind::Op { opcode: Opcode::Arith(op @ (Arith::Popc | Arith::Clz), _, ty), defs: 1, args } = &inst.kind else { continue };
        let [d, Arg::Imm(Imm::Int(v))] = &args[..] else { continue };
        let (bits, v) = match ty {
            Type::B64 | Type::U64 | Type::S64 => (64, *v as u64),
            Type::B32 | Type::U32 | Type::S32 => (32, *v as u64 & 0xffff_ffff),
            _ => continue,
        };
        let n = match op {
            Arith::Popc => v.count_ones(),
            _ => v.leading_zeros() - (64 - bits),
        };
        inst.kind = InstKind::Op { opcode: Opcode::Mov(Type::B32), defs: 1, args: vec![d.clone(), Arg::imm(n as i64)] };
    }
}

/// `setp.<cmp>.<type> x, y` on integer constants, or `None` for types it does not evaluate.
pub(super) fn compare(cmp: Cmp, ty: Type, x: i64, y: i64) -> Option<bool> {
    let ord = match ty {
        Type::S64 => x.cmp(&y),
        Type::S32 => (x as i32).cmp(&(y as i32)),
        Type::S16 => (x as i16).cmp(&(y as i16)),
        Type::U64 | Type::B64 => (x as u64).cmp(&(y as u64)),
        Type::U32 | Type::B32 => (x as u32).cmp(&(y as u32)),
        Type::U16 | Type::B16 => (x as u16).cmp(&(y as u16)),
        _ => return None,
    };
    use std::cmp::Ordering::*;
    Some(match cmp {
        Cmp::Eq => ord == Equal,
        Cmp::Ne => ord != Equal,
        Cmp::Lt => ord == Less,
        Cmp::Le => ord != Greater,
        Cmp::Gt => ord == Greater,
        Cmp::Ge => ord != Less,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::compare;
    use crate::ir::{Cmp, Type};

    #[test]
    fn compares_as_the_type_says() {
        assert_eq!(compare(Cmp::Eq, Type::U64, 16, 0), Some(false));
        assert_eq!(compare(Cmp::Ge, Type::U64, 0, 16), Some(false));
        assert_eq!(compare(Cmp::Lt, Type::U32, -1, 0), Some(false));
        assert_eq!(compare(Cmp::Lt, Type::S32, -1, 0), Some(true));
        assert_eq!(compare(Cmp::Lt, Type::F32, 0, 1), None);
        assert_eq!(compare(Cmp::Neu, Type::U32, 0, 1), None);
    }
}
