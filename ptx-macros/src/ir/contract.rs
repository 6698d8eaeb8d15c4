//! Contraction on request (`#[kernel(fmad)]`, nvcc's default `-fmad=true`): a floating-point
//! `mul.rn` whose only use is an `add.rn` or `sub.rn` of the same type becomes one `fma.rn`,
//! rounding once where Rust's `a * b + c` rounds twice.
//!
//! - `a * b + c` and `c + a * b` become `fma(a, b, c)`;
//! - `a * b - c` becomes `fma(a, b, -c)`, and `c - a * b` becomes `fma(-a, b, c)` (negation is
//!   exact, and ptxas folds it into the instruction's operand).
//!
//! The `fma` reads `a` and `b` where the `add` was. That is the `mul`'s reading when each is an
//! immediate or a register written once (Rust's definite initialisation puts the write before
//! both); a register written more than once (a mutable local) must not be written between
//! them, which is checked only within one block. The `mul`, now unused, is left to dead-code
//! elimination.

use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Type};
use super::fast_hash::HashMap;

pub fn run(func: &mut Func) {
    let (uses, defs) = counts(func);
    let written_once = |a: &Arg| match a {
        Arg::Reg(r) => defs.get(r) == Some(&1),
        a => matches!(a, Arg::Imm(_)),
    };
    // Contractible products, by destination: (type, a, b, block, whether a and b are stable).
    let mut products: HashMap<Reg, (Type, Arg, Arg, usize, bool)> = HashMap::default();
    for (bi, b) in func.blocks.iter().enumerate() {
        for inst in &b.insts {
            if let (InstKind::Op { opcode: Opcode::Arith(Arith::Mul, Mode::Rn, ty @ (Type::F32 | Type::F64)), defs: 1, args }, None) = (&inst.kind, inst.guard) {
                if let [Arg::Reg(d), x, y] = args.as_slice() {
                    if uses.get(d) == Some(&1) && defs.get(d) == Some(&1) {
                        products.insert(*d, (*ty, x.clone(), y.clone(), bi, written_once(x) && written_once(y)));
                    }
                }
            }
        }
    }
    if products.is_empty() {
        return;
    }
    for bi in 0..func.blocks.len() {
        let insts = std::mem::take(&mut func.blocks[bi].insts);
        let mut out = Vec::with_capacity(insts.len());
        // Products computed so far in this block, and those whose operands were written
        // since (no longer contractible unless their operands are written once).
        let (mut seen, mut stale): (Vec<Reg>, Vec<Reg>) = (Vec::new(), Vec::new());
        for inst in insts {
            let fused = fuse(&inst, &products, &stale, bi);
            for r in inst.defs() {
                stale.extend(seen.iter().filter(|d| products.get(d).is_some_and(|(_, x, y, ..)| mentions(x, r) || mentions(y, r))));
                if products.contains_key(&r) {
                    seen.push(r);
                }
            }
            match fused {
                Some((ty, dst, x, y, c, negate)) => {
                    let loc = inst.loc;
                    let class = if ty == Type::F32 { RegClass::F32 } else { RegClass::F64 };
                    let mut neg = |a: Arg, out: &mut Vec<Inst>| match a {
                        Arg::Imm(Imm::F32(bits)) => Arg::Imm(Imm::F32(bits ^ 0x8000_0000)),
                        Arg::Imm(Imm::F64(bits)) => Arg::Imm(Imm::F64(bits ^ (1 << 63))),
                        a => {
                            func.regs.push(class);
                            let n = Reg(func.regs.len() as u32 - 1);
                            out.push(Inst::op(Opcode::arith(Arith::Neg, ty), 1, vec![Arg::Reg(n), a]).at(loc));
                            Arg::Reg(n)
                        }
                    };
                    let (x, c) = match negate {
                        Negate::None => (x, c),
                        Negate::Addend => (x, neg(c, &mut out)),
                        Negate::Product => (neg(x, &mut out), c),
                    };
                    out.push(Inst::op(Opcode::Arith(Arith::Fma, Mode::Rn, ty), 1, vec![dst, x, y, c]).at(loc));
                }
                None => out.push(inst),
            }
        }
        func.blocks[bi].insts = out;
    }
}

/// Which operand of the `fma` is negated.
enum Negate {
    None,
    Addend,
    Product,
}

/// `(type, dst, a, b, c, negate)` of the `fma` that `inst` (an `add`/`sub` of a product)
/// becomes.
fn fuse(inst: &Inst, products: &HashMap<Reg, (Type, Arg, Arg, usize, bool)>, stale: &[Reg], bi: usize) -> Option<(Type, Arg, Arg, Arg, Arg, Negate)> {
    let InstKind::Op { opcode: Opcode::Arith(op @ (Arith::Add | Arith::Sub), Mode::Rn, ty), defs: 1, args } = &inst.kind else { return None };
    let [dst, l, r] = args.as_slice() else { return None };
    if inst.guard.is_some() {
        return None;
    }
    let product = |a: &Arg| match a {
        Arg::Reg(d) => products.get(d).filter(|(t, _, _, pb, stable)| t == ty && (*stable || (*pb == bi && !stale.contains(d)))),
        _ => None,
    };
    if let Some((_, x, y, ..)) = product(l) {
        let negate = if *op == Arith::Sub { Negate::Addend } else { Negate::None };
        return Some((*ty, dst.clone(), x.clone(), y.clone(), r.clone(), negate));
    }
    if let Some((_, x, y, ..)) = product(r) {
        let negate = if *op == Arith::Sub { Negate::Product } else { Negate::None };
        return Some((*ty, dst.clone(), x.clone(), y.clone(), l.clone(), negate));
    }
    None
}

fn mentions(a: &Arg, r: Reg) -> bool {
    let mut regs = Vec::new();
    a.regs(&mut regs);
    regs.contains(&r)
}

fn counts(func: &Func) -> (HashMap<Reg, usize>, HashMap<Reg, usize>) {
    let (mut uses, mut defs) = (HashMap::default(), HashMap::default());
    for b in &func.blocks {
        for i in &b.insts {
            for r in i.uses() {
                *uses.entry(r).or_insert(0) += 1;
            }
            for r in i.defs() {
                *defs.entry(r).or_insert(0) += 1;
            }
        }
        if let super::Term::Branch { pred, .. } = b.term {
            *uses.entry(pred).or_insert(0) += 1;
        }
    }
    (uses, defs)
}
