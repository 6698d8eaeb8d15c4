//! `as` with Rust's semantics.
//!
//! - integer → integer: truncate or extend by the *source* signedness (`cvt`); same width is
//!   the same bits (no instruction).
//! - integer → float: `cvt.rn` (round to nearest, as Rust rounds).
//! - float → integer: `cvt.rzi` (toward zero), saturating at the type's bounds; NaN → 0. PTX
//!   gives 0 for NaN only when the source is not `f64` and the destination is not 64-bit
//!   (PTX ISA, `cvt`): the other cases select 0 explicitly.
//! - float → float: `cvt.rn.f32.f64` / exact `cvt.f64.f32`.
//! - `bool` → integer: 0 or 1; pointer ↔ `u64`/`usize`: the generic address.
//! - `f16`/`bf16` ↔ `f32`/`f64` (`to_f32`, `from_f32`): `cvt` (bf16 by bits: sm_75's `cvt`
//!   has no `bf16`). `from_f64` rounds from the f64's high word, as the `half` crate does.
//!   `f16::from(u8)` / `from(i8)` (the `From` impls `half` has) go through `f32`, exactly.

use super::value::{class_of, int_type, reg_width, Space, Val};
use super::Lowerer;
use crate::front::hir::Expr;
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Cmp, FpClass, Imm, Mode, Opcode, RegClass, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn cast(&mut self, x: &Expr, to: &Ty, span: Span) -> Val {
        let v = self.expr(x);
        if matches!(v, Val::Never) {
            return v;
        }
        let from = self.ty(&x.ty);
        let to = self.ty(to);
        match (&from, &to) {
            (Ty::Scalar(a), Ty::Scalar(b)) => self.convert(&v, *a, *b),
            (Ty::Ptr { .. }, Ty::Ptr { .. }) => v,
            (Ty::Ptr { .. }, Ty::Scalar(_)) => {
                let g = self.generic_address(&v);
                Val::S(g)
            }
            (Ty::Scalar(_), Ty::Ptr { .. }) => Val::Ptr(v.arg(), Space::Generic),
            (Ty::Error, _) | (_, Ty::Error) => Val::Unit,
            _ => self.error(span, format!("internal: cast from `{from}` to `{to}`")),
        }
    }

    /// Converts a scalar value.
    pub fn convert(&mut self, v: &Val, from: Scalar, to: Scalar) -> Val {
        if from == to {
            return v.clone();
        }
        let a = v.arg();
        // Immediates: fold integer conversions.
        if let Arg::Imm(Imm::Int(i)) = a {
            if from != Scalar::Bool && to.is_integral() && to != Scalar::Bool {
                return Val::S(super::value::int_imm(i as i128 as u128, to));
            }
            if from == Scalar::Bool && to.is_integral() {
                return Val::S(Arg::imm(i));
            }
        }
        let (fc, tc) = (class_of(from), class_of(to));
        if from == Scalar::Bool {
            let p = self.pred(v);
            if to.is_float() {
                let one = self.float_imm(to, 1.0, 1.0).arg();
                let zero = self.float_imm(to, 0.0, 0.0).arg();
                let r = self.b.op1(Opcode::Selp(int_type(to)), tc, vec![one, zero, Arg::Reg(p)]);
                return Val::S(Arg::Reg(r));
            }
            let r = self.b.op1(Opcode::Selp(Type::u(reg_width(to))), tc, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(p)]);
            return Val::S(Arg::Reg(r));
        }
        match (from, to) {
            (f, Scalar::F16 | Scalar::BF16) if f.is_integral() => {
                // `f16::from(u8)` / `from(i8)`: exact in f32, then exact in 16 bits.
                let x = self.convert(v, f, Scalar::F32);
                return self.convert(&x, Scalar::F32, to);
            }
            (Scalar::F16, Scalar::F32 | Scalar::F64) => {
                let r = self.b.op1(Opcode::Cvt(Mode::None, int_type(to), Type::F16), tc, vec![a]);
                return Val::S(Arg::Reg(r));
            }
            (Scalar::F32 | Scalar::F64, Scalar::F16) => {
                let a = if from == Scalar::F64 { self.f64_high_word(a) } else { a };
                let r = self.b.op1(Opcode::Cvt(Mode::Rn, Type::F16, int_type(from)), tc, vec![a]);
                return Val::S(Arg::Reg(r));
            }
            (Scalar::BF16, Scalar::F32 | Scalar::F64) => {
                // bf16 is the high half of an f32.
                let w = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![a]);
                let hi = self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(w), Arg::imm(16)]);
                let f = self.b.op1(Opcode::Mov(Type::B32), RegClass::F32, vec![Arg::Reg(hi)]);
                return if to == Scalar::F64 { Val::S(Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::F64, Type::F32), RegClass::F64, vec![Arg::Reg(f)]))) } else { Val::S(Arg::Reg(f)) };
            }
            (Scalar::F32 | Scalar::F64, Scalar::BF16) => {
                let f = if from == Scalar::F64 { self.f64_to_bf16_exact_f32(a) } else { a };
                return Val::S(Arg::Reg(self.f32_to_bf16(f)));
            }
            _ => {}
        }
        let r = if from.is_float() && to.is_float() {
            if to == Scalar::F64 {
                self.b.op1(Opcode::Cvt(Mode::None, Type::F64, Type::F32), tc, vec![a])
            } else {
                self.b.op1(Opcode::Cvt(Mode::Rn, Type::F32, Type::F64), tc, vec![a])
            }
        } else if to.is_float() {
            self.b.op1(Opcode::Cvt(Mode::Rn, int_type(to), int_type(from)), tc, vec![a])
        } else if from.is_float() {
            let dst = Type::int(to.is_signed(), to.bits() as u32);
            let r = self.b.op1(Opcode::Cvt(Mode::Rzi, dst, int_type(from)), tc, vec![a.clone()]);
            if from == Scalar::F64 || to.bits() == 64 {
                let nan = self.b.testp(FpClass::NotANumber, int_type(from), a);
                self.b.op1(Opcode::Selp(Type::b(reg_width(to))), tc, vec![Arg::imm(0), Arg::Reg(r), Arg::Reg(nan)])
            } else {
                r
            }
        } else if fc == tc {
            // Same register width: 8 ↔ 16 bits needs the low 8 bits re-extended; otherwise the
            // bits are the value.
            match to {
                Scalar::I8 | Scalar::U8 => {
                    let r = a_reg(&a, self);
                    self.normalize(r, to)
                }
                _ => return Val::S(a),
            }
        } else if to.bits() > from.bits() {
            // Widen by the source's signedness (8-bit values are already extended to 16).
            let src = Type::int(from.is_signed(), reg_width(from));
            let dst = Type::int(from.is_signed(), to.bits() as u32);
            let r = self.b.op1(Opcode::Cvt(Mode::None, dst, src), tc, vec![a.clone()]);
            if let (RegClass::B32, RegClass::B64, Arg::Reg(n)) = (fc, tc, &a) {
                self.widened.insert(r, (*n, from.is_signed()));
            }
            r
        } else {
            // Truncate.
            let r = self.b.op1(Opcode::Cvt(Mode::None, Type::u(to.bits() as u32), Type::u(reg_width(from))), tc, vec![a]);
            self.normalize(r, to)
        };
        Val::S(Arg::Reg(r))
    }

    /// `f16::from_f64` / `bf16::from_f64` as the `half` crate computes them: rounded from the
    /// f64's upper 32 bits (sign, exponent, 20 mantissa bits), the lower word ignored. This is
    /// the host's meaning, so the device reproduces it: the value truncated to its high word.
    fn f64_high_word(&mut self, a: Arg) -> Arg {
        let bits = self.b.op1(Opcode::Mov(Type::B64), RegClass::B64, vec![a]);
        let hi = self.b.op1(Opcode::arith(Arith::And, Type::B64), RegClass::B64, vec![Arg::Reg(bits), Arg::imm(0xffff_ffff_0000_0000u64 as i64)]);
        Arg::Reg(self.b.op1(Opcode::Mov(Type::B64), RegClass::F64, vec![Arg::Reg(hi)]))
    }

    /// An f32 holding exactly the bf16 that `half` makes of an f64 in bf16's subnormal range,
    /// and the f64's high word (exact in f32: 21 significant bits) elsewhere. Converting
    /// through a rounded f32 would round twice below 2^-126.
    fn f64_to_bf16_exact_f32(&mut self, a: Arg) -> Arg {
        let t = self.f64_high_word(a);
        let f64imm = |v: f64| Arg::Imm(Imm::F64(v.to_bits()));
        let abs = self.b.op1(Opcode::arith(Arith::Abs, Type::F64), RegClass::F64, vec![t.clone()]);
        let tiny = self.b.op1(Opcode::Setp(Cmp::Lt, Type::F64), RegClass::Pred, vec![Arg::Reg(abs), f64imm(2f64.powi(-126))]);
        // Round to a multiple of 2^-133 (bf16's smallest subnormal): scaling is exact.
        let up = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, Type::F64), RegClass::F64, vec![t.clone(), f64imm(2f64.powi(133))]);
        let rounded = self.b.op1(Opcode::Cvt(Mode::Rni, Type::F64, Type::F64), RegClass::F64, vec![Arg::Reg(up)]);
        let down = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, Type::F64), RegClass::F64, vec![Arg::Reg(rounded), f64imm(2f64.powi(-133))]);
        let v = self.b.op1(Opcode::Selp(Type::F64), RegClass::F64, vec![Arg::Reg(down), t, Arg::Reg(tiny)]);
        Arg::Reg(self.b.op1(Opcode::Cvt(Mode::Rn, Type::F32, Type::F64), RegClass::F32, vec![Arg::Reg(v)]))
    }

    /// Round-to-nearest-even f32 → bf16 by bits (NaN stays a quiet NaN).
    pub(super) fn f32_to_bf16(&mut self, f: Arg) -> crate::ir::Reg {
        let bits = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![f.clone()]);
        let lsb = self.b.op1(Opcode::arith(Arith::Bfe, Type::U32), RegClass::B32, vec![Arg::Reg(bits), Arg::imm(16), Arg::imm(1)]);
        let bias = self.b.op1(Opcode::arith(Arith::Add, Type::S32), RegClass::B32, vec![Arg::Reg(lsb), Arg::imm(0x7fff)]);
        let rounded = self.b.op1(Opcode::arith(Arith::Add, Type::S32), RegClass::B32, vec![Arg::Reg(bits), Arg::Reg(bias)]);
        let hi = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(rounded), Arg::imm(16)]);
        let nan = self.b.testp(FpClass::NotANumber, Type::F32, f);
        let sel = self.b.op1(Opcode::Selp(Type::B32), RegClass::B32, vec![Arg::imm(0x7fc0), Arg::Reg(hi), Arg::Reg(nan)]);
        self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(sel)])
    }
}

fn a_reg(a: &Arg, l: &mut Lowerer) -> crate::ir::Reg {
    match a {
        Arg::Reg(r) => *r,
        other => l.b.op1(Opcode::Mov(Type::B16), RegClass::B16, vec![other.clone()]),
    }
}
