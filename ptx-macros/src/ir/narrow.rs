//! 32-bit index arithmetic where only the low 32 bits are used: `cvt.u32.u64` of a 64-bit sum,
//! product or shift is computed from the operands' low halves instead.
//!
//! A shared-memory address is 32 bits, so indexing a `SharedArray` with a `usize` ends in
//! `cvt.u32.u64` of the 64-bit index (`ty * TILE + k`). The low 32 bits of `a + b`, `a - b`,
//! `a * b`, `a << n`, `a & b`, `a | b`, `a ^ b`, `!a` and `-a` depend only on the low 32 bits
//! of `a` and `b` (arithmetic modulo 2^32 is a ring homomorphism of arithmetic modulo 2^64; a
//! shift by 32 or more gives 0 in both widths, PTX clamping the amount), and the low half of a
//! widened `u32` or `i32` is the value itself. So the truncation moves down to the leaves,
//! exactly, whatever the values: no range needs proving. nvcc computes such indices in 32 bits
//! from the start; done here, ptxas sees `base + 4·(ty·16 + k)` in 32-bit arithmetic after it
//! unrolls the `k` loop and folds each step's offset into the load (`LDS [R+0x40]`), where the
//! 64-bit form cost an add per load (the matmul's `k` loop: 255 → 217 SASS instructions on
//! sm_80). The 64-bit computation is left for dead-code elimination. Where something else
//! still reads the 64-bit value (a bounds check), both widths would be computed, so the
//! truncation stays as it is; a check that `hoist` left in a loop behind a test ptxas decides
//! does not count (see [`other_uses`]).
//!
//! The 32-bit instructions are placed at the truncation and read the leaves there. A leaf is
//! read where its 64-bit user read it; that is the same value at the truncation when the leaf
//! is written once (its one write dominates every read), or when the user is reached from it
//! only through blocks entered from one block each (the rest of a bounds check) and nothing
//! on the way writes the leaf (a loop counter read in the loop body). A value written more
//! than once is followed to the write that such a read sees.

use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, RegClass, Sym, Term, Type};
use super::fast_hash::{HashMap, HashSet};

/// How deep a chain of 64-bit instructions is followed from the truncation.
const DEPTH: usize = 8;

pub fn run(func: &mut Func) {
    let (defs, site, preds) = def_sites(func);
    let single = |r: &Reg| defs.get(r.0 as usize) == Some(&1);
    let other_uses = other_uses(func);
    // Rewrites, found first and applied after (positions stay valid while finding).
    let mut rewrites: Vec<(usize, usize, Vec<Inst>, Vec<RegClass>)> = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U32 | Type::S32 | Type::B32, Type::U64 | Type::S64 | Type::B64), defs: 1, args } = &inst.kind else { continue };
            let (Some(Arg::Reg(dst)), Some(Arg::Reg(src)), None) = (args.first(), args.get(1), inst.guard) else { continue };
            if !single(src) || other_uses.contains(src) || !site.get(src).is_some_and(|&(sb, si)| narrowable(func, sb, si)) {
                continue;
            }
            let mut n = Narrower { func, defs: &defs, site: &site, preds: &preds, at: (b, i), out: Vec::new(), base: func.regs.len() as u32, new_regs: Vec::new() };
            let Some(low) = n.low(Arg::Reg(*src), (b, i), 0) else { continue };
            let mut out = std::mem::take(&mut n.out);
            out.push(Inst::op(Opcode::Mov(Type::B32), 1, vec![Arg::Reg(*dst), low]).at(inst.loc));
            for new in &mut out {
                new.loc = inst.loc;
            }
            rewrites.push((b, i, out, n.new_regs));
        }
    }
    // Every rewrite numbered its new registers from the function's count: number them apart.
    let base = func.regs.len() as u32;
    for (_, _, out, classes) in &mut rewrites {
        let first = func.regs.len() as u32;
        func.regs.extend(classes.iter().copied());
        for inst in out.iter_mut() {
            let InstKind::Op { args, .. } = &mut inst.kind else { continue };
            for a in args.iter_mut() {
                if let Arg::Reg(r) = a {
                    if r.0 >= base {
                        *r = Reg(first + r.0 - base);
                    }
                }
            }
        }
    }
    for (b, i, out, _) in rewrites.into_iter().rev() {
        func.blocks[b].insts.splice(i..=i, out);
    }
}

