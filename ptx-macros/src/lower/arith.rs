//! Operators: `-x`, `!x`, arithmetic, bitwise, shifts, comparisons, `&&`/`||`, `op=`.
//!
//! Integer arithmetic wraps, as Rust's does in release builds; 8-bit values compute in 16-bit
//! registers and are brought back to their width (sign- or zero-extended) after operations that
//! can carry out of it. Float `+ - * /` are `.rn` (round to nearest even, no contraction into
//! `fma`: only `mul_add` fuses). Shift amounts are masked to the width (`x << n` is
//! `x.wrapping_shl(n)`). Integer division by zero and `MIN / -1` stop the kernel, as they
//! panic in Rust (see `panic`).

use super::panic::Check;
use super::value::{class_of, int_type, reg_bits, Val};
use super::Lowerer;
use crate::front::hir::{BinOp, Expr, UnOp};
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Cmp, Imm, Mode, Opcode, Reg, RegClass, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// A predicate register holding the `bool` value.
    pub fn pred(&mut self, v: &Val) -> Reg {
        match v {
            Val::S(Arg::Reg(r)) if self.b.class(*r) == RegClass::Pred => *r,
            Val::S(Arg::Imm(Imm::Int(i))) => {
                let p = self.reg(RegClass::Pred);
                self.b.op_into(Opcode::Mov(Type::Pred), p, vec![Arg::imm((*i != 0) as i64)]);
                p
            }
            _ => {
                let p = self.reg(RegClass::Pred);
                self.b.op_into(Opcode::Mov(Type::Pred), p, vec![Arg::imm(0)]);
                p
            }
        }
    }

    /// The scalar type of `ty` (pointers compare as `u64`).
    fn scalar_of(&self, ty: &Ty) -> Option<Scalar> {
        match self.ty(ty) {
            Ty::Scalar(s) => Some(s),
            Ty::Ptr { .. } => Some(Scalar::U64),
            _ => None,
        }
    }

    /// After an operation that may carry out of an 8-bit type: sign- or zero-extend the low
    /// 8 bits again.
    pub fn normalize(&mut self, r: Reg, s: Scalar) -> Reg {
        match s {
            Scalar::I8 => self.b.op1(Opcode::Cvt(Mode::None, Type::S16, Type::S8), RegClass::B16, vec![Arg::Reg(r)]),
            Scalar::U8 => self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U8), RegClass::B16, vec![Arg::Reg(r)]),
            _ => r,
        }
    }

    pub fn unary(&mut self, op: UnOp, x: &Expr, ty: &Ty) -> Val {
        let v = self.expr(x);
        if let (UnOp::Neg, Some(s)) = (op, self.half2_of(ty)) {
            return self.half2_neg(s, &v);
        }
        let Some(s) = self.scalar_of(ty) else { return Val::Unit };
        match (op, &v) {
            (UnOp::Neg, Val::S(Arg::Imm(Imm::Int(i)))) => return Val::S(super::value::int_imm((-(*i as i128)) as u128, s)),
            (UnOp::Neg, Val::S(Arg::Imm(Imm::F32(b)))) => return Val::S(Arg::Imm(Imm::F32(b ^ 0x8000_0000))),
            (UnOp::Neg, Val::S(Arg::Imm(Imm::F64(b)))) => return Val::S(Arg::Imm(Imm::F64(b ^ (1 << 63)))),
            (UnOp::Not, Val::S(Arg::Imm(Imm::Int(i)))) if s == Scalar::Bool => return Val::S(Arg::imm((*i == 0) as i64)),
            (UnOp::Not, Val::S(Arg::Imm(Imm::Int(i)))) => return Val::S(super::value::int_imm(!(*i as i128) as u128, s)),
            _ => {}
        }
        if op == UnOp::Neg && matches!(s, Scalar::F16 | Scalar::BF16) {
            return self.half_neg(&v);
        }
        let a = v.arg();
        let r = match op {
            UnOp::Neg => {
                let t = if s.is_float() { int_type(s) } else { Type::s(super::value::reg_width(s)) };
                let r = self.b.op1(Opcode::arith(Arith::Neg, t), class_of(s), vec![a]);
                self.normalize(r, s)
            }
            UnOp::Not if s == Scalar::Bool => {
                let p = self.pred(&v);
                self.b.op1(Opcode::arith(Arith::Not, Type::Pred), RegClass::Pred, vec![Arg::Reg(p)])
            }
            UnOp::Not => {
                let r = self.b.op1(Opcode::arith(Arith::Not, reg_bits(s)), class_of(s), vec![a]);
                self.normalize(r, s)
            }
        };
        Val::S(Arg::Reg(r))
    }

    pub fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, ty: &Ty, span: Span) -> Val {
        let lv = self.expr(l);
        let lv = if is_simple(r) { lv } else { self.stabilize(lv) };
        let rv = self.expr(r);
        if matches!(lv, Val::Never) || matches!(rv, Val::Never) {
            return Val::Never;
        }
        let operand = if op.is_comparison() { l.ty.clone() } else { ty.clone() };
        if let Some(s) = self.half2_of(&operand) {
            return self.half2_binop(op, s, &lv, &rv, span);
        }
        let Some(s) = self.scalar_of(&operand) else { return Val::Unit };
        let rs = self.scalar_of(&r.ty).unwrap_or(s);
        self.binop(op, s, rs, &lv, &rv, span)
    }

    /// `a op b` on scalars of type `s` (`rs`: the right operand's type, for shifts).
    pub fn binop(&mut self, op: BinOp, s: Scalar, rs: Scalar, lv: &Val, rv: &Val, span: Span) -> Val {
        if let Some(v) = fold(op, s, lv, rv) {
            return v;
        }
        let (a, b) = (lv.arg(), rv.arg());
        if op.is_comparison() {
            return Val::S(Arg::Reg(self.compare(op, s, lv, rv)));
        }
        if s == Scalar::Bool {
            let (pa, pb) = (self.pred(lv), self.pred(rv));
            let o = match op {
                BinOp::And => Opcode::arith(Arith::And, Type::Pred),
                BinOp::Or => Opcode::arith(Arith::Or, Type::Pred),
                _ => Opcode::arith(Arith::Xor, Type::Pred),
            };
            return Val::S(Arg::Reg(self.b.op1(o, RegClass::Pred, vec![Arg::Reg(pa), Arg::Reg(pb)])));
        }
        let c = class_of(s);
        if matches!(s, Scalar::F16 | Scalar::BF16) {
            return self.half_binop(op, s, lv, rv, span);
        }
        if s.is_float() {
            let t = int_type(s);
            let r = match op {
                BinOp::Add => self.b.op1(Opcode::Arith(Arith::Add, Mode::Rn, t), c, vec![a, b]),
                BinOp::Sub => self.b.op1(Opcode::Arith(Arith::Sub, Mode::Rn, t), c, vec![a, b]),
                BinOp::Mul => self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, t), c, vec![a, b]),
                // `1.0 / x` is nvcc's `rcp.rn`: correctly rounded as the division is, so the
                // same bits, without the division's range check and refinement steps.
                BinOp::Div if a.float_imm() == Some(1.0) => self.b.op1(Opcode::Arith(Arith::Rcp, Mode::Rn, t), c, vec![b]),
                BinOp::Div => self.b.op1(Opcode::Arith(Arith::Div, Mode::Rn, t), c, vec![a, b]),
                BinOp::Rem => return self.math_fn("fmod", s, vec![lv.clone(), rv.clone()], span),
                _ => return self.error(span, "internal: bitwise operator on floats"),
            };
            return Val::S(Arg::Reg(r));
        }
        let t = int_type(s);
        let bits = reg_bits(s);
        let w = super::value::reg_width(s);
        let r = match op {
            BinOp::Add => {
                let r = self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![a, b]);
                self.normalize(r, s)
            }
            BinOp::Sub => {
                let r = self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![a, b]);
                self.normalize(r, s)
            }
            BinOp::Mul => {
                let r = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::s(w)), c, vec![a, b]);
                self.normalize(r, s)
            }
            BinOp::Div | BinOp::Rem => {
                if let Some(k) = unsigned_power_of_two(s, rv) {
                    // What ptxas would make of it; written out so the PTX reads as it runs.
                    return Val::S(Arg::Reg(if op == BinOp::Div {
                        self.b.op1(Opcode::arith(Arith::Shr, t), c, vec![a, Arg::Imm(Imm::Int(k))])
                    } else {
                        let mask = super::value::int_imm((1u128 << k) - 1, s);
                        self.b.op1(Opcode::arith(Arith::And, bits), c, vec![a, mask])
                    }));
                }
                self.division_checks(s, lv, rv);
                let o = if op == BinOp::Div { Arith::Div } else { Arith::Rem };
                self.b.op1(Opcode::arith(o, t), c, vec![a, b])
            }
            BinOp::And => self.b.op1(Opcode::arith(Arith::And, bits), c, vec![a, b]),
            BinOp::Or => self.b.op1(Opcode::arith(Arith::Or, bits), c, vec![a, b]),
            BinOp::Xor => self.b.op1(Opcode::arith(Arith::Xor, bits), c, vec![a, b]),
            BinOp::Shl | BinOp::Shr => {
                let n = self.shift_amount(rv, rs, s.bits() as u32);
                if op == BinOp::Shl {
                    let r = self.b.op1(Opcode::arith(Arith::Shl, bits), c, vec![a, n]);
                    self.normalize(r, s)
                } else {
                    self.b.op1(Opcode::arith(Arith::Shr, t), c, vec![a, n])
                }
            }
            _ => return Val::Unit,
        };
        Val::S(Arg::Reg(r))
    }

    /// A shift amount as `.u32`, masked to `bits - 1` (Rust's release-mode `<<` / `>>`).
    fn shift_amount(&mut self, rv: &Val, rs: Scalar, bits: u32) -> Arg {
        if let Val::S(Arg::Imm(Imm::Int(n))) = rv {
            return Arg::imm(n & (bits as i64 - 1));
        }
        let a = rv.arg();
        let n32 = match class_of(rs) {
            RegClass::B32 => a,
            RegClass::B64 => Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![a])),
            _ => Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![a])),
        };
        Arg::Reg(self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![n32, Arg::imm(bits as i64 - 1)]))
    }

    /// `wrapping_div` / `wrapping_rem`: only division by zero stops the kernel; `MIN / -1` is
    /// `MIN` (remainder 0).
    pub fn wrapping_division(&mut self, rem: bool, s: Scalar, lv: &Val, rv: &Val) -> Val {
        let t = int_type(s);
        let c = class_of(s);
        let (a, b) = (lv.arg(), rv.arg());
        if !matches!(rv, Val::S(Arg::Imm(Imm::Int(n))) if *n != 0) {
            let p = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![b.clone(), Arg::imm(0)]);
            self.check_fails_if(p, Check::DivideByZero);
        }
        let o = Opcode::arith(if rem { Arith::Rem } else { Arith::Div }, t);
        if !s.is_signed() {
            return Val::S(Arg::Reg(self.b.op1(o, c, vec![a, b])));
        }
        // Divide by 1 instead of -1 and negate: no overflowing instruction runs.
        let w = super::value::reg_width(s);
        let m1 = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![b.clone(), Arg::imm(-1)]);
        let safe_b = self.b.op1(Opcode::Selp(Type::b(w)), c, vec![Arg::imm(1), b, Arg::Reg(m1)]);
        let q = self.b.op1(o, c, vec![a, Arg::Reg(safe_b)]);
        if rem {
            return Val::S(Arg::Reg(q));
        }
        let n = self.b.op1(Opcode::arith(Arith::Neg, Type::s(w)), c, vec![Arg::Reg(q)]);
        let n = self.normalize(n, s);
        Val::S(Arg::Reg(self.b.op1(Opcode::Selp(Type::b(w)), c, vec![Arg::Reg(n), Arg::Reg(q), Arg::Reg(m1)])))
    }

    /// Division by zero, and `MIN / -1` for signed types, panic in Rust: stop the kernel.
    fn division_checks(&mut self, s: Scalar, lv: &Val, rv: &Val) {
        let t = int_type(s);
        let zero_possible = !matches!(rv, Val::S(Arg::Imm(Imm::Int(n))) if *n != 0);
        if zero_possible {
            let p = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![rv.arg(), Arg::imm(0)]);
            self.check_fails_if(p, Check::DivideByZero);
        }
        if s.is_signed() {
            let minus_one_possible = !matches!(rv, Val::S(Arg::Imm(Imm::Int(n))) if *n != -1);
            let min = -(1i128 << (s.bits() - 1)) as i64;
            let min_possible = !matches!(lv, Val::S(Arg::Imm(Imm::Int(n))) if *n != min);
            if minus_one_possible && min_possible {
                let p1 = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![rv.arg(), Arg::imm(-1)]);
                let p2 = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![lv.arg(), Arg::imm(min)]);
                let p = self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(p1), Arg::Reg(p2)]);
                self.check_fails_if(p, Check::DivideOverflow);
            }
        }
    }

    /// `setp` for a comparison of two scalars of type `s`.
    pub fn compare(&mut self, op: BinOp, s: Scalar, lv: &Val, rv: &Val) -> Reg {
        if s == Scalar::Bool {
            let (pa, pb) = (self.pred(lv), self.pred(rv));
            return match op {
                BinOp::Eq | BinOp::Ne => {
                    let x = self.b.op1(Opcode::arith(Arith::Xor, Type::Pred), RegClass::Pred, vec![Arg::Reg(pa), Arg::Reg(pb)]);
                    if op == BinOp::Ne {
                        x
                    } else {
                        self.b.op1(Opcode::arith(Arith::Not, Type::Pred), RegClass::Pred, vec![Arg::Reg(x)])
                    }
                }
                _ => {
                    let a = self.b.op1(Opcode::Selp(Type::U16), RegClass::B16, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(pa)]);
                    let b = self.b.op1(Opcode::Selp(Type::U16), RegClass::B16, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(pb)]);
                    self.compare(op, Scalar::U16, &Val::S(Arg::Reg(a)), &Val::S(Arg::Reg(b)))
                }
            };
        }
        if matches!(s, Scalar::F16 | Scalar::BF16) {
            return self.half_compare(op, s, lv, rv);
        }
        let cmp = match (op, s.is_float()) {
            (BinOp::Eq, _) => Cmp::Eq,
            (BinOp::Ne, true) => Cmp::Neu,
            (BinOp::Ne, false) => Cmp::Ne,
            (BinOp::Lt, _) => Cmp::Lt,
            (BinOp::Le, _) => Cmp::Le,
            (BinOp::Gt, _) => Cmp::Gt,
            _ => Cmp::Ge,
        };
        self.b.op1(Opcode::Setp(cmp, int_type(s)), RegClass::Pred, vec![lv.arg(), rv.arg()])
    }

    /// `&&` / `||`, short-circuiting.
    pub fn logic(&mut self, and: bool, lhs: &Expr, rhs: &Expr) -> Val {
        let l = self.expr(lhs);
        if let Val::S(Arg::Imm(Imm::Int(i))) = l {
            // `true && x` is `x`; `false && x` is `false` (and `||` alike).
            if (i != 0) == and {
                return self.expr(rhs);
            }
            return Val::S(Arg::imm(i));
        }
        if matches!(l, Val::Never) {
            return Val::Never;
        }
        if is_cheap_and_safe(rhs) {
            // Nothing to skip: both sides, combined.
            let lp = self.pred(&l);
            let r = self.expr(rhs);
            let rp = self.pred(&r);
            let o = if and { Opcode::arith(Arith::And, Type::Pred) } else { Opcode::arith(Arith::Or, Type::Pred) };
            return Val::S(Arg::Reg(self.b.op1(o, RegClass::Pred, vec![Arg::Reg(lp), Arg::Reg(rp)])));
        }
        let result = self.reg(RegClass::Pred);
        let lp = self.pred(&l);
        self.mov(result, Arg::Reg(lp));
        let eval_rhs = self.b.new_block();
        let done = self.b.new_block();
        // `a && b`: evaluate b only when a holds; `a || b`: only when a does not.
        self.b.terminate(crate::ir::Term::Branch { pred: lp, negate: !and, if_true: eval_rhs, if_false: done });
        self.b.switch_to(eval_rhs);
        let r = self.expr(rhs);
        if !matches!(r, Val::Never) {
            let rp = self.pred(&r);
            self.mov(result, Arg::Reg(rp));
        }
        self.b.jump_to(done);
        Val::S(Arg::Reg(result))
    }

    pub fn op_assign(&mut self, op: BinOp, place: &Expr, value: &Expr, span: Span) -> Val {
        let rv = self.expr(value);
        let rv = self.stabilize(rv);
        let p = self.place(place);
        let cur = self.read(&p, &place.ty, span);
        if let Some(s) = self.half2_of(&place.ty) {
            let new = self.half2_binop(op, s, &cur, &rv, span);
            self.write(&p, &place.ty, new, span);
            return Val::Unit;
        }
        let Some(s) = self.scalar_of(&place.ty) else { return Val::Unit };
        let rs = self.scalar_of(&value.ty).unwrap_or(s);
        let new = self.binop(op, s, rs, &cur, &rv, span);
        self.write(&p, &place.ty, new, span);
        Val::Unit
    }
}

