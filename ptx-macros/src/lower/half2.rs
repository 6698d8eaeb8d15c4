//! The packed pairs `f16x2` / `bf16x2` (CUDA's `__half2`, `__nv_bfloat162`): `+ - *` (and
//! `+=`, `-=`, `*=`) lane-wise, in one `.b32` register as nvcc computes them:
//!
//! - `f16x2`: `add.rn.f16x2`, `sub.rn.f16x2`, `mul.rn.f16x2` (every target), what
//!   `cuda_fp16.h` emits for `__hadd2_rn`, `__hsub2_rn`, `__hmul2_rn`.
//! - `bf16x2` by target, as `cuda_bf16.h`: sm_90 `add/sub/mul.rn.bf16x2`; sm_80 the
//!   `fma.rn.bf16x2` forms (`a * 1.0 + b`, `b * -1.0 + a`, `a * b + -0.0`, each lane rounded
//!   once); before sm_80 each lane as the scalar `bf16` operation (in `f32`).
//!
//! A pair lives in the body as its two lanes (the storage vector type); an operation packs
//! them into a `.b32` (`cvt`, `shl`, `or`), computes, and unpacks — ptxas folds the moves.
//! Each lane's result is the scalar operation's, so the host's lane-wise `half` arithmetic
//! gives the same bits.

use super::half::Bf16Isa;
use super::value::Val;
use super::Lowerer;
use crate::front::hir::BinOp;
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Mode, Opcode, RegClass, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// The lane type of an `f16x2` / `bf16x2`.
    pub fn half2_of(&self, ty: &Ty) -> Option<Scalar> {
        match self.ty(ty) {
            Ty::Vector { elem: s @ (Scalar::F16 | Scalar::BF16), lanes: 2 } => Some(s),
            _ => None,
        }
    }

    /// `a op b` lane-wise on a pair of `s`.
    pub fn half2_binop(&mut self, op: BinOp, s: Scalar, lv: &Val, rv: &Val, span: Span) -> Val {
        let bf16 = s == Scalar::BF16;
        let isa = self.bf16_isa();
        let arith = match op {
            BinOp::Add => Arith::Add,
            BinOp::Sub => Arith::Sub,
            _ => Arith::Mul,
        };
        if bf16 && isa == Bf16Isa::F32 {
            let x = self.half_binop(op, s, &lv.field(0), &rv.field(0), span);
            let y = self.half_binop(op, s, &lv.field(1), &rv.field(1), span);
            return Val::Agg(vec![x, y]);
        }
        let (a, b) = (self.pack2(lv), self.pack2(rv));
        let r = if !bf16 || isa == Bf16Isa::Native {
            let t = if bf16 { Type::BF16x2 } else { Type::F16x2 };
            self.b.op1(Opcode::Arith(arith, Mode::Rn, t), RegClass::B32, vec![a, b])
        } else {
            let c = |l: &mut Self, bits: i64| Arg::Reg(l.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::imm(bits)]));
            let args = match arith {
                Arith::Add => vec![a, c(self, 0x3f80_3f80), b],
                Arith::Sub => vec![b, c(self, 0xbf80_bf80), a],
                _ => vec![a, b, c(self, 0x8000_8000)],
            };
            self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rn, Type::BF16x2), RegClass::B32, args)
        };
        self.unpack2(r)
    }

    /// The two 16-bit lanes in one `.b32`: `x` low, `y` high (memory order, as nvcc's
    /// `mov.b32 %r, {x, y}`).
    pub(super) fn pack2(&mut self, v: &Val) -> Arg {
        let (x, y) = (self.half_reg(&v.field(0)), self.half_reg(&v.field(1)));
        let lo = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![x]);
        let hi = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![y]);
        let hi = self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(hi), Arg::imm(16)]);
        Arg::Reg(self.b.op1(Opcode::arith(Arith::Or, Type::B32), RegClass::B32, vec![Arg::Reg(lo), Arg::Reg(hi)]))
    }

    pub(super) fn unpack2(&mut self, r: crate::ir::Reg) -> Val {
        let x = self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(r)]);
        let hi = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(r), Arg::imm(16)]);
        let y = self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(hi)]);
        Val::Agg(vec![Val::S(Arg::Reg(x)), Val::S(Arg::Reg(y))])
    }
}