/// The low 32 bits of the 64-bit operands `args` of the instruction at `at` (block, index),
/// computed from their operands' low halves as [`run`] does (exact whatever the values): the
/// instructions to put before `at`, which read nothing written between them and `at`, and the
/// 32-bit operands. New registers are added to `func`. For `ir::narrow_cmp`.
pub fn low_halves(func: &mut Func, at: (usize, usize), args: &[Arg]) -> Option<(Vec<Inst>, Vec<Arg>)> {
    let (defs, site, preds) = def_sites(func);
    let base = func.regs.len() as u32;
    let mut n = Narrower { func, defs: &defs, site: &site, preds: &preds, at, out: Vec::new(), base, new_regs: Vec::new() };
    let mut lows = Vec::new();
    for a in args {
        lows.push(n.low(a.clone(), at, 0)?);
    }
    let (out, classes) = (n.out, n.new_regs);
    func.regs.extend(classes);
    Some((out, lows))
}

/// Registers read other than by a truncation, where narrowing their computation would leave
/// it computed twice, in both widths. Not counted: reads by a bounds check that `hoist` kept in
/// its loop behind a test that its hoisted check could not decide (`and.pred q, p, inexact;
/// @q bra fail`): with the loop's constants (`TILE`) ptxas decides that test and removes the
/// check, and the 32-bit computation is the one left (the tiled matmul's `ta[ty * TILE + k]`).
fn other_uses(func: &Func) -> HashSet<Reg> {
    let truncation = |inst: &Inst| matches!(&inst.kind, InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U32 | Type::S32 | Type::B32, Type::U64 | Type::S64 | Type::B64), .. });
    let mut users: HashMap<Reg, Vec<&Inst>> = HashMap::default();
    let mut branched: HashMap<Reg, Vec<usize>> = HashMap::default();
    for block in &func.blocks {
        for inst in &block.insts {
            for r in inst.uses() {
                users.entry(r).or_default().push(inst);
            }
        }
        if let Term::Branch { pred, if_true, .. } = block.term {
            branched.entry(pred).or_default().push(if_true.0 as usize);
        }
    }
    // `q` only decides a branch to a failure.
    let fails_only = |q: Reg| !users.contains_key(&q) && branched.get(&q).is_some_and(|t| t.iter().all(|&t| super::hoist::failure(func, t)));
    // `p` is only and-ed into such a `q`.
    let guarded_check = |p: Reg| {
        !branched.contains_key(&p)
            && users.get(&p).is_some_and(|us| {
                us.iter().all(|u| matches!(&u.kind, InstKind::Op { opcode: Opcode::Arith(Arith::And, Mode::None, Type::Pred), defs: 1, args } if matches!(args[0], Arg::Reg(q) if fails_only(q))))
            })
    };
    let mut out = HashSet::default();
    for (r, us) in &users {
        let counted = us.iter().any(|u| {
            let check = matches!(&u.kind, InstKind::Op { opcode: Opcode::Setp(..), defs: 1, args } if matches!(args[0], Arg::Reg(p) if guarded_check(p)));
            !truncation(u) && !check
        });
        if counted {
            out.insert(*r);
        }
    }
    out.extend(branched.keys().copied());
    out
}

/// Whether the instruction at `(b, i)` is one whose low half the narrower computes.
fn narrowable(func: &Func, b: usize, i: usize) -> bool {
    let inst = &func.blocks[b].insts[i];
    inst.guard.is_none() && matches!(&inst.kind, InstKind::Op { opcode, defs: 1, .. } if low_op(*opcode).is_some())
}

/// The 32-bit instruction computing the low half of a 64-bit one's result, or of a widening
/// multiply's.
fn low_op(opcode: Opcode) -> Option<Opcode> {
    let wide = |t: Type| matches!(t, Type::U64 | Type::S64 | Type::B64);
    Some(match opcode {
        Opcode::Arith(op @ (Arith::Add | Arith::Sub | Arith::Neg), Mode::None, t) if wide(t) => Opcode::arith(op, Type::S32),
        Opcode::Arith(Arith::Mul, Mode::Lo, t) if wide(t) => Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32),
        Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32 | Type::S32) => Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32),
        Opcode::Arith(op @ (Arith::Shl | Arith::And | Arith::Or | Arith::Xor | Arith::Not), Mode::None, t) if wide(t) => Opcode::arith(op, Type::B32),
        _ => return None,
    })
}

