//! Arithmetic on `f16` and `bf16` (`half::f16`, `half::bf16`): `+ - * / %`, unary `-`,
//! comparisons, `min`/`max`. The host runs the same body with the `half` crate, which computes
//! each operation in `f32` and rounds once to 16 bits; the device's result is bit-identical
//! (NaN results aside: any NaN, as on the host).
//!
//! - `f16`: `add.rn.f16`, `sub.rn.f16`, `mul.rn.f16`, `setp.<cmp>.f16` — what nvcc emits for
//!   `__hadd_rn`, `__hsub_rn`, `__hmul_rn`, `__hlt`… (sm_53 and newer: every target we
//!   compile for). `.rn`, so ptxas never contracts `a * b + c` into an `fma`.
//! - `bf16`, by the kernel's target (`#[kernel(sm = ..)]`), as `cuda_bf16.h` chooses:
//!   sm_90 and newer `add.rn.bf16` / `sub.rn.bf16` / `mul.rn.bf16` / `setp.<cmp>.bf16`;
//!   sm_80–sm_89 the `fma.rn.bf16` forms (`a * 1.0 + b`, `b * -1.0 + a`, `a * b + -0.0`) and
//!   comparisons in `f32`; older targets compute in `f32` and round to nearest even. Each is
//!   one correctly rounded operation, so the target changes the instructions, never the value.
//! - `/` and `%` compute in `f32` and round once, as `half` does (for `/` that is the
//!   correctly rounded quotient: f32 has more than twice the bits of f16 and bf16 plus two).
//! - `-x` flips the sign bit (`xor.b16`), exactly `half`'s `Neg`, NaN included.
//! - `copysign`, `is_nan`, `is_infinite`, `is_finite`, `is_sign_negative/positive`: bit tests,
//!   as `half` defines them.
//! - `min`/`max` are `half`'s: a NaN receiver gives the other operand, and `max` keeps the
//!   receiver unless the other is greater (so `(+0.0).max(-0.0)` is `+0.0`) — a `setp` and a
//!   `selp`, not `__hmax`, whose signed-zero and NaN rules differ from the host's.

use super::value::Val;
use super::Lowerer;
use crate::front::hir::BinOp;
use crate::front::intrinsic::FloatOp;
use crate::ir::{Arg, Arith, Cmp, Imm, Mode, Opcode, Reg, RegClass, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

/// How a target computes `bf16` arithmetic.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Bf16Isa {
    /// `add/sub/mul.rn.bf16`, `setp.bf16` (sm_90).
    Native,
    /// `fma.rn.bf16` only (sm_80).
    Fma,
    /// In `f32`, rounded to bf16 (older targets).
    F32,
}

impl<'a, 'e> Lowerer<'a, 'e> {
    pub(super) fn bf16_isa(&self) -> Bf16Isa {
        match self.cx.target.sm {
            90.. => Bf16Isa::Native,
            80.. => Bf16Isa::Fma,
            _ => Bf16Isa::F32,
        }
    }

    /// A 16-bit float operand in a register: PTX's `f16`/`bf16` instructions take no
    /// immediates.
    pub(super) fn half_reg(&mut self, v: &Val) -> Arg {
        match v.arg() {
            Arg::Imm(i) => {
                let bits = match i {
                    Imm::Int(b) => b,
                    _ => 0,
                };
                Arg::Reg(self.b.op1(Opcode::Mov(Type::B16), RegClass::B16, vec![Arg::imm(bits & 0xffff)]))
            }
            a => a,
        }
    }

