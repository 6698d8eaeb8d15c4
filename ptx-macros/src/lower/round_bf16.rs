//! `bf16` from an `f64` or an integer with a rounding mode (`x.to_bf16_rz()`; CUDA
//! `__int2bfloat16_rz`, `__ull2bfloat16_rd`, `__double2bfloat16`, ...), as `cuda_bf16.h`
//! emits it:
//!
//! - sm_90 and newer: `cvt.<rn|rz|rm|rp>.bf16.<src>`.
//! - before: to `f32` first, then `f32` → `bf16` in the same mode (`lower::round`). The
//!   directed modes round twice in the same direction, which is rounding once; to nearest
//!   goes through `f32` rounded *to odd* — `cvt.rz.f32` with its last bit set when
//!   `cvt.rp.f32` and `cvt.rm.f32` differ (the value was not exact) — and f32 has more than
//!   bf16's 8 bits plus two, so the second rounding is correct (Boldo & Melquiond). That is
//!   nvcc's sequence for `__int2bfloat16_rn`; 16-bit integers are exact in f32
//!   (`cvt.rn.f32.s16`). NaN stays NaN (the canonical one).

use super::half::Bf16Isa;
use super::round::float_mode;
use super::value::{int_type, Val};
use super::Lowerer;
use crate::front::intrinsic::RoundMode;
use crate::ir::{Arg, Arith, Cmp, Mode, Opcode, RegClass, Type};
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// `a` (an `f64` or an integer of type `from`, in a register) to `bf16` rounded by `mode`.
    pub(super) fn bf16_from_wide(&mut self, a: Arg, from: Scalar, mode: RoundMode) -> Val {
        let src = int_type(from);
        if self.bf16_isa() == Bf16Isa::Native {
            let op = Opcode::Cvt(float_mode(mode), Type::BF16, src);
            return Val::S(Arg::Reg(self.b.op1(op, RegClass::B16, vec![a])));
        }
        let cvt = |l: &mut Self, m: Mode| l.b.op1(Opcode::Cvt(m, Type::F32, src), RegClass::F32, vec![a.clone()]);
        let f = match mode {
            RoundMode::Nearest if matches!(from, Scalar::I16 | Scalar::U16) => cvt(self, Mode::Rn),
            RoundMode::Nearest => {
                let (up, down, zero) = (cvt(self, Mode::Rp), cvt(self, Mode::Rm), cvt(self, Mode::Rz));
                let inexact = self.b.op1(Opcode::Setp(Cmp::Neu, Type::F32), RegClass::Pred, vec![Arg::Reg(up), Arg::Reg(down)]);
                let bits = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::Reg(zero)]);
                let odd = self.b.op1(Opcode::arith(Arith::Or, Type::B32), RegClass::B32, vec![Arg::Reg(bits), Arg::imm(1)]);
                let odd = self.b.op1(Opcode::Mov(Type::B32), RegClass::F32, vec![Arg::Reg(odd)]);
                self.b.op1(Opcode::Selp(Type::F32), RegClass::F32, vec![Arg::Reg(odd), Arg::Reg(zero), Arg::Reg(inexact)])
            }
            m => cvt(self, float_mode(m)),
        };
        self.round_convert(&Val::S(Arg::Reg(f)), Scalar::F32, Scalar::BF16, mode)
    }
}