struct Narrower<'a> {
    func: &'a Func,
    /// Each register's number of writes, by register number.
    defs: &'a [usize],
    site: &'a super::hoist::DefSites,
    /// Each block's predecessors.
    preds: &'a [Vec<usize>],
    /// The truncation's block and index.
    at: (usize, usize),
    out: Vec<Inst>,
    /// New registers are numbered from here (renumbered apart afterwards).
    base: u32,
    /// The classes of the new registers, in order.
    new_regs: Vec<RegClass>,
}

impl Narrower<'_> {
    fn fresh(&mut self, class: RegClass) -> Reg {
        self.new_regs.push(class);
        Reg(self.base + self.new_regs.len() as u32 - 1)
    }

    /// Whether `r`, read at `read` (block, index), has the same value at the truncation.
    fn same_at_truncation(&self, r: Reg, read: (usize, usize)) -> bool {
        if self.defs.get(r.0 as usize) == Some(&1) {
            return true;
        }
        // Back from the truncation through blocks entered only from one block (the rest of a
        // bounds check), to the read, with no write of `r` on the way.
        let (mut b, mut end) = self.at;
        for _ in 0..16 {
            let insts = &self.func.blocks[b].insts;
            // From the reading instruction itself, which may write `r` too (`add k, k, 1`).
            let here = b == read.0 && read.1 < end;
            let start = if here { read.1 } else { 0 };
            if insts[start..end].iter().any(|inst| inst.defs().contains(&r)) {
                return false;
            }
            if here {
                return true;
            }
            match self.preds[b].as_slice() {
                [p] if *p != b => {
                    b = *p;
                    end = self.func.blocks[b].insts.len();
                }
                _ => return false,
            }
        }
        false
    }

    /// The write of `r` that a read at `read` sees, where it is found going back through
    /// blocks entered only from one block (the loop's own update of a copy, `hoist`'s clones).
    fn reaching_def(&self, r: Reg, read: (usize, usize)) -> Option<(usize, usize)> {
        let (mut b, mut end) = read;
        for _ in 0..16 {
            let insts = &self.func.blocks[b].insts;
            if let Some(i) = insts[..end].iter().rposition(|inst| inst.defs().contains(&r)) {
                return Some((b, i));
            }
            match self.preds[b].as_slice() {
                [p] if *p != b => {
                    b = *p;
                    end = self.func.blocks[b].insts.len();
                }
                _ => return None,
            }
        }
        None
    }

    /// The low 32 bits of `a` (a 64-bit operand, or a 32-bit one where `a` feeds a widening
    /// multiply), read at `read`, as an operand valid at the truncation.
    fn low(&mut self, a: Arg, read: (usize, usize), depth: usize) -> Option<Arg> {
        match a {
            Arg::Imm(Imm::Int(v)) => Some(Arg::imm(v as u32 as i32 as i64)),
            // A constant from outside the body (`TILE`), a number rustc writes.
            Arg::Sym(Sym::Piece(_)) => {
                let (w, t) = (self.fresh(RegClass::B64), self.fresh(RegClass::B32));
                self.out.push(Inst::op(Opcode::Mov(Type::U64), 1, vec![Arg::Reg(w), a]));
                self.out.push(Inst::op(Opcode::Cvt(Mode::None, Type::U32, Type::U64), 1, vec![Arg::Reg(t), Arg::Reg(w)]));
                Some(Arg::Reg(t))
            }
            Arg::Reg(r) => {
                if !self.same_at_truncation(r, read) {
                    return None;
                }
                if self.func.class(r) == RegClass::B32 {
                    return Some(Arg::Reg(r));
                }
                if self.func.class(r) != RegClass::B64 {
                    return None;
                }
                if let Some(low) = self.through_def(r, read, depth) {
                    return Some(low);
                }
                let t = self.fresh(RegClass::B32);
                self.out.push(Inst::op(Opcode::Cvt(Mode::None, Type::U32, Type::U64), 1, vec![Arg::Reg(t), Arg::Reg(r)]));
                Some(Arg::Reg(t))
            }
            _ => None,
        }
    }

    /// The low half of `r` computed from its single definition's operands, where that is one
    /// of the instructions the low half of which is exact, or a widening.
    fn through_def(&mut self, r: Reg, read: (usize, usize), depth: usize) -> Option<Arg> {
        if depth >= DEPTH {
            return None;
        }
        let (b, i) = if self.defs.get(r.0 as usize) == Some(&1) { *self.site.get(&r)? } else { self.reaching_def(r, read)? };
        let inst = &self.func.blocks[b].insts[i];
        let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { return None };
        if inst.guard.is_some() {
            return None;
        }
        match *opcode {
            // A widened 32-bit value: its low half is the value.
            Opcode::Cvt(Mode::None, Type::U64 | Type::S64, Type::U32 | Type::S32) => {
                let src = args[1].clone();
                match src {
                    Arg::Reg(x) if self.func.class(x) == RegClass::B32 && self.same_at_truncation(x, (b, i)) => Some(Arg::Reg(x)),
                    _ => None,
                }
            }
            Opcode::Mov(Type::U64 | Type::S64 | Type::B64) => match &args[1] {
                Arg::Imm(Imm::Int(v)) => Some(Arg::imm(*v as u32 as i32 as i64)),
                _ => None,
            },
            op => {
                let low = low_op(op)?;
                let sources = args[1..].to_vec();
                let mut lows = Vec::with_capacity(sources.len());
                for (k, s) in sources.into_iter().enumerate() {
                    // A shift's amount is a 32-bit operand already.
                    let is_amount = matches!(low, Opcode::Arith(Arith::Shl, ..)) && k == 1;
                    let l = match (&s, is_amount) {
                        (Arg::Reg(x), true) if self.same_at_truncation(*x, (b, i)) => Some(s.clone()),
                        (Arg::Imm(_), true) => Some(s.clone()),
                        (_, true) => None,
                        _ => self.low(s, (b, i), depth + 1),
                    };
                    lows.push(l?);
                }
                let t = self.fresh(RegClass::B32);
                let mut args = vec![Arg::Reg(t)];
                args.extend(lows);
                self.out.push(Inst::op(low, 1, args));
                Some(Arg::Reg(t))
            }
        }
    }
}