    /// `a op b` on `f16`/`bf16` (`s`).
    pub fn half_binop(&mut self, op: BinOp, s: Scalar, lv: &Val, rv: &Val, span: Span) -> Val {
        let native = s == Scalar::F16 || self.bf16_isa() == Bf16Isa::Native;
        let arith = match op {
            BinOp::Add => Arith::Add,
            BinOp::Sub => Arith::Sub,
            BinOp::Mul => Arith::Mul,
            BinOp::Div | BinOp::Rem => return self.half_in_f32(op, s, lv, rv, span),
            _ => return self.error(span, "internal: bitwise operator on 16-bit floats"),
        };
        if !native && self.bf16_isa() == Bf16Isa::F32 {
            return self.half_in_f32(op, s, lv, rv, span);
        }
        let (a, b) = (self.half_reg(lv), self.half_reg(rv));
        let r = if native {
            let t = if s == Scalar::F16 { Type::F16 } else { Type::BF16 };
            self.b.op1(Opcode::Arith(arith, Mode::Rn, t), RegClass::B16, vec![a, b])
        } else {
            // cuda_bf16.h's sm_80 forms: a*1+b, b*-1+a, a*b+-0 (exact, then one rounding).
            let c = |l: &mut Self, bits: i64| Arg::Reg(l.b.op1(Opcode::Mov(Type::B16), RegClass::B16, vec![Arg::imm(bits)]));
            let args = match arith {
                Arith::Add => vec![a, c(self, 0x3f80), b],
                Arith::Sub => vec![b, c(self, 0xbf80), a],
                _ => vec![a, b, c(self, 0x8000)],
            };
            self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rn, Type::BF16), RegClass::B16, args)
        };
        Val::S(Arg::Reg(r))
    }

    /// `a op b` computed in `f32` and rounded once to `s`.
    fn half_in_f32(&mut self, op: BinOp, s: Scalar, lv: &Val, rv: &Val, span: Span) -> Val {
        let (a, b) = (self.convert(lv, s, Scalar::F32), self.convert(rv, s, Scalar::F32));
        let r = self.binop(op, Scalar::F32, Scalar::F32, &a, &b, span);
        if matches!(r, Val::Unit) {
            return r;
        }
        self.convert(&r, Scalar::F32, s)
    }

    /// `setp` for a comparison of two `f16`/`bf16` values (in `f32` where the target has no
    /// `setp.bf16`: widening is exact).
    pub fn half_compare(&mut self, op: BinOp, s: Scalar, lv: &Val, rv: &Val) -> Reg {
        if s == Scalar::BF16 && self.bf16_isa() != Bf16Isa::Native {
            let (a, b) = (self.convert(lv, s, Scalar::F32), self.convert(rv, s, Scalar::F32));
            return self.compare(op, Scalar::F32, &a, &b);
        }
        let cmp = match op {
            BinOp::Eq => Cmp::Eq,
            BinOp::Ne => Cmp::Neu,
            BinOp::Lt => Cmp::Lt,
            BinOp::Le => Cmp::Le,
            BinOp::Gt => Cmp::Gt,
            _ => Cmp::Ge,
        };
        let t = if s == Scalar::F16 { Type::F16 } else { Type::BF16 };
        let (a, b) = (self.half_reg(lv), self.half_reg(rv));
        self.b.op1(Opcode::Setp(cmp, t), RegClass::Pred, vec![a, b])
    }

    /// `-x`: the sign bit flipped.
    pub fn half_neg(&mut self, v: &Val) -> Val {
        let a = self.half_reg(v);
        Val::S(Arg::Reg(self.b.op1(Opcode::arith(Arith::Xor, Type::B16), RegClass::B16, vec![a, Arg::imm(0x8000)])))
    }

    /// The `half` methods device code has: `min`, `max`, `copysign` and the classifications
    /// (by bits: exactly `half`'s definitions).
    pub fn half_method(&mut self, op: FloatOp, s: Scalar, v: &[Val], span: Span) -> Val {
        let exp = if s == Scalar::F16 { 0x7c00 } else { 0x7f80 };
        let a = self.half_reg(&v[0]);
        let and = |l: &mut Self, x: Arg, m: i64| Arg::Reg(l.b.op1(Opcode::arith(Arith::And, Type::B16), RegClass::B16, vec![x, Arg::imm(m)]));
        let cmp = |l: &mut Self, c: Cmp, x: Arg, k: i64| Val::S(Arg::Reg(l.b.op1(Opcode::Setp(c, Type::U16), RegClass::Pred, vec![x, Arg::imm(k)])));
        match op {
            FloatOp::Min | FloatOp::Max => self.half_min_max(op == FloatOp::Max, s, &v[0], &v[1]),
            FloatOp::MulAdd => self.half_fma(s, &v[0], &v[1], &v[2]),
            FloatOp::Abs => self.half_abs(s, &v[0]),
            FloatOp::Copysign => {
                let (mag, b) = (and(self, a, 0x7fff), self.half_reg(&v[1]));
                let sign = and(self, b, 0x8000);
                Val::S(Arg::Reg(self.b.op1(Opcode::arith(Arith::Or, Type::B16), RegClass::B16, vec![mag, sign])))
            }
            FloatOp::IsNan | FloatOp::IsInfinite | FloatOp::IsFinite => {
                let mag = and(self, a, 0x7fff);
                let c = match op {
                    FloatOp::IsNan => Cmp::Gt,
                    FloatOp::IsInfinite => Cmp::Eq,
                    _ => Cmp::Lt,
                };
                cmp(self, c, mag, exp)
            }
            FloatOp::IsSignNegative | FloatOp::IsSignPositive => {
                let sign = and(self, a, 0x8000);
                cmp(self, if op == FloatOp::IsSignNegative { Cmp::Ne } else { Cmp::Eq }, sign, 0)
            }
            _ => self.error(span, "internal: a 16-bit float method the front admits but the lowering lacks"),
        }
    }

    /// `x.min(y)` / `x.max(y)` as `half` defines them: `y` when `x` is NaN or `y` is less
    /// (greater), else `x`.
    pub fn half_min_max(&mut self, max: bool, s: Scalar, x: &Val, y: &Val) -> Val {
        let (xa, ya) = (Val::S(self.half_reg(x)), Val::S(self.half_reg(y)));
        let better = self.half_compare(if max { BinOp::Gt } else { BinOp::Lt }, s, &ya, &xa);
        let nan = self.half_compare(BinOp::Ne, s, &xa, &xa);
        let take_y = self.b.op1(Opcode::arith(Arith::Or, Type::Pred), RegClass::Pred, vec![Arg::Reg(better), Arg::Reg(nan)]);
        Val::S(Arg::Reg(self.b.op1(Opcode::Selp(Type::B16), RegClass::B16, vec![ya.arg(), xa.arg(), Arg::Reg(take_y)])))
    }
}
