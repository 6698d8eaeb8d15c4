//! Methods of the types device code has: integers, floats, pointers, slices, arrays and shared
//! memory. Transcendental float functions call `ptx_runtime::device::math` (device functions
//! compiled from Rust, so host and device run the same algorithm); everything else is an
//! [`Intrinsic`].

use super::hir::{Callee, Expr, ExprKind};
use super::intrinsic::{FloatOp, IntOp, Intrinsic, PtrOp};
use super::ty::Ty;
use super::{unsupported, Checker};
use proc_macro2::Span;
use ptx_abi::Scalar;
use quote::{format_ident, quote};
use std::rc::Rc;
use syn::spanned::Spanned;

/// Float functions implemented in `ptx_runtime::device::math` as `<name>_f32` / `<name>_f64`:
/// name and number of float arguments besides the receiver.
pub const MATH_FNS: [(&str, usize); 19] = [
    ("exp", 0),
    ("exp2", 0),
    ("exp_m1", 0),
    ("ln", 0),
    ("log2", 0),
    ("log10", 0),
    ("ln_1p", 0),
    ("sin", 0),
    ("cos", 0),
    ("tan", 0),
    ("asin", 0),
    ("acos", 0),
    ("atan", 0),
    ("atan2", 1),
    ("sinh", 0),
    ("cosh", 0),
    ("tanh", 0),
    ("powf", 1),
    ("hypot", 1),
];