/// How many times each register is written, where (block, index) the registers written once
/// are written, and each block's predecessors: what a [`Narrower`] walks.
fn def_sites(func: &Func) -> (Vec<usize>, super::hoist::DefSites, Vec<Vec<usize>>) {
    let (defs, site) = super::hoist::single_defs(func);
    let mut preds = vec![Vec::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for s in block.term.successors() {
            preds[s.0 as usize].push(b);
        }
    }
    (defs, site, preds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Builder, Mem, StateSpace};

    /// The 32-bit instructions `run` put in block 0, as (opcode, immediate operands).
    fn narrowed(f: &Func) -> Vec<(Opcode, Vec<i64>)> {
        f.blocks[0]
            .insts
            .iter()
            .filter_map(|i| match &i.kind {
                InstKind::Op { opcode: opcode @ Opcode::Arith(_, _, Type::S32 | Type::B32), args, .. } => {
                    Some((*opcode, args.iter().filter_map(|a| if let Arg::Imm(Imm::Int(v)) = a { Some(*v) } else { None }).collect()))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_low_half_goes_down_to_widened_values_and_constants() {
        // (cvt.u64.u32(t) * 16 + 0x1_0000_0003) as u32
        let mut b = Builder::new();
        let t = b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named("%tid.x")]);
        let w = b.op1(Opcode::Cvt(Mode::None, Type::U64, Type::U32), RegClass::B64, vec![Arg::Reg(t)]);
        let m = b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), RegClass::B64, vec![Arg::Reg(w), Arg::imm(16)]);
        let s = b.op1(Opcode::arith(Arith::Add, Type::S64), RegClass::B64, vec![Arg::Reg(m), Arg::imm(0x1_0000_0003)]);
        b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![Arg::Reg(s)]);
        let mut f = b.finish();
        run(&mut f);
        assert_eq!(narrowed(&f), vec![(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32), vec![16]), (Opcode::arith(Arith::Add, Type::S32), vec![3])]);
    }

    #[test]
    fn a_value_written_in_place_is_read_after_its_write() {
        // v = ld; v = v + 5 (in place); (v * 3) as u32: the product read v + 5, which is what
        // the truncation must read, not v + 5 + 5.
        let mut b = Builder::new();
        let v = b.reg(RegClass::B64);
        let p = b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![Arg::Sym(Sym::Param(0))]);
        b.op_into(Opcode::Ld(Mem::plain(StateSpace::Global, Type::U64)), v, vec![Arg::mem(Arg::Reg(p), 0)]);
        b.op_into(Opcode::arith(Arith::Add, Type::S64), v, vec![Arg::Reg(v), Arg::imm(5)]);
        let m = b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), RegClass::B64, vec![Arg::Reg(v), Arg::imm(3)]);
        b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![Arg::Reg(m)]);
        let mut f = b.finish();
        run(&mut f);
        assert_eq!(narrowed(&f), vec![(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32), vec![3])]);
    }
}

