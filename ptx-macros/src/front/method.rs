//! Methods of the types device code has: integers, floats, pointers, slices, arrays and shared
//! memory. Transcendental float functions call `ptx_runtime::device::math` (device functions
//! compiled from Rust, so host and device run the same algorithm); everything else is an
//! [`Intrinsic`].

use crate::syntax::first_token::FirstToken;
use super::hir::{Block, Callee, Expr, ExprKind, LetPat, Stmt};
use super::intrinsic::{FloatOp, IntOp, Intrinsic, PtrOp};
use super::ty::Ty;
use super::{unsupported, Checker};
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::{format_ident, quote};
use std::rc::Rc;
use syn::spanned::Spanned;

/// Float functions implemented in `ptx_runtime::device::math` as `<name>_f32` / `<name>_f64`:
/// name and number of float arguments besides the receiver.
pub const MATH_FNS: [(&str, usize); 23] = [
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
    ("cbrt", 0),
    ("asinh", 0),
    ("acosh", 0),
    ("atanh", 0),
];

/// The float methods `std` defines from others (`ln x / ln base`, ...), for `f32` and `f64`:
/// method, function stem and arguments, `ptx_runtime::device::math::derived`'s
/// `<stem>_f32`/`<stem>_f64` (`#[inline(always)]`).
pub const DERIVED_FNS: [(&str, &str, usize); 8] = [
    ("log", "log_base", 1),
    ("rem_euclid", "rem_euclid", 1),
    ("div_euclid", "div_euclid", 1),
    ("midpoint", "midpoint", 1),
    ("next_up", "next_up", 0),
    ("next_down", "next_down", 0),
    ("is_normal", "is_normal", 0),
    ("is_subnormal", "is_subnormal", 0),
];

/// `f32` methods that are CUDA's function of the same meaning, as nvcc compiles it
/// (`ptx_runtime::device::math::cuda`): method and function name, taking the arguments
/// [`MATH_FNS`] says (`sin_cos`, `f32`'s only, none). The rest of `MATH_FNS` call `<name>_f32`.
pub const CUDA_F32_FNS: [(&str, &str); 22] = [
    ("ln", "logf"),
    ("sin_cos", "sincosf"),
    ("log2", "log2f"),
    ("log10", "log10f"),
    ("ln_1p", "log1pf"),
    ("exp_m1", "expm1f"),
    ("sin", "sinf"),
    ("cos", "cosf"),
    ("tan", "tanf"),
    ("atan", "atanf"),
    ("atan2", "atan2f"),
    ("asin", "asinf"),
    ("acos", "acosf"),
    ("sinh", "sinhf"),
    ("cosh", "coshf"),
    ("tanh", "tanhf"),
    ("powf", "powf"),
    ("hypot", "hypotf"),
    ("cbrt", "cbrtf"),
    ("asinh", "asinhf"),
    ("acosh", "acoshf"),
    ("atanh", "atanhf"),
];

