//! The packed pairs' methods and negation (`front::half2`), as `cuda_fp16.h` /
//! `cuda_bf16.h` emit them for each target:
//!
//! | operation | `f16x2` | `bf16x2` sm_90 | `bf16x2` sm_80 | `bf16x2` sm_75 |
//! |-----------|---------|----------------|----------------|----------------|
//! | `mul_add` (`__hfma2`) | `fma.rn.f16x2` | `fma.rn.bf16x2` | `fma.rn.bf16x2` | each lane as the scalar `mul_add` |
//! | `-` (`__hneg2`) | `neg.f16x2` | `neg.bf16x2` | `neg.bf16x2` | each lane's sign flipped |
//! | `abs` (`__habs2`) | `abs.f16x2` | `abs.bf16x2` | `abs.bf16x2` | each lane `and.b16 0x7fff` |
//! | `min`/`max` (`__hmin2`) | `min.f16x2` (sm_80+); sm_75 each lane `min.f32` | `min.bf16x2` | `min.bf16x2` | each lane `min.f32` |
//! | `eq2` … (`__heq2`) | `set.<cmp>.f16x2.f16x2` | `set.<cmp>.bf16x2.bf16x2` | each lane `set.<cmp>.f32.f32` of its bits shifted into an f32 | as sm_80 |
//! | `all_eq` … (`__hbeq2`) | `set.<cmp>.u32.f16x2`, `setp.eq.s32 r, -1` | `set.<cmp>.bf16x2.bf16x2`, `setp.eq.s32 r, 0x3f803f80` | each lane's `setp` in f32, `and.pred` | as sm_80 |
//!
//! Widening to `f32` is exact and `min.f32` follows the same rules as `min.f16x2` (a NaN
//! operand gives the other, `-0.0 < +0.0`), so every target computes the same lanes; the
//! host's `half_pair_math` computes them by those rules.

use super::half::Bf16Isa;
use super::value::Val;
use super::Lowerer;
use crate::front::half2::Half2Op;
use crate::front::hir::BinOp;
use crate::ir::{Arg, Arith, Cmp, Mode, Opcode, Reg, RegClass, Type};
use ptx_abi::Scalar;

