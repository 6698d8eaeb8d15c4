//! A widened `u32` index scaled by an element's size is one `mul.wide.u32`.
//!
//! `y[i as usize]` with a 32-bit counter `i` is `cvt.u64.u32 a, i` then `shl.b64 b, a, 2` (or
//! `mul.lo.s64 b, a, 12` for a 12-byte element): ptxas makes the shift a `LEA` and a
//! `LEA.HI.X`, where nvcc's `mul.wide.u32 b, i, 4` for the same CUDA C is one `IMAD.WIDE.U32`
//! that also adds the base. The lowering writes `mul.wide` itself where the index is an
//! immutable `u32` widened (`lower::place`); a mutable local's register may be written again
//! between the widening and the access, so the lowering leaves that case to this pass, which
//! sees both instructions.
//!
//! `zext(i) << k` is `zext(i) * 2^k`, and `mul.wide.u32 i, m` is the exact 64-bit product of
//! `i` and `m` as unsigned values, so the two are equal for every `i` when `m = 2^k` fits in 32
//! bits; the same holds for `mul.lo.s64 zext(i), m` with `m` below 2^32 (the product of a
//! value below 2^32 and one below 2^32 is below 2^64: no wrap), and for `mul.lo.s64 zext(i),
//! zext(j)`, which becomes `mul.wide.u32 i, j` (softmax's row base `row * n`: ptxas then
//! recomputes `base + j` in the loop with one `IMAD.WIDE.U32`, as it does nvcc's, instead of
//! keeping a 64-bit product live across it). The rewrite is made where the
//! widening reaches the scaling on a straight path (its block, or blocks before it each entered
//! only from the one before: a bounds check's continuation) and nothing between writes `i`; the
//! widening stays for any other reader (dead code otherwise).

use super::dom::Cfg;
use super::{Arg, Arith, Func, Imm, Inst, InstKind, Mode, Opcode, Reg, Type};

/// How many blocks back the widening is looked for.
const DEPTH: usize = 4;

pub fn run(func: &mut Func) {
    let preds = Cfg::new(func).preds;
    for b in 0..func.blocks.len() {
        for at in 0..func.blocks[b].insts.len() {
            let inst = &func.blocks[b].insts[at];
            let InstKind::Op { opcode, defs: 1, args } = &inst.kind else { continue };
            if inst.guard.is_some() || args.len() != 3 {
                continue;
            }
            // Two widened `u32` values: softmax's row base `row * n` (`block_idx_x() as usize`
            // times `cols as usize`), nvcc's `mul.wide.u32` of the two, which ptxas recomputes
            // with the counter in one `IMAD.WIDE.U32` where it would keep a 64-bit product live.
            if let (Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64 | Type::U64), [dst, Arg::Reg(x), Arg::Reg(y)]) = (opcode, &args[..]) {
                let (dst, loc, x, y) = (dst.clone(), inst.loc, *x, *y);
                if let (Some(nx), Some(ny)) = (widened(func, &preds, b, at, x), widened(func, &preds, b, at, y)) {
                    let args = vec![dst, Arg::Reg(nx), Arg::Reg(ny)];
                    func.blocks[b].insts[at] = Inst::op(Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32), 1, args).at(loc);
                }
                continue;
            }
            let Arg::Imm(Imm::Int(n)) = args[2] else { continue };
            let factor = match opcode {
                Opcode::Arith(Arith::Shl, Mode::None, Type::B64 | Type::U64 | Type::S64) if (0..32).contains(&n) => 1u64 << n,
                Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64 | Type::U64) if (1..1 << 32).contains(&n) => n as u64,
                _ => continue,
            };
            let (dst, loc) = (args[0].clone(), inst.loc);
            let Arg::Reg(wide) = args[1] else { continue };
            let Some(narrow) = widened(func, &preds, b, at, wide) else { continue };
            let args = vec![dst, Arg::Reg(narrow), Arg::imm(factor as i64)];
            func.blocks[b].insts[at] = Inst::op(Opcode::Arith(Arith::Mul, Mode::Wide, Type::U32), 1, args).at(loc);
        }
    }
}

/// The `u32` register that `wide` is the widening of where instruction `at` of block `b` reads
/// it, and that still holds the same value there: the widening is found by walking back
/// through `b` and the blocks before it that are each the only way into the next (so the last
/// write on the walk is the one every path sees), and nothing after it on the walk writes the
/// `u32` register.
fn widened(func: &Func, preds: &[Vec<usize>], b: usize, at: usize, wide: Reg) -> Option<Reg> {
    let (mut blk, mut end) = (b, at);
    // Blocks walked after the one searched: none of them may write the `u32` register.
    let mut after: Vec<(usize, usize)> = Vec::new();
    for _ in 0..DEPTH {
        let insts = &func.blocks[blk].insts[..end];
        if let Some(w) = insts.iter().rposition(|x| x.defs().contains(&wide)) {
            let InstKind::Op { opcode: Opcode::Cvt(Mode::None, Type::U64, Type::U32), args, .. } = &insts[w].kind else { return None };
            let Arg::Reg(narrow) = args[1] else { return None };
            let writes = |insts: &[Inst]| insts.iter().any(|x| x.defs().contains(&narrow));
            let rewritten = writes(&insts[w + 1..]) || after.iter().any(|&(c, e)| writes(&func.blocks[c].insts[..e]));
            return (insts[w].guard.is_none() && !rewritten).then_some(narrow);
        }
        after.push((blk, end));
        let [p] = preds[blk][..] else { return None };
        if p == b || after.iter().any(|&(c, _)| c == p) {
            return None;
        }
        (blk, end) = (p, func.blocks[p].insts.len());
    }
    None
}