/// An expression that cannot fail or have effects, and is cheap: evaluating it when its
/// value is not needed (both sides of `&&`) changes nothing.
pub fn is_cheap_and_safe(e: &Expr) -> bool {
    use crate::front::hir::ExprKind as K;
    use crate::front::intrinsic::{FloatOp as F, IntOp as N, Intrinsic as I};
    match &e.kind {
        K::Int(_) | K::Float(..) | K::Bool(_) | K::Local(_) | K::Const(_) => true,
        K::Unary(_, x) | K::Cast(x) => is_cheap_and_safe(x),
        K::Binary(op, a, b) => !matches!(op, BinOp::Div | BinOp::Rem) && is_cheap_and_safe(a) && is_cheap_and_safe(b),
        K::Logic { lhs, rhs, .. } => is_cheap_and_safe(lhs) && is_cheap_and_safe(rhs),
        K::Intrinsic { op: I::Sreg(_), .. } => true,
        // Wrapping arithmetic, `x.to_bits()`, `f32::from_bits(..)`, the float tests and the
        // one-instruction functions.
        K::Intrinsic { op: I::Int(N::WrappingAdd | N::WrappingSub | N::WrappingMul | N::WrappingNeg | N::Min | N::Max | N::Abs | N::UnsignedAbs) | I::Bits | I::Float(F::Abs | F::Min | F::Max | F::MulAdd | F::Copysign | F::IsNan | F::IsInfinite | F::IsFinite | F::IsSignNegative | F::IsSignPositive), args } => args.iter().all(is_cheap_and_safe),
        _ => false,
    }
}