impl<'a> Checker<'a> {
    pub fn method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.span();
        let recv = self.expr(&m.receiver);
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let name = m.method.to_string();
        if let Some(t) = &m.turbofish {
            if name == "cast" {
                return self.error(t.span(), "`cast::<U>()` reinterprets memory and is not supported in device code; read the value and convert it with `as`");
            }
        }
        self.method(recv, &name, &args, span, m.method.span())
    }

    /// `recv.name(args)`; also `T::name(recv, args)`.
    pub fn method(&mut self, recv: Expr, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        // Methods every `Copy` type has.
        if matches!(name, "clone" | "to_owned") && args.is_empty() {
            let recv = self.auto_deref_value(recv);
            return recv;
        }
        if matches!(name, "iter" | "iter_mut" | "into_iter" | "map" | "sum" | "fold" | "for_each" | "zip" | "enumerate" | "collect") {
            return self.error(name_span, unsupported::ITERATOR);
        }
        if matches!(name, "checked_add" | "checked_sub" | "checked_mul" | "checked_div" | "get" | "get_mut" | "first" | "last" | "as_ref" | "as_mut" | "checked_rem") {
            return self.error(name_span, format!("`{name}` returns an `Option`, which has no device layout; {}", match name {
                "get" | "get_mut" | "first" | "last" => "index with a bounds check (`s[i]`) or test `i < s.len()` first",
                _ => "use the `wrapping_` or `saturating_` form, or test the operands first",
            }));
        }
        // Raw pointers do not auto-deref; references do.
        let recv = match self.shallow(&recv.ty) {
            Ty::Ptr { reference: false, .. } => recv,
            _ => self.auto_deref_value(recv),
        };
        match self.shallow(&recv.ty) {
            Ty::Scalar(s) if s.is_float() && !matches!(s, Scalar::F16 | Scalar::BF16) => self.float_method(recv, s, name, args, span, name_span),
            Ty::Scalar(s @ (Scalar::F16 | Scalar::BF16)) => self.half_method(recv, s, name, args, span, name_span),
            Ty::Scalar(Scalar::Bool) => self.error(name_span, format!("`bool::{name}` is not supported in device code")),
            Ty::Scalar(s) => self.int_method(recv, s, name, args, span, name_span),
            Ty::Ptr { reference: false, mutable, pointee } => self.ptr_method(recv, mutable, &pointee, name, args, span, name_span),
            Ty::Slice { .. } | Ty::Array { .. } | Ty::Shared { .. } => self.seq_method(recv, name, args, span, name_span),
            Ty::Struct(_) | Ty::Named(_) | Ty::Vector { .. } => self.error(name_span, unsupported::METHOD_CALL_ON_USER_TYPE),
            Ty::Var(_) if mentions_const(&recv) => self.error(name_span, format!("can't call method `{name}` here: the type of a constant defined outside the body is not known to the device compiler until the context fixes it; bind it with a type (`let v: f32 = ...`) or cast it (`NAME as f32`)")),
            Ty::Var(_) => self.error(name_span, format!("can't call method `{name}` on a value whose type is not known yet; annotate it (`let x: u32 = ...` or a literal suffix `1u32`)")),
            Ty::Error => self.error_expr(span),
            t => self.error(name_span, format!("no method `{name}` on `{}` in device code", self.infer.resolve(&t))),
        }
    }

    fn args_of(&mut self, args: &[&syn::Expr], tys: &[Ty], name_span: Span) -> Option<Vec<Expr>> {
        if args.len() != tys.len() {
            self.errors.at(name_span, format!("this method takes {} argument(s) but {} were given", tys.len(), args.len()));
            return None;
        }
        let mut out = Vec::new();
        for (a, t) in args.iter().zip(tys) {
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, t, &x.ty);
            out.push(x);
        }
        Some(out)
    }

    fn intrinsic(&mut self, op: Intrinsic, recv: Expr, rest: Option<Vec<Expr>>, ty: Ty, span: Span) -> Expr {
        let Some(rest) = rest else { return self.error_expr(span) };
        let mut args = vec![recv];
        args.extend(rest);
        Expr { kind: ExprKind::Intrinsic { op, args }, ty, span }
    }

    fn int_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let t = Ty::Scalar(s);
        let u32t = Ty::u32();
        let unsigned = Ty::Scalar(match s {
            Scalar::I8 => Scalar::U8,
            Scalar::I16 => Scalar::U16,
            Scalar::I32 => Scalar::U32,
            Scalar::I64 => Scalar::U64,
            other => other,
        });
        let (op, params, ret) = match name {
            "wrapping_add" => (IntOp::WrappingAdd, vec![t.clone()], t.clone()),
            "wrapping_sub" => (IntOp::WrappingSub, vec![t.clone()], t.clone()),
            "wrapping_mul" => (IntOp::WrappingMul, vec![t.clone()], t.clone()),
            "wrapping_neg" => (IntOp::WrappingNeg, vec![], t.clone()),
            "wrapping_abs" if s.is_signed() => (IntOp::Abs, vec![], t.clone()),
            "wrapping_div" => (IntOp::WrappingDiv, vec![t.clone()], t.clone()),
            "wrapping_rem" => (IntOp::WrappingRem, vec![t.clone()], t.clone()),
            "saturating_add" => (IntOp::SaturatingAdd, vec![t.clone()], t.clone()),
            "saturating_sub" => (IntOp::SaturatingSub, vec![t.clone()], t.clone()),
            "min" => (IntOp::Min, vec![t.clone()], t.clone()),
            "max" => (IntOp::Max, vec![t.clone()], t.clone()),
            "clamp" => (IntOp::Clamp, vec![t.clone(), t.clone()], t.clone()),
            "abs" if s.is_signed() => (IntOp::Abs, vec![], t.clone()),
            "unsigned_abs" if s.is_signed() => (IntOp::UnsignedAbs, vec![], unsigned.clone()),
            "abs_diff" => (IntOp::AbsDiff, vec![t.clone()], unsigned.clone()),
            "signum" if s.is_signed() => (IntOp::Signum, vec![], t.clone()),
            "pow" | "wrapping_pow" => (IntOp::Pow, vec![u32t.clone()], t.clone()),
            "leading_zeros" => (IntOp::LeadingZeros, vec![], u32t.clone()),
            "trailing_zeros" => (IntOp::TrailingZeros, vec![], u32t.clone()),
            "count_ones" => (IntOp::CountOnes, vec![], u32t.clone()),
            "count_zeros" => (IntOp::CountZeros, vec![], u32t.clone()),
            "rotate_left" => (IntOp::RotateLeft, vec![u32t.clone()], t.clone()),
            "rotate_right" => (IntOp::RotateRight, vec![u32t.clone()], t.clone()),
            "swap_bytes" => (IntOp::SwapBytes, vec![], t.clone()),
            "reverse_bits" => (IntOp::ReverseBits, vec![], t.clone()),
            "is_power_of_two" if !s.is_signed() => (IntOp::IsPowerOfTwo, vec![], Ty::bool()),
            "div_ceil" if !s.is_signed() => (IntOp::DivCeil, vec![t.clone()], t.clone()),
            "is_multiple_of" if !s.is_signed() => (IntOp::IsMultipleOf, vec![t.clone()], Ty::bool()),
            "rem_euclid" => (IntOp::RemEuclid, vec![t.clone()], t.clone()),
            "div_euclid" => (IntOp::DivEuclid, vec![t.clone()], t.clone()),
            "wrapping_shl" | "wrapping_shr" => {
                let Some(mut a) = self.args_of(args, &[u32t], name_span) else { return self.error_expr(span) };
                let op = if name == "wrapping_shl" { super::hir::BinOp::Shl } else { super::hir::BinOp::Shr };
                let rhs = a.remove(0);
                return Expr { kind: ExprKind::Binary(op, Box::new(recv), Box::new(rhs)), ty: t, span };
            }
            _ => return self.error(name_span, format!("no method `{name}` on `{t}` in device code; supported integer methods: wrapping_add/sub/mul/neg/abs/div/rem/shl/shr/pow, saturating_add/sub, min, max, clamp, abs, abs_diff, signum, pow, leading_zeros, trailing_zeros, count_ones, count_zeros, rotate_left/right, swap_bytes, reverse_bits, is_power_of_two, div_ceil, is_multiple_of, rem_euclid, div_euclid")),
        };
        let rest = self.args_of(args, &params, name_span);
        self.intrinsic(Intrinsic::Int(op), recv, rest, ret, span)
    }

    fn float_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let t = Ty::Scalar(s);
        if let Some(&(_, n)) = MATH_FNS.iter().find(|(m, _)| *m == name) {
            return self.math_call(recv, s, name, n, args, span, name_span);
        }
        if name == "powi" {
            let Some(rest) = self.args_of(args, &[Ty::Scalar(Scalar::I32)], name_span) else { return self.error_expr(span) };
            let f = format_ident!("powi_{}", if s == Scalar::F32 { "f32" } else { "f64" });
            let callee = Rc::new(Callee { path: quote!(::ptx_runtime::device::math::#f), ret: t.clone() });
            let mut all = vec![recv];
            all.extend(rest);
            return Expr { kind: ExprKind::Call { callee, args: all }, ty: t, span };
        }
        if name == "to_bits" {
            let bits = Ty::Scalar(if s == Scalar::F32 { Scalar::U32 } else { Scalar::U64 });
            let rest = self.args_of(args, &[], name_span);
            return self.intrinsic(Intrinsic::Bits, recv, rest, bits, span);
        }
        let boolean = Ty::bool();
        let (op, params, ret) = match name {
            "sqrt" => (FloatOp::Sqrt, vec![], t.clone()),
            "abs" => (FloatOp::Abs, vec![], t.clone()),
            "min" => (FloatOp::Min, vec![t.clone()], t.clone()),
            "max" => (FloatOp::Max, vec![t.clone()], t.clone()),
            "clamp" => (FloatOp::Clamp, vec![t.clone(), t.clone()], t.clone()),
            "mul_add" => (FloatOp::MulAdd, vec![t.clone(), t.clone()], t.clone()),
            "floor" => (FloatOp::Floor, vec![], t.clone()),
            "ceil" => (FloatOp::Ceil, vec![], t.clone()),
            "round" => (FloatOp::Round, vec![], t.clone()),
            "round_ties_even" => (FloatOp::RoundTiesEven, vec![], t.clone()),
            "trunc" => (FloatOp::Trunc, vec![], t.clone()),
            "fract" => (FloatOp::Fract, vec![], t.clone()),
            "recip" => (FloatOp::Recip, vec![], t.clone()),
            "copysign" => (FloatOp::Copysign, vec![t.clone()], t.clone()),
            "signum" => (FloatOp::Signum, vec![], t.clone()),
            "is_nan" => (FloatOp::IsNan, vec![], boolean),
            "is_infinite" => (FloatOp::IsInfinite, vec![], boolean),
            "is_finite" => (FloatOp::IsFinite, vec![], boolean),
            "is_sign_negative" => (FloatOp::IsSignNegative, vec![], boolean),
            "is_sign_positive" => (FloatOp::IsSignPositive, vec![], boolean),
            "to_degrees" => (FloatOp::ToDegrees, vec![], t.clone()),
            "to_radians" => (FloatOp::ToRadians, vec![], t.clone()),
            _ => {
                let list: Vec<&str> = MATH_FNS.iter().map(|(n, _)| *n).collect();
                return self.error(name_span, format!("no method `{name}` on `{t}` in device code; supported: sqrt, abs, min, max, clamp, mul_add, floor, ceil, round, round_ties_even, trunc, fract, recip, copysign, signum, is_nan, is_infinite, is_finite, is_sign_negative, is_sign_positive, to_degrees, to_radians, powi, to_bits, {}", list.join(", ")));
            }
        };
        let rest = self.args_of(args, &params, name_span);
        self.intrinsic(Intrinsic::Float(op), recv, rest, ret, span)
    }

    /// `x.exp()` → `ptx_runtime::device::math::exp_f32(x)`.
    #[allow(clippy::too_many_arguments)]
    fn math_call(&mut self, recv: Expr, s: Scalar, name: &str, n: usize, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let t = Ty::Scalar(s);
        let Some(rest) = self.args_of(args, &vec![t.clone(); n], name_span) else { return self.error_expr(span) };
        let f = format_ident!("{}_{}", name, if s == Scalar::F32 { "f32" } else { "f64" });
        let callee = Rc::new(Callee { path: quote!(::ptx_runtime::device::math::#f), ret: t.clone() });
        let mut all = vec![recv];
        all.extend(rest);
        Expr { kind: ExprKind::Call { callee, args: all }, ty: t, span }
    }

    fn half_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let to = match name {
            "to_f32" => Scalar::F32,
            "to_f64" => Scalar::F64,
            "to_bits" => {
                let rest = self.args_of(args, &[], name_span);
                return self.intrinsic(Intrinsic::Bits, recv, rest, Ty::Scalar(Scalar::U16), span);
            }
            _ => return self.error(name_span, format!("`{}` is a storage type: convert with `to_f32()` / `to_f64()` / `to_bits()` and compute in `f32`", super::ty::scalar_name(s))),
        };
        if !args.is_empty() {
            return self.error(name_span, "this method takes no arguments");
        }
        Expr { kind: ExprKind::Cast(Box::new(recv)), ty: Ty::Scalar(to), span }
    }

    #[allow(clippy::too_many_arguments)]
    fn ptr_method(&mut self, recv: Expr, mutable: bool, pointee: &Ty, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let pty = recv.ty.clone();
        let usize_t = Ty::usize();
        let isize_t = Ty::Scalar(Scalar::I64);
        let value = self.describe(pointee, name_span);
        let (op, params, ret) = match name {
            "add" | "wrapping_add" => (PtrOp::Add, vec![usize_t], pty),
            "sub" | "wrapping_sub" => (PtrOp::Sub, vec![usize_t], pty),
            "offset" | "wrapping_offset" => (PtrOp::Offset, vec![isize_t], pty),
            "read" | "read_volatile" => (PtrOp::Read { volatile: name == "read_volatile" }, vec![], value.clone()),
            "write" | "write_volatile" if mutable => (PtrOp::Write { volatile: name == "write_volatile" }, vec![value.clone()], Ty::Unit),
            "read_unaligned" | "write_unaligned" => return self.error(name_span, format!("`{name}` is not supported in device code: PTX loads and stores need naturally aligned addresses; copy the bytes through a `*const u8` / `*mut u8` and assemble the value")),
            "is_null" => (PtrOp::IsNull, vec![], Ty::bool()),
            _ => return self.error(name_span, format!("no method `{name}` on raw pointers in device code; supported: add, sub, offset, wrapping_add/sub/offset, read, write, is_null")),
        };
        if matches!(value, Ty::Error) && matches!(op, PtrOp::Read { .. } | PtrOp::Write { .. } | PtrOp::Add | PtrOp::Sub | PtrOp::Offset) {
            return self.error_expr(span);
        }
        let rest = self.args_of(args, &params, name_span);
        self.intrinsic(Intrinsic::Ptr(op), recv, rest, ret, span)
    }

    /// Slices, arrays and shared memory.
    fn seq_method(&mut self, recv: Expr, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let (elem, mutable) = match self.shallow(&recv.ty) {
            Ty::Slice { elem, mutable } => (elem, mutable),
            Ty::Array { elem, .. } => (elem, true),
            Ty::Shared { elem, .. } => (elem, true),
            _ => return self.error_expr(span),
        };
        let is_array = matches!(self.shallow(&recv.ty), Ty::Array { .. });
        match name {
            "len" => {
                let rest = self.args_of(args, &[], name_span);
                self.intrinsic(Intrinsic::Len, recv, rest, Ty::usize(), span)
            }
            "is_empty" => {
                let Some(_) = self.args_of(args, &[], name_span) else { return self.error_expr(span) };
                let len = Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Len, args: vec![recv] }, ty: Ty::usize(), span };
                let zero = Expr { kind: ExprKind::Int(0), ty: Ty::usize(), span };
                Expr { kind: ExprKind::Binary(super::hir::BinOp::Eq, Box::new(len), Box::new(zero)), ty: Ty::bool(), span }
            }
            "get_unchecked" | "get_unchecked_mut" => {
                if is_array {
                    return self.error(name_span, "`get_unchecked` on arrays is not supported in device code; index the array (`a[i]`)");
                }
                let Some(mut a) = self.args_of(args, &[Ty::usize()], name_span) else { return self.error_expr(span) };
                let index = a.remove(0);
                let place = self.index_of(recv, index, false, span);
                let ty = Ty::Ptr { mutable: name.ends_with("_mut") && mutable, reference: true, pointee: elem };
                Expr { kind: ExprKind::AddrOf(Box::new(place)), ty, span }
            }
            "as_ptr" | "as_mut_ptr" if !is_array => {
                let rest = self.args_of(args, &[], name_span);
                let ty = Ty::Ptr { mutable: name == "as_mut_ptr", reference: false, pointee: elem };
                self.intrinsic(Intrinsic::AsPtr, recv, rest, ty, span)
            }
            _ => self.error(name_span, format!("no method `{name}` here in device code; supported: len, is_empty, get_unchecked, get_unchecked_mut, as_ptr, as_mut_ptr (not on arrays)")),
        }
    }
}

/// Whether the expression reads a constant defined outside the body.
fn mentions_const(e: &Expr) -> bool {
    let mut found = false;
    crate::lower::visit(e, &mut |x| found |= matches!(x.kind, ExprKind::Const(_)));
    found
}
