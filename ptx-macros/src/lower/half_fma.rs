//! `mul_add` and `abs` on `f16` / `bf16` (through `ptx_runtime::device::HalfMath`, CUDA's
//! `__hfma` and `__habs`).
//!
//! - `a.mul_add(b, c)`: `fma.rn.f16` (every target), `fma.rn.bf16` (sm_80 and newer), as
//!   `cuda_fp16.h` / `cuda_bf16.h` emit for `__hfma`. `cuda_bf16.h` has no `__hfma` before
//!   sm_80; there the product and sum are rounded once to `f32` *to odd* — `fma.rm.f32` and
//!   `fma.rp.f32` bracket the exact `a·b + c` (equal when it is exact), the one with an odd
//!   last bit is the round-to-odd result — and that is rounded to nearest even in bf16. f32
//!   has 24 bits, more than bf16's 8 plus two, so the two roundings give the correctly
//!   rounded result (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved
//!   algorithms using rounding to odd", 2008); a plain `fma.rn.f32` would round twice.
//! - `x.abs()`: `abs.f16` (every target; PTX ISA 6.5), `abs.bf16` (sm_80 and newer) as nvcc emits for
//!   `__habs`; before sm_80 `and.b16 x, 0x7fff`. The host clears the sign bit; the
//!   instruction's result for a NaN is some NaN, which is what the tests accept.

use super::half::Bf16Isa;
use super::value::Val;
use super::Lowerer;
use crate::ir::{Arg, Arith, Cmp, Mode, Opcode, RegClass, Type};
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// `a * b + c` rounded once to `s`.
    pub fn half_fma(&mut self, s: Scalar, a: &Val, b: &Val, c: &Val) -> Val {
        if s == Scalar::F16 || self.bf16_isa() != Bf16Isa::F32 {
            let t = if s == Scalar::F16 { Type::F16 } else { Type::BF16 };
            let args = vec![self.half_reg(a), self.half_reg(b), self.half_reg(c)];
            return Val::S(Arg::Reg(self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rn, t), RegClass::B16, args)));
        }
        let args: Vec<Arg> = [a, b, c].iter().map(|v| self.convert(v, s, Scalar::F32).arg()).collect();
        let down = self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rm, Type::F32), RegClass::F32, args.clone());
        let up = self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rp, Type::F32), RegClass::F32, args);
        // The odd one of the two (`up` when they are equal: exact, or ±0 from opposite signs,
        // where `up` is round-to-nearest's +0).
        let bits = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::Reg(down)]);
        let low = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(bits), Arg::imm(1)]);
        let odd = self.b.op1(Opcode::Setp(Cmp::Ne, Type::U32), RegClass::Pred, vec![Arg::Reg(low), Arg::imm(0)]);
        let r = self.b.op1(Opcode::Selp(Type::F32), RegClass::F32, vec![Arg::Reg(down), Arg::Reg(up), Arg::Reg(odd)]);
        self.convert(&Val::S(Arg::Reg(r)), Scalar::F32, s)
    }

    /// `|x|`.
    pub fn half_abs(&mut self, s: Scalar, x: &Val) -> Val {
        let a = self.half_reg(x);
        let op = match s {
            Scalar::F16 => {
                self.need_isa(6, 5); // `abs.f16` arrived in PTX ISA 6.5
                Opcode::arith(Arith::Abs, Type::F16)
            }
            _ if self.bf16_isa() != Bf16Isa::F32 => Opcode::arith(Arith::Abs, Type::BF16),
            _ => return Val::S(Arg::Reg(self.b.op1(Opcode::arith(Arith::And, Type::B16), RegClass::B16, vec![a, Arg::imm(0x7fff)]))),
        };
        Val::S(Arg::Reg(self.b.op1(op, RegClass::B16, vec![a])))
    }
}