/// An expression without side effects or control flow, whose evaluation cannot change a
/// local.
pub fn is_simple(e: &Expr) -> bool {
    use crate::front::hir::ExprKind as K;
    match &e.kind {
        K::Unit | K::Int(_) | K::Float(..) | K::Bool(_) | K::Const(_) | K::Local(_) => true,
        K::Unary(_, x) | K::Cast(x) | K::Field(x, _) | K::Deref(x) => is_simple(x),
        K::Binary(_, a, b) => is_simple(a) && is_simple(b),
        K::Index { base, index, .. } => is_simple(base) && is_simple(index),
        K::Intrinsic { args, .. } => args.iter().all(is_simple),
        _ => false,
    }
}

/// `log2(d)` when `d` is an immediate power of two and the type unsigned: `x / d` is a
/// shift and `x % d` a mask.
fn unsigned_power_of_two(s: Scalar, d: &Val) -> Option<i64> {
    let Val::S(Arg::Imm(Imm::Int(d))) = d else { return None };
    let bits = (*d as u64) & (u64::MAX >> (64 - s.bits() as u32));
    (!s.is_signed() && !s.is_float() && s != Scalar::Bool && bits.is_power_of_two()).then(|| bits.trailing_zeros() as i64)
}

/// Integer constant folding (wrapping, as the instructions would).
fn fold(op: BinOp, s: Scalar, l: &Val, r: &Val) -> Option<Val> {
    let (Val::S(Arg::Imm(Imm::Int(a))), Val::S(Arg::Imm(Imm::Int(b)))) = (l, r) else { return None };
    if s.is_float() || s == Scalar::Bool {
        return None;
    }
    let (a, b) = (*a as i128, *b as i128);
    let bits = s.bits() as u32;
    let v = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << (b as u32 & (bits - 1)),
        _ => return None,
    };
    Some(Val::S(super::value::int_imm(v as u128, s)))
}
