//! Conversions with a rounding mode (`x.to_f16_rz()`, `h.to_i32_rd()`, ...; see
//! `front::round`), as `cuda_fp16.h` / `cuda_bf16.h` emit them:
//!
//! - to `f16` from f32, f64 or an integer: `cvt.<rn|rz|rm|rp>.f16.<src>` on every target.
//! - to `bf16` from f32: `cvt.<mode>.bf16.f32` on sm_90; on sm_80 `.rn` and `.rz` natively
//!   and `.rm`/`.rp` by bits; before sm_80 all by bits: the f32's high half, plus one in the
//!   last place when the dropped low half is nonzero and the mode rounds away from zero for
//!   the value's sign (`_ru` of a positive, `_rd` of a negative; a carry into the exponent is
//!   the next binade or infinity, as it must be). `_rn` is the nearest-even sequence `half`
//!   uses. NaN gives the canonical NaN.
//! - to `bf16` from f64 or an integer: `cvt.<mode>.bf16.<src>` on sm_90; before, through f32
//!   as `cuda_bf16.h` does (`lower::round_bf16`).
//! - to an integer from f16, f32, f64: `cvt.<rni|rzi|rmi|rpi>.<int>.<src>` (saturating; NaN
//!   gives 0, as Rust's `as` does on the host); from bf16 the same on sm_90 and, before,
//!   through f32 (exact).

use super::half::Bf16Isa;
use super::value::{class_of, int_type, reg_bits, Val};
use super::Lowerer;
use crate::front::intrinsic::RoundMode;
use crate::ir::{Arg, Arith, Cmp, FpClass, Mode, Opcode, RegClass, Type};
use ptx_abi::Scalar;

pub(super) fn float_mode(m: RoundMode) -> Mode {
    match m {
        RoundMode::Nearest => Mode::Rn,
        RoundMode::Zero => Mode::Rz,
        RoundMode::Down => Mode::Rm,
        RoundMode::Up => Mode::Rp,
    }
}

fn int_mode(m: RoundMode) -> Mode {
    match m {
        RoundMode::Nearest => Mode::Rni,
        RoundMode::Zero => Mode::Rzi,
        RoundMode::Down => Mode::Rmi,
        RoundMode::Up => Mode::Rpi,
    }
}

/// The `cvt` type of a scalar (f16/bf16 by name, integers signed or not).
fn cvt_type(s: Scalar) -> Type {
    match s {
        Scalar::F16 => Type::F16,
        Scalar::BF16 => Type::BF16,
        _ => int_type(s),
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// `x` of type `from` converted to `to`, rounded by `mode`.
    pub fn round_convert(&mut self, x: &Val, from: Scalar, to: Scalar, mode: RoundMode) -> Val {
        let reg = |l: &mut Self, v: &Val, s: Scalar| match v.arg() {
            Arg::Reg(r) => Arg::Reg(r),
            a => Arg::Reg(l.b.op1(Opcode::Mov(reg_bits(s)), class_of(s), vec![a])),
        };
        let a = reg(self, x, from);
        match to {
            Scalar::F16 => {
                let op = Opcode::Cvt(float_mode(mode), Type::F16, cvt_type(from));
                Val::S(Arg::Reg(self.b.op1(op, RegClass::B16, vec![a])))
            }
            Scalar::BF16 if from != Scalar::F32 => self.bf16_from_wide(a, from, mode),
            Scalar::BF16 => {
                let native = match self.bf16_isa() {
                    Bf16Isa::Native => true,
                    Bf16Isa::Fma => matches!(mode, RoundMode::Nearest | RoundMode::Zero),
                    Bf16Isa::F32 => false,
                };
                if native {
                    let op = Opcode::Cvt(float_mode(mode), Type::BF16, Type::F32);
                    return Val::S(Arg::Reg(self.b.op1(op, RegClass::B16, vec![a])));
                }
                if mode == RoundMode::Nearest {
                    return Val::S(Arg::Reg(self.f32_to_bf16(a)));
                }
                Val::S(Arg::Reg(self.f32_to_bf16_directed(a, mode)))
            }
            _ => {
                let (src, from) = if from == Scalar::BF16 && self.bf16_isa() != Bf16Isa::Native {
                    (self.convert(&Val::S(a), Scalar::BF16, Scalar::F32).arg(), Scalar::F32)
                } else {
                    (a, from)
                };
                let op = Opcode::Cvt(int_mode(mode), int_type(to), cvt_type(from));
                Val::S(Arg::Reg(self.b.op1(op, class_of(to), vec![src])))
            }
        }
    }

    /// f32 → bf16 toward zero, down or up, by bits.
    fn f32_to_bf16_directed(&mut self, f: Arg, mode: RoundMode) -> crate::ir::Reg {
        let bits = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![f.clone()]);
        let hi = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(bits), Arg::imm(16)]);
        let r = if mode == RoundMode::Zero {
            hi
        } else {
            let low = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(bits), Arg::imm(0xffff)]);
            let inexact = self.b.op1(Opcode::Setp(Cmp::Ne, Type::U32), RegClass::Pred, vec![Arg::Reg(low), Arg::imm(0)]);
            // Away from zero when the sign is the mode's direction: `_ru` positive, `_rd` negative.
            let cmp = if mode == RoundMode::Up { Cmp::Ge } else { Cmp::Lt };
            let toward = self.b.op1(Opcode::Setp(cmp, Type::S32), RegClass::Pred, vec![Arg::Reg(bits), Arg::imm(0)]);
            let away = self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(inexact), Arg::Reg(toward)]);
            let one = self.b.op1(Opcode::Selp(Type::U32), RegClass::B32, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(away)]);
            self.b.op1(Opcode::arith(Arith::Add, Type::U32), RegClass::B32, vec![Arg::Reg(hi), Arg::Reg(one)])
        };
        let nan = self.b.testp(FpClass::NotANumber, Type::F32, f);
        let sel = self.b.op1(Opcode::Selp(Type::B32), RegClass::B32, vec![Arg::imm(0x7fc0), Arg::Reg(r), Arg::Reg(nan)]);
        self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(sel)])
    }
}