fn cmp_of(op: BinOp) -> Cmp {
    match op {
        BinOp::Eq => Cmp::Eq,
        BinOp::Ne => Cmp::Neu,
        BinOp::Lt => Cmp::Lt,
        BinOp::Le => Cmp::Le,
        BinOp::Gt => Cmp::Gt,
        _ => Cmp::Ge,
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    fn pair_type(s: Scalar) -> Type {
        if s == Scalar::F16 { Type::F16x2 } else { Type::BF16x2 }
    }

    /// Whether the target has `bf16x2` instructions beyond `fma` (`neg`, `abs`, `min`, `max`
    /// on sm_80; `f16x2` always has them, `min`/`max` aside).
    fn pair_native(&self, s: Scalar) -> bool {
        s == Scalar::F16 || self.bf16_isa() != Bf16Isa::F32
    }

    /// `-v` on a pair of `s`.
    pub fn half2_neg(&mut self, s: Scalar, v: &Val) -> Val {
        if !self.pair_native(s) {
            let (x, y) = (self.half_neg(&v.field(0)), self.half_neg(&v.field(1)));
            return Val::Agg(vec![x, y]);
        }
        let a = self.pack2(v);
        let r = self.b.op1(Opcode::arith(Arith::Neg, Self::pair_type(s)), RegClass::B32, vec![a]);
        self.unpack2(r)
    }

    /// A method of a pair of `s`: `v[0]` the receiver, then the operands.
    pub fn half2_op(&mut self, op: Half2Op, s: Scalar, v: &[Val]) -> Val {
        let t = Self::pair_type(s);
        match op {
            Half2Op::MulAdd if self.pair_native(s) => {
                let args = v.iter().map(|x| self.pack2(x)).collect();
                let r = self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rn, t), RegClass::B32, args);
                self.unpack2(r)
            }
            Half2Op::MulAdd => {
                let lane = |l: &mut Self, i: usize| l.half_fma(s, &v[0].field(i), &v[1].field(i), &v[2].field(i));
                Val::Agg(vec![lane(self, 0), lane(self, 1)])
            }
            Half2Op::Abs if self.pair_native(s) => {
                if s == Scalar::F16 {
                    self.need_isa(6, 5); // `abs.f16x2` arrived in PTX ISA 6.5
                }
                let a = self.pack2(&v[0]);
                let r = self.b.op1(Opcode::arith(Arith::Abs, t), RegClass::B32, vec![a]);
                self.unpack2(r)
            }
            Half2Op::Abs => Val::Agg(vec![self.half_abs(s, &v[0].field(0)), self.half_abs(s, &v[0].field(1))]),
            Half2Op::Min | Half2Op::Max => {
                let arith = if op == Half2Op::Min { Arith::Min } else { Arith::Max };
                let packed = if s == Scalar::F16 { self.cx.target.sm >= 80 } else { self.pair_native(s) };
                if packed {
                    let (a, b) = (self.pack2(&v[0]), self.pack2(&v[1]));
                    let r = self.b.op1(Opcode::arith(arith, t), RegClass::B32, vec![a, b]);
                    return self.unpack2(r);
                }
                let lane = |l: &mut Self, i: usize| {
                    let (a, b) = (l.convert(&v[0].field(i), s, Scalar::F32), l.convert(&v[1].field(i), s, Scalar::F32));
                    let r = l.b.op1(Opcode::arith(arith, Type::F32), RegClass::F32, vec![a.arg(), b.arg()]);
                    l.convert(&Val::S(Arg::Reg(r)), Scalar::F32, s)
                };
                Val::Agg(vec![lane(self, 0), lane(self, 1)])
            }
            Half2Op::Lanes(c) => {
                let (a, b) = (self.pack2(&v[0]), self.pack2(&v[1]));
                let r = if self.pair_native(s) && (s == Scalar::F16 || self.bf16_isa() == Bf16Isa::Native) {
                    self.b.op1(Opcode::Set(cmp_of(c), t, t), RegClass::B32, vec![a, b])
                } else {
                    self.bf16x2_set_in_f32(cmp_of(c), a, b)
                };
                self.unpack2(r)
            }
            Half2Op::All(c) => {
                if s == Scalar::F16 || self.bf16_isa() == Bf16Isa::Native {
                    let (a, b) = (self.pack2(&v[0]), self.pack2(&v[1]));
                    let (d, all) = if s == Scalar::F16 { (Type::U32, -1) } else { (t, 0x3f80_3f80) };
                    let r = self.b.op1(Opcode::Set(cmp_of(c), d, t), RegClass::B32, vec![a, b]);
                    let p = self.b.op1(Opcode::Setp(Cmp::Eq, Type::S32), RegClass::Pred, vec![Arg::Reg(r), Arg::imm(all)]);
                    return Val::S(Arg::Reg(p));
                }
                let x = self.half_compare(c, s, &v[0].field(0), &v[1].field(0));
                let y = self.half_compare(c, s, &v[0].field(1), &v[1].field(1));
                Val::S(Arg::Reg(self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(x), Arg::Reg(y)])))
            }
        }
    }

    /// `bf16x2` lane-wise `set` where the target has none, as `cuda_bf16.h` writes it: each
    /// lane's bits as the high half of an f32 (exact), `set.<cmp>.f32.f32` (1.0f, whose high
    /// half is bf16's 1.0), the low lane's result shifted down.
    fn bf16x2_set_in_f32(&mut self, c: Cmp, a: Arg, b: Arg) -> Reg {
        let op = |l: &mut Self, o: Arith, x: &Arg, k: i64| l.b.op1(Opcode::arith(o, Type::B32), RegClass::B32, vec![x.clone(), Arg::imm(k)]);
        let (high_a, high_b) = (op(self, Arith::And, &a, 0xffff_0000), op(self, Arith::And, &b, 0xffff_0000));
        let (low_a, low_b) = (op(self, Arith::Shl, &a, 16), op(self, Arith::Shl, &b, 16));
        let set = Opcode::Set(c, Type::F32, Type::F32);
        let low = self.b.op1(set, RegClass::B32, vec![Arg::Reg(low_a), Arg::Reg(low_b)]);
        let high = self.b.op1(set, RegClass::B32, vec![Arg::Reg(high_a), Arg::Reg(high_b)]);
        let low = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(low), Arg::imm(16)]);
        self.b.op1(Opcode::arith(Arith::Or, Type::B32), RegClass::B32, vec![Arg::Reg(high), Arg::Reg(low)])
    }
}