impl<'a> Checker<'a> {
    pub fn method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.first_span();
        if let Some(e) = self.cursor_method(m) {
            return e;
        }
        if let Some(e) = self.iterator_method(m) {
            return e;
        }
        let recv = self.expr(&m.receiver);
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let name = m.method.to_string();
        if let Some(t) = &m.turbofish {
            if name == "cast" {
                return self.error(t.span(), "`cast::<U>()` reinterprets memory and is not supported in device code; read the value and convert it with `as`");
            }
        }
        if !matches!(name.as_str(), "clone" | "to_owned") && matches!(self.peel_refs(&recv.ty), Ty::Struct(_) | Ty::Named(_)) {
            self.method_generics = m.turbofish.clone();
            return self.user_method(recv, Some(&m.receiver), &name, &args, span, m.method.span());
        }
        self.method(recv, &name, &args, span, m.method.span())
    }

    /// The type behind any number of references.
    pub fn peel_refs(&self, ty: &Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Ptr { reference: true, pointee, .. } => self.peel_refs(&pointee),
            t => t,
        }
    }

    /// `recv.name(args)`; also `T::name(recv, args)`.
    pub fn method(&mut self, recv: Expr, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        if let Ty::Error = self.peel_refs(&recv.ty) {
            // Not known until a fetch (a user type's method may have any name): only the
            // arguments are checked now (a closure's body only where it is called).
            for a in args.iter().filter(|a| !matches!(super::expr::strip(a), syn::Expr::Closure(_))) {
                self.expr(a);
            }
            return self.error_expr(span);
        }
        // Methods every `Copy` type has.
        if matches!(name, "clone" | "to_owned") && args.is_empty() {
            let recv = self.auto_deref_value(recv);
            return recv;
        }
        if let Ty::Sum { kind, .. } = self.peel_refs(&recv.ty) {
            let recv = self.auto_deref_value(recv);
            return self.sum_method(recv, kind, name, args, span, name_span);
        }
        if matches!(name, "iter" | "iter_mut" | "into_iter" | "map" | "sum" | "fold" | "for_each" | "zip" | "enumerate" | "collect") {
            return self.error(name_span, unsupported::ITERATOR);
        }
        if matches!(name, "checked_add" | "checked_sub" | "checked_mul" | "checked_div" | "checked_rem" | "get" | "get_mut" | "first" | "last" | "split_first" | "split_last") && !matches!(self.peel_refs(&recv.ty), Ty::Sum { .. }) {
            return self.option_method(recv, name, args, span, name_span);
        }
        // Raw pointers do not auto-deref; references do.
        let recv = match self.shallow(&recv.ty) {
            Ty::Ptr { reference: false, .. } => recv,
            _ => self.auto_deref_value(recv),
        };
        if name == "into" && args.is_empty() {
            return self.into_call(recv, span);
        }
        if name == "try_into" && args.is_empty() {
            return self.try_into_call(recv, span);
        }
        // `TABLE.len()` of a table defined outside the body (see `statics`).
        let recv = if name == "len" { self.table_base(recv) } else { recv };
        if let (Ty::Scalar(s), Some(conv)) = (self.shallow(&recv.ty), super::round::parse(name)) {
            return self.round_call(recv, s, conv, name, args, span, name_span);
        }
        match self.shallow(&recv.ty) {
            Ty::Scalar(s) if self.has_prim_trait(s) && !self.builtin_beside_generic_bound(s, name) => self.prim_trait_call(s, Some(recv), name, args, span, name_span),
            Ty::Scalar(s) if super::prim_method::is_user_candidate(s, name) => self.prim_method_syntax(recv, s, name, args, span, name_span),
            Ty::Scalar(s) if s.is_float() && !matches!(s, Scalar::F16 | Scalar::BF16) => self.float_method(recv, s, name, args, span, name_span),
            Ty::Scalar(s @ (Scalar::F16 | Scalar::BF16)) => self.half_method(recv, s, name, args, span, name_span),
            Ty::Scalar(Scalar::Bool) => self.error(name_span, format!("`bool::{name}` is not supported in device code")),
            Ty::Scalar(s) => self.int_method(recv, s, name, args, span, name_span),
            Ty::Ptr { reference: false, mutable, pointee } => self.ptr_method(recv, mutable, &pointee, name, args, span, name_span),
            Ty::Slice { .. } | Ty::Array { .. } | Ty::Shared { .. } => self.seq_method(recv, name, args, span, name_span),
            Ty::Struct(_) | Ty::Named(_) => self.user_method(recv, None, name, args, span, name_span),
            Ty::Vector { elem: s @ (Scalar::F16 | Scalar::BF16), lanes: 2 } => self.half2_method(recv, s, name, args, span, name_span),
            Ty::Vector { .. } => self.error(name_span, unsupported::METHOD_CALL_ON_VECTOR),
            Ty::Var(v) if self.infer.kind_of(v) == super::infer::VarKind::Int && !mentions_const(&recv) => self.deferred_int_method(recv, name, args, span, name_span),
            Ty::Var(_) if mentions_const(&recv) => self.error(name_span, format!("can't call method `{name}` here: the type of a constant defined outside the body is not known to the device compiler until the context fixes it; bind it with a type (`let v: f32 = ...`) or cast it (`NAME as f32`)")),
            Ty::Var(_) => self.error(name_span, format!("can't call method `{name}` on a value whose type is not known yet; annotate it (`let x: u32 = ...` or a literal suffix `1u32`)")),
            Ty::Error => self.error_expr(span),
            t => self.error(name_span, format!("no method `{name}` on `{}` in device code", self.infer.resolve(&t))),
        }
    }

    pub(super) fn args_of(&mut self, args: &[&syn::Expr], tys: &[Ty], name_span: Span) -> Option<Vec<Expr>> {
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

    pub(super) fn intrinsic(&mut self, op: Intrinsic, recv: Expr, rest: Option<Vec<Expr>>, ty: Ty, span: Span) -> Expr {
        let Some(rest) = rest else { return self.error_expr(span) };
        let mut args = vec![recv];
        args.extend(rest);
        Expr { kind: ExprKind::Intrinsic { op, args }, ty, span }
    }

    /// `recv.name(args)` on an integer of type `s`.
    fn int_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let t = Ty::Scalar(s);
        let Some((method, params, ret)) = int_signature(name).filter(|_| int_method_applies(name, s)) else {
            return self.error(name_span, no_int_method(name, &t.to_string()));
        };
        let unsigned = Ty::Scalar(unsigned_of(s));
        let ty_of = |p: Sig| match p {
            Sig::SelfTy => t.clone(),
            Sig::U32 => Ty::u32(),
            Sig::Bool => Ty::bool(),
            Sig::Unsigned => unsigned.clone(),
        };
        let params: Vec<Ty> = params.iter().map(|p| ty_of(*p)).collect();
        let ret = ty_of(ret);
        self.int_method_expr(method, recv, args, &params, ret, span, name_span)
    }

    /// `recv.name(args)` on an integer whose type is not known yet (`let q = 3; a[q] = q.pow(2)`
    /// types `q` only at the index, as rustc types the place first): the signature is the same
    /// for every integer type but for `Self`, so the call is typed now with the receiver's
    /// variable and checked against the type once it is known (see `resolve_deferred`).
    fn deferred_int_method(&mut self, recv: Expr, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let Some((method, params, ret)) = int_signature(name) else {
            return self.error(name_span, no_int_method(name, "{integer}"));
        };
        let unsigned = self.var(super::infer::VarKind::Int);
        let ty_of = |p: Sig| match p {
            Sig::SelfTy => recv.ty.clone(),
            Sig::U32 => Ty::u32(),
            Sig::Bool => Ty::bool(),
            Sig::Unsigned => unsigned.clone(),
        };
        let param_tys: Vec<Ty> = params.iter().map(|p| ty_of(*p)).collect();
        let ret_ty = ty_of(ret);
        let uses_unsigned = ret == Sig::Unsigned;
        self.deferred_methods.push(Deferred { recv: recv.ty.clone(), name: name.to_owned(), unsigned: uses_unsigned.then_some(unsigned), span: name_span });
        self.int_method_expr(method, recv, args, &param_tys, ret_ty, span, name_span)
    }

    #[allow(clippy::too_many_arguments)]
    fn int_method_expr(&mut self, method: IntMethod, recv: Expr, args: &[&syn::Expr], params: &[Ty], ret: Ty, span: Span, name_span: Span) -> Expr {
        match method {
            IntMethod::Op(op) => {
                let rest = self.args_of(args, params, name_span);
                self.intrinsic(Intrinsic::Int(op), recv, rest, ret, span)
            }
            IntMethod::Shift(op) => {
                let Some(mut a) = self.args_of(args, params, name_span) else { return self.error_expr(span) };
                let rhs = a.remove(0);
                Expr { kind: ExprKind::Binary(op, Box::new(recv), Box::new(rhs)), ty: ret, span }
            }
        }
    }

    /// Checks the integer methods called before their receiver's type was known, now that
    /// the body is checked: each against its receiver's type, the unsigned result of
    /// `unsigned_abs`/`abs_diff` fixed from it. A receiver nothing fixed has rustc's integer
    /// fallback, `i32` (rustc itself rejects such a call, E0689, so the body does not build;
    /// the fallback keeps this compiler from reporting a second, different error).
    pub fn resolve_deferred(&mut self) {
        let mut pending = std::mem::take(&mut self.deferred_methods);
        loop {
            let before = pending.len();
            pending.retain(|d| match self.infer.shallow(&d.recv) {
                Ty::Scalar(s) => {
                    self.check_deferred(d, s);
                    false
                }
                Ty::Var(_) => true,
                _ => false,
            });
            if pending.is_empty() {
                return;
            }
            if pending.len() == before {
                // Nothing more fixes a receiver: the first one falls back, which may fix others.
                let d = pending.remove(0);
                self.check_deferred(&d, Scalar::I32);
            }
        }
    }

    fn check_deferred(&mut self, d: &Deferred, s: Scalar) {
        if !int_method_applies(&d.name, s) {
            self.errors.at(d.span, no_int_method(&d.name, &Ty::Scalar(s).to_string()));
            return;
        }
        if let Some(u) = &d.unsigned {
            let want = Ty::Scalar(unsigned_of(s));
            if self.infer.unify(u, &want).is_err() {
                let found = self.infer.resolve(u);
                self.errors.at(d.span, format!("mismatched types: `{}` of `{s}` is `{want}`, but it is used as `{found}`", d.name, s = Ty::Scalar(s)));
            }
        }
    }
    fn float_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let t = Ty::Scalar(s);
        if let (Scalar::F32, Some(op)) = (s, super::intrinsic::CudaOp::of_method(name)) {
            let rest = self.args_of(args, &[], name_span);
            return self.intrinsic(Intrinsic::CudaMath(op), recv, rest, t, span);
        }
        let library = MATH_FNS.iter().find(|(m, _)| *m == name).map(|&(_, n)| n);
        let cuda = CUDA_F32_FNS.iter().find(|(m, _)| *m == name).filter(|_| s == Scalar::F32);
        if let Some(&(_, f)) = cuda {
            if args.len() == library.unwrap_or(0) {
                return self.inlined_math_call(recv, quote!(cuda::), f, args, span, name_span);
            }
        }
        if let Some(&(_, stem, n)) = DERIVED_FNS.iter().find(|(m, _, _)| *m == name) {
            if args.len() != n {
                // `args_of`'s error, which names the method.
                let _ = self.args_of(args, &vec![t.clone(); n], name_span);
                return self.error_expr(span);
            }
            let f = format!("{stem}_{}", if s == Scalar::F32 { "f32" } else { "f64" });
            return self.inlined_math_call(recv, quote!(), &f, args, span, name_span);
        }
        // The library's call, or (a wrong number of arguments) `args_of`'s error, which names
        // the method rather than CUDA's function.
        if let Some(n) = library.or(cuda.map(|_| 0)) {
            return self.math_call(recv, s, name, n, args, span, name_span);
        }
        if name == "powi" {
            let Some(rest) = self.args_of(args, &[Ty::Scalar(Scalar::I32)], name_span) else { return self.error_expr(span) };
            let f = format_ident!("powi_{}", if s == Scalar::F32 { "f32" } else { "f64" });
            let callee = Rc::new(Callee { path: quote!(::ptx_runtime::device::math::#f), assoc: None, ret: t.clone() });
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
                let mut list: Vec<&str> = MATH_FNS.iter().map(|(n, _)| *n).chain(DERIVED_FNS.iter().map(|(m, _, _)| *m)).collect();
                if s == Scalar::F32 {
                    list.extend(CUDA_F32_FNS.iter().map(|(m, _)| *m).filter(|m| !MATH_FNS.iter().any(|(n, _)| n == m)));
                }
                return self.error(name_span, format!("no method `{name}` on `{t}` in device code; supported: sqrt, abs, min, max, clamp, mul_add, floor, ceil, round, round_ties_even, trunc, fract, recip, copysign, signum, is_nan, is_infinite, is_finite, is_sign_negative, is_sign_positive, to_degrees, to_radians, powi, to_bits, {}; {}", list.join(", "), super::trait_call::prim_hint(name, &t.to_string())));
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
        let callee = Rc::new(Callee { path: quote!(::ptx_runtime::device::math::#f), assoc: None, ret: t.clone() });
        let mut all = vec![recv];
        all.extend(rest);
        Expr { kind: ExprKind::Call { callee, args: all }, ty: t, span }
    }

    /// `x.ln()` on an `f32` → `::ptx_runtime::device::math::cuda::logf(x)` (`module` `cuda::`,
    /// `f` `logf`), checked as the call written out: the function is `#[inline(always)]`, so its
    /// replay is fetched and its body inlined here (`closure::generic_closure_call`). The
    /// receiver, already checked, is bound to a local the call names.
    fn inlined_math_call(&mut self, recv: Expr, module: TokenStream, f: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        self.natural.next += 1;
        let local = format!("__ptx_recv{}", self.natural.next);
        self.push_scope();
        let id = self.declare(&local, recv.ty.clone(), false, recv.span);
        let (local, f) = (syn::Ident::new(&local, recv.span), syn::Ident::new(f, name_span));
        let call: syn::ExprCall = syn::parse_quote_spanned!(name_span=> ::ptx_runtime::device::math::#module #f(#local #(, #args)*));
        let value = self.call(&call);
        self.pop_scope();
        let ty = value.ty.clone();
        let bind = Stmt::Let { pat: LetPat::Bind(id), init: Some(recv), span };
        Expr { kind: ExprKind::Block(Block { stmts: vec![bind], tail: Some(Box::new(value)) }), ty, span }
    }

    fn half_method(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let to = match name {
            "to_f32" => Scalar::F32,
            "to_f64" => Scalar::F64,
            "to_bits" => {
                let rest = self.args_of(args, &[], name_span);
                return self.intrinsic(Intrinsic::Bits, recv, rest, Ty::Scalar(Scalar::U16), span);
            }
            _ => {
                let t = Ty::Scalar(s);
                let (op, params, ret) = match name {
                    "min" => (FloatOp::Min, vec![t.clone()], t),
                    "max" => (FloatOp::Max, vec![t.clone()], t),
                    "copysign" => (FloatOp::Copysign, vec![t.clone()], t),
                    "mul_add" => (FloatOp::MulAdd, vec![t.clone(), t.clone()], t),
                    "abs" => (FloatOp::Abs, vec![], t),
                    "is_nan" => (FloatOp::IsNan, vec![], Ty::bool()),
                    "is_infinite" => (FloatOp::IsInfinite, vec![], Ty::bool()),
                    "is_finite" => (FloatOp::IsFinite, vec![], Ty::bool()),
                    "is_sign_negative" => (FloatOp::IsSignNegative, vec![], Ty::bool()),
                    "is_sign_positive" => (FloatOp::IsSignPositive, vec![], Ty::bool()),
                    _ => return self.error(name_span, format!("no method `{name}` on `{}` in device code; supported: to_f32, to_f64, to_bits, min, max, copysign, mul_add, abs (the last two through `ptx_runtime::device::HalfMath`), is_nan, is_infinite, is_finite, is_sign_negative, is_sign_positive, and the operators `+ - * / %`, unary `-` and comparisons (other math: convert with `to_f32()` and compute in `f32`)", super::ty::scalar_name(s))),
                };
                let rest = self.args_of(args, &params, name_span);
                return self.intrinsic(Intrinsic::Float(op), recv, rest, ret, span);
            }
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
            // An array's length is its type's: no need to read the array (one of an outside
            // constant's length lives in memory, a table in `.const`).
            "len" if is_array && args.is_empty() && matches!(recv.kind, ExprKind::Local(_) | ExprKind::Const(_)) => match self.shallow(&recv.ty) {
                Ty::Array { len: super::ty::Len::Known(n), .. } => Expr { kind: ExprKind::Int(n as u128), ty: Ty::usize(), span },
                Ty::Array { len: super::ty::Len::Const(t), .. } => Expr { kind: ExprKind::Const(quote::quote!((#t) as usize)), ty: Ty::usize(), span },
                _ => self.error_expr(span),
            },
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

/// A method called on an integer whose type was not known yet (see `deferred_int_method`).
pub struct Deferred {
    recv: Ty,
    name: String,
    /// The result of `unsigned_abs`/`abs_diff`: the receiver's unsigned type.
    unsigned: Option<Ty>,
    span: Span,
}

/// An integer method's parameter or result type, in terms of the receiver's type `Self`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sig {
    SelfTy,
    U32,
    Bool,
    /// The unsigned type of `Self`'s width.
    Unsigned,
}

#[derive(Clone, Copy)]
enum IntMethod {
    Op(IntOp),
    /// `wrapping_shl`/`wrapping_shr`: the shift operator (it masks the amount already).
    Shift(super::hir::BinOp),
}

/// The integer methods of the subset: the operation, its parameters and its result.
fn int_signature(name: &str) -> Option<(IntMethod, Vec<Sig>, Sig)> {
    use Sig::*;
    let op = |op: IntOp, params: &[Sig], ret: Sig| Some((IntMethod::Op(op), params.to_vec(), ret));
    match name {
        "wrapping_add" => op(IntOp::WrappingAdd, &[SelfTy], SelfTy),
        "wrapping_sub" => op(IntOp::WrappingSub, &[SelfTy], SelfTy),
        "wrapping_mul" => op(IntOp::WrappingMul, &[SelfTy], SelfTy),
        "wrapping_neg" => op(IntOp::WrappingNeg, &[], SelfTy),
        "wrapping_abs" | "abs" => op(IntOp::Abs, &[], SelfTy),
        "wrapping_div" => op(IntOp::WrappingDiv, &[SelfTy], SelfTy),
        "wrapping_rem" => op(IntOp::WrappingRem, &[SelfTy], SelfTy),
        "saturating_add" => op(IntOp::SaturatingAdd, &[SelfTy], SelfTy),
        "saturating_sub" => op(IntOp::SaturatingSub, &[SelfTy], SelfTy),
        "min" => op(IntOp::Min, &[SelfTy], SelfTy),
        "max" => op(IntOp::Max, &[SelfTy], SelfTy),
        "clamp" => op(IntOp::Clamp, &[SelfTy, SelfTy], SelfTy),
        "unsigned_abs" => op(IntOp::UnsignedAbs, &[], Unsigned),
        "abs_diff" => op(IntOp::AbsDiff, &[SelfTy], Unsigned),
        "signum" => op(IntOp::Signum, &[], SelfTy),
        "pow" | "wrapping_pow" => op(IntOp::Pow, &[U32], SelfTy),
        "leading_zeros" => op(IntOp::LeadingZeros, &[], U32),
        "trailing_zeros" => op(IntOp::TrailingZeros, &[], U32),
        "count_ones" => op(IntOp::CountOnes, &[], U32),
        "count_zeros" => op(IntOp::CountZeros, &[], U32),
        "rotate_left" => op(IntOp::RotateLeft, &[U32], SelfTy),
        "rotate_right" => op(IntOp::RotateRight, &[U32], SelfTy),
        "swap_bytes" => op(IntOp::SwapBytes, &[], SelfTy),
        "reverse_bits" => op(IntOp::ReverseBits, &[], SelfTy),
        "is_power_of_two" => op(IntOp::IsPowerOfTwo, &[], Bool),
        "div_ceil" => op(IntOp::DivCeil, &[SelfTy], SelfTy),
        "is_multiple_of" => op(IntOp::IsMultipleOf, &[SelfTy], Bool),
        "rem_euclid" => op(IntOp::RemEuclid, &[SelfTy], SelfTy),
        "div_euclid" => op(IntOp::DivEuclid, &[SelfTy], SelfTy),
        "wrapping_shl" => Some((IntMethod::Shift(super::hir::BinOp::Shl), vec![U32], SelfTy)),
        "wrapping_shr" => Some((IntMethod::Shift(super::hir::BinOp::Shr), vec![U32], SelfTy)),
        _ => None,
    }
}

/// Whether integer type `s` has the method (some exist only on signed or unsigned types).
fn int_method_applies(name: &str, s: Scalar) -> bool {
    match name {
        "wrapping_abs" | "abs" | "unsigned_abs" | "signum" => s.is_signed(),
        "is_power_of_two" | "div_ceil" | "is_multiple_of" => !s.is_signed(),
        _ => true,
    }
}

fn unsigned_of(s: Scalar) -> Scalar {
    match s {
        Scalar::I8 => Scalar::U8,
        Scalar::I16 => Scalar::U16,
        Scalar::I32 => Scalar::U32,
        Scalar::I64 => Scalar::U64,
        other => other,
    }
}

fn no_int_method(name: &str, t: &str) -> String {
    format!("no method `{name}` on `{t}` in device code; supported integer methods: wrapping_add/sub/mul/neg/abs/div/rem/shl/shr/pow, saturating_add/sub, min, max, clamp, abs, abs_diff, signum, pow, leading_zeros, trailing_zeros, count_ones, count_zeros, rotate_left/right, swap_bytes, reverse_bits, is_power_of_two, div_ceil, is_multiple_of, rem_euclid, div_euclid; {}", super::trait_call::prim_hint(name, t))
}
