//! Expressions: literals, names, operators, casts, places (fields, indexing, dereference),
//! struct and array literals. Control flow is in `control`, calls in `call`, methods in
//! `method`.

use crate::syntax::first_token::FirstToken;
use super::hir::{BinOp, Expr, ExprKind, UnOp};
use super::infer::VarKind;
use super::ty::{Len, StructKind, Ty, VECTOR_LANES};
use super::{unsupported, Checker, Position};
use proc_macro2::Span;
use ptx_abi::Scalar;
use quote::ToTokens;
use std::rc::Rc;
use syn::spanned::Spanned;

impl<'a> Checker<'a> {
    pub fn expr(&mut self, e: &syn::Expr) -> Expr {
        let span = e.first_span();
        match e {
            syn::Expr::Lit(l) => self.lit(&l.lit),
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Path(p) => self.path_expr(p),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Assign(a) => self.assign(a),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::Field(f) => self.field(f),
            syn::Expr::Index(i) => self.index(i),
            syn::Expr::Reference(r) => self.reference(&r.expr, span),
            syn::Expr::RawAddr(r) => self.reference(&r.expr, span),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::MethodCall(m) => self.method_call(m),
            syn::Expr::Block(b) => self.block_expr(b),
            syn::Expr::Unsafe(u) => {
                self.in_unsafe += 1;
                let ty = self.var(VarKind::General);
                let block = self.block(&u.block, &ty);
                self.in_unsafe -= 1;
                Expr { kind: ExprKind::Block(block), ty, span }
            }
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::While(w) => self.while_expr(w),
            syn::Expr::Loop(l) => self.loop_expr(l),
            syn::Expr::ForLoop(f) => self.for_expr(f),
            syn::Expr::Break(b) => self.break_expr(b),
            syn::Expr::Continue(c) => self.continue_expr(c),
            syn::Expr::Return(r) => self.return_expr(r),
            syn::Expr::Match(m) => self.match_expr(m),
            syn::Expr::Struct(s) => self.struct_lit(s),
            syn::Expr::Array(a) => self.array_lit(a),
            syn::Expr::Repeat(r) => self.repeat(r),
            syn::Expr::Macro(m) => self.macro_expr(&m.mac),
            syn::Expr::Tuple(t) if t.elems.is_empty() => Expr { kind: ExprKind::Unit, ty: Ty::Unit, span },
            syn::Expr::Tuple(t) => {
                let elems: Vec<Expr> = t.elems.iter().map(|e| self.expr(e)).collect();
                let ty = Ty::Tuple(elems.iter().map(|e| e.ty.clone()).collect());
                Expr { kind: ExprKind::Tuple(elems), ty, span }
            }
            syn::Expr::Closure(_) => self.error(span, super::closure::ESCAPES),
            syn::Expr::Async(_) | syn::Expr::Await(_) => self.error(span, unsupported::ASYNC),
            syn::Expr::Try(t) => self.try_expr(t),
            syn::Expr::TryBlock(_) => self.error(span, unsupported::TRY),
            syn::Expr::Let(_) => self.error(span, "`if let` / `while let` are not supported in device code: there are no enums on the device; compare values with `if` / `match` on integers"),
            syn::Expr::Range(_) => self.error(span, "ranges are only supported as what a `for` loop iterates over (`for i in a..b`) and in slice indexing (`&s[a..b]`)"),
            syn::Expr::Yield(_) => self.error(span, "`yield` is not supported in device code"),
            syn::Expr::Const(_) => self.error(span, "`const` blocks are not supported in device code; define a `const` item outside the function and use it"),
            _ => self.error(span, "this expression is not supported in device code"),
        }
    }

    fn lit(&mut self, lit: &syn::Lit) -> Expr {
        let span = lit.span();
        match lit {
            syn::Lit::Int(i) if i.base10_digits().starts_with('-') => {
                // A negative literal (in a pattern, or from a macro): the negation of its value.
                let positive = syn::LitInt::new(&format!("{}{}", &i.base10_digits()[1..], i.suffix()), span);
                let x = self.lit(&syn::Lit::Int(positive));
                let ty = x.ty.clone();
                Expr { kind: ExprKind::Unary(super::hir::UnOp::Neg, Box::new(x)), ty, span }
            }
            syn::Lit::Int(i) => {
                let ty = match i.suffix() {
                    "" => self.var(VarKind::Int),
                    s => match Scalar::from_rust_name(s) {
                        Some(sc) if !sc.is_float() => Ty::Scalar(sc),
                        Some(sc) => {
                            let d = i.base10_digits();
                            let kind = ExprKind::Float(d.parse().unwrap_or(0.0), d.parse().unwrap_or(0.0));
                            return Expr { kind, ty: Ty::Scalar(sc), span };
                        }
                        None => return self.error(span, format!("the literal suffix `{s}` is not supported in device code")),
                    },
                };
                match i.base10_parse::<u128>() {
                    Ok(v) => Expr { kind: ExprKind::Int(v), ty, span },
                    Err(e) => self.error(span, e),
                }
            }
            syn::Lit::Float(f) => {
                let ty = match f.suffix() {
                    "" => self.var(VarKind::Float),
                    "f32" => Ty::Scalar(Scalar::F32),
                    "f64" => Ty::Scalar(Scalar::F64),
                    s => return self.error(span, format!("the literal suffix `{s}` is not supported in device code; use `f32` or `f64`")),
                };
                match (f.base10_parse::<f32>(), f.base10_parse::<f64>()) {
                    (Ok(a), Ok(b)) => Expr { kind: ExprKind::Float(a, b), ty, span },
                    (Err(e), _) | (_, Err(e)) => self.error(span, e),
                }
            }
            syn::Lit::Bool(b) => Expr { kind: ExprKind::Bool(b.value), ty: Ty::bool(), span },
            syn::Lit::Byte(b) => Expr { kind: ExprKind::Int(b.value() as u128), ty: Ty::Scalar(Scalar::U8), span },
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => self.error(span, "string literals are not supported in device code: PTX has no strings"),
            syn::Lit::Char(_) => self.error(span, "`char` literals are not supported in device code; use a byte literal `b'a'` or its `u32` code"),
            _ => self.error(span, "this literal is not supported in device code"),
        }
    }

    /// A name: a local, else a constant, unit struct or device-API constant (see `call`).
    fn path_expr(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.first_span();
        if p.qself.is_none() && p.path.segments.len() == 1 && p.path.leading_colon.is_none() {
            let name = p.path.segments[0].ident.to_string();
            if let Some(id) = self.lookup(&name) {
                if let Some(e) = self.natural_name(id, span) {
                    return e;
                }
                let mut ty = self.local(id).ty.clone();
                // A value of a type not described yet can only be passed along whole (a
                // parameter returned as it is); any other use needs its description.
                if matches!(ty, Ty::Named(_)) && !self.opaque_ok {
                    ty = self.describe(&ty, span);
                    // A C-like enum is described from now on (see `enums`).
                    if ty.c_enum().is_some() {
                        self.set_local_type(id, ty.clone());
                    }
                }
                return Expr { kind: ExprKind::Local(id), ty, span };
            }
        }
        self.const_path(p)
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
        let span = u.first_span();
        if let syn::UnOp::Deref(_) = u.op {
            if let Some(e) = self.view_deref(&u.expr) {
                return e;
            }
        }
        let inner = self.expr(&u.expr);
        match u.op {
            syn::UnOp::Deref(_) => self.deref(inner, span),
            syn::UnOp::Neg(_) if matches!(self.peel_refs(&inner.ty), Ty::Struct(_) | Ty::Named(_)) => self.user_operator("Neg", inner, &u.expr, None, span, span),
            syn::UnOp::Neg(_) => {
                let inner = self.auto_deref_value(inner);
                let t = self.shallow(&inner.ty);
                let ok = matches!(t, Ty::Error | Ty::Var(_) | Ty::Vector { elem: Scalar::F16 | Scalar::BF16, lanes: 2 }) || matches!(t, Ty::Scalar(s) if s.is_signed() || s.is_float());
                if !ok {
                    return self.error(span, format!("cannot negate a value of type `{}`", self.infer.resolve(&t)));
                }
                let ty = inner.ty.clone();
                Expr { kind: ExprKind::Unary(UnOp::Neg, Box::new(inner)), ty, span }
            }
            syn::UnOp::Not(_) => {
                let inner = self.auto_deref_value(inner);
                let t = self.shallow(&inner.ty);
                if !(matches!(t, Ty::Error | Ty::Var(_)) || t.is_integer() || t.is_bool()) {
                    return self.error(span, format!("`!` applies to integers and `bool`, not `{}`", self.infer.resolve(&t)));
                }
                let ty = inner.ty.clone();
                Expr { kind: ExprKind::Unary(UnOp::Not, Box::new(inner)), ty, span }
            }
            _ => self.error(span, "this operator is not supported in device code"),
        }
    }

    /// `*e`: through a pointer or reference.
    pub fn deref(&mut self, inner: Expr, span: Span) -> Expr {
        if let ExprKind::Local(id) = inner.kind {
            if self.ref_self == Some(id) {
                // `*self` in a `&self`/`&mut self` method: the receiver is held by value.
                return Expr { span, ..inner };
            }
        }
        match self.shallow(&inner.ty) {
            Ty::Ptr { pointee, .. } => {
                let ty = self.describe(&pointee, span);
                Expr { kind: ExprKind::Deref(Box::new(inner)), ty, span }
            }
            Ty::Error => self.error_expr(span),
            Ty::Var(_) => self.error(span, "type annotations needed: the type of this pointer is not known here"),
            t => self.error(span, format!("cannot dereference a value of type `{}`", self.infer.resolve(&t))),
        }
    }

    /// Reads through references (`&T` operands of arithmetic, `&&[T]`), as rustc's operator
    /// impls and auto-deref do.
    pub fn auto_deref_value(&mut self, e: Expr) -> Expr {
        let mut e = e;
        while let Ty::Ptr { reference: true, .. } = self.shallow(&e.ty) {
            let span = e.span;
            e = self.deref(e, span);
        }
        e
    }

    fn binop(op: &syn::BinOp) -> Option<(BinOp, bool)> {
        use syn::BinOp as B;
        Some(match op {
            B::Add(_) => (BinOp::Add, false),
            B::Sub(_) => (BinOp::Sub, false),
            B::Mul(_) => (BinOp::Mul, false),
            B::Div(_) => (BinOp::Div, false),
            B::Rem(_) => (BinOp::Rem, false),
            B::BitAnd(_) => (BinOp::And, false),
            B::BitOr(_) => (BinOp::Or, false),
            B::BitXor(_) => (BinOp::Xor, false),
            B::Shl(_) => (BinOp::Shl, false),
            B::Shr(_) => (BinOp::Shr, false),
            B::Eq(_) => (BinOp::Eq, false),
            B::Ne(_) => (BinOp::Ne, false),
            B::Lt(_) => (BinOp::Lt, false),
            B::Le(_) => (BinOp::Le, false),
            B::Gt(_) => (BinOp::Gt, false),
            B::Ge(_) => (BinOp::Ge, false),
            B::AddAssign(_) => (BinOp::Add, true),
            B::SubAssign(_) => (BinOp::Sub, true),
            B::MulAssign(_) => (BinOp::Mul, true),
            B::DivAssign(_) => (BinOp::Div, true),
            B::RemAssign(_) => (BinOp::Rem, true),
            B::BitAndAssign(_) => (BinOp::And, true),
            B::BitOrAssign(_) => (BinOp::Or, true),
            B::BitXorAssign(_) => (BinOp::Xor, true),
            B::ShlAssign(_) => (BinOp::Shl, true),
            B::ShrAssign(_) => (BinOp::Shr, true),
            _ => return None,
        })
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Expr {
        let span = b.first_span();
        if let syn::BinOp::And(_) | syn::BinOp::Or(_) = b.op {
            let lhs = self.expr(&b.left);
            let rhs = self.expr(&b.right);
            self.expect(lhs.span, &Ty::bool(), &lhs.ty);
            self.expect(rhs.span, &Ty::bool(), &rhs.ty);
            let and = matches!(b.op, syn::BinOp::And(_));
            return Expr { kind: ExprKind::Logic { and, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty: Ty::bool(), span };
        }
        let Some((op, compound)) = Self::binop(&b.op) else {
            return self.error(span, "this operator is not supported in device code");
        };
        let lhs = match strip(&b.left) {
            syn::Expr::Index(ix) if compound => match self.index_place(ix) {
                IndexPlace::Place(place) => place,
                IndexPlace::UserBase(base) => return self.user_index_op_assign(op, base, ix, &b.right, span),
            },
            _ => self.expr(&b.left),
        };
        let lhs = self.enum_value(lhs);
        if matches!(op, BinOp::Eq | BinOp::Ne) && matches!(self.peel_refs(&lhs.ty), Ty::Sum { .. } | Ty::Tuple(_)) {
            return self.compare_parts(op == BinOp::Eq, lhs, &b.right, span);
        }
        if op.is_comparison() && matches!(self.peel_refs(&lhs.ty), Ty::Struct(_) | Ty::Named(_)) {
            let peeled = self.peel_refs(&lhs.ty);
            // A C-like enum compares its discriminants (`operand_types`).
            if let Ty::Struct(d) = self.describe(&peeled, lhs.span) {
                if d.c_enum_repr().is_none() {
                    // `#[derive(PartialEq, PartialOrd)]`: field by field (see `compare`).
                    return self.struct_compare(op, lhs, &b.right, span, b.op.span());
                }
            }
        }
        if let (Some(t), Ty::Struct(_) | Ty::Named(_)) = (super::user_method::op_trait(op, compound), self.peel_refs(&lhs.ty)) {
            // An operator of a `DeviceRepr` type: its `#[device_fn] impl core::ops::..`.
            return self.user_operator(t, lhs, &b.left, Some(&b.right), span, b.op.span());
        }
        let rhs = self.expr(&b.right);
        let rhs = self.enum_value(rhs);
        if let (false, Some(t), Ty::Struct(_) | Ty::Named(_)) = (compound, super::user_method::op_trait(op, false), self.peel_refs(&rhs.ty)) {
            let scalar = match self.peel_refs(&lhs.ty) {
                Ty::Scalar(_) => true,
                Ty::Var(v) => self.infer.kind_of(v) != VarKind::General,
                _ => false,
            };
            if scalar {
                // `2.0 * v`: its `#[device_fn] impl Mul<Vec3> for f32`.
                return self.user_operator_scalar_lhs(t, lhs, rhs, span, b.op.span());
            }
        }
        if compound {
            self.check_place(&lhs, true);
            let rhs = self.auto_deref_value(rhs);
            self.operand_types(op, &lhs, &rhs, span);
            return Expr { kind: ExprKind::OpAssign(op, Box::new(lhs), Box::new(rhs)), ty: Ty::Unit, span };
        }
        let lhs = self.auto_deref_value(lhs);
        let rhs = self.auto_deref_value(rhs);
        let ty = self.operand_types(op, &lhs, &rhs, span);
        Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), ty, span }
    }

    /// Checks the operands of `op` and returns the result type.
    fn operand_types(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, span: Span) -> Ty {
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let (l, r) = (self.shallow(&lhs.ty), self.shallow(&rhs.ty));
            for (t, sp) in [(&l, lhs.span), (&r, rhs.span)] {
                let ok = match t {
                    Ty::Var(v) => self.infer.kind_of(*v) != VarKind::Float,
                    Ty::Error => true,
                    t => t.is_integer(),
                };
                if !ok {
                    self.errors.at(sp, format!("shifts apply to integers, not `{}`", self.infer.resolve(t)));
                }
            }
            return lhs.ty.clone();
        }
        self.expect(rhs.span, &lhs.ty, &rhs.ty);
        let t = self.shallow(&lhs.ty);
        let ok = match (&t, op) {
            (Ty::Error | Ty::Named(_), _) => true,
            (Ty::Var(v), BinOp::And | BinOp::Or | BinOp::Xor) => self.infer.kind_of(*v) != VarKind::Float,
            (Ty::Var(_), _) => true,
            (Ty::Scalar(Scalar::Bool), BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) => true,
            (Ty::Scalar(s), BinOp::And | BinOp::Or | BinOp::Xor) => s.is_integral(),
            (Ty::Scalar(s), _) => *s != Scalar::Bool,
            (Ty::Ptr { .. }, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) => true,
            // Derived `PartialEq` / `PartialOrd` of a C-like enum: its discriminants.
            (t, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) if t.c_enum().is_some() => true,
            // `f16x2` / `bf16x2` lane-wise (`lower::half2`).
            (Ty::Vector { elem: Scalar::F16 | Scalar::BF16, lanes: 2 }, BinOp::Add | BinOp::Sub | BinOp::Mul) => true,
            _ => false,
        };
        if !ok {
            let shown = self.infer.resolve(&t);
            self.errors.at(span, format!("`{op:?}` is not supported on values of type `{shown}` in device code"));
            return Ty::Error;
        }
        if op.is_comparison() {
            Ty::bool()
        } else {
            lhs.ty.clone()
        }
    }

    fn assign(&mut self, a: &syn::ExprAssign) -> Expr {
        let span = a.first_span();
        if let syn::Expr::Infer(_) = &*a.left {
            // `_ = expr;`
            let rhs = self.expr(&a.right);
            return Expr { kind: ExprKind::Block(super::hir::Block { stmts: vec![super::hir::Stmt::Expr(rhs)], tail: None }), ty: Ty::Unit, span };
        }
        if let syn::Expr::Tuple(t) = strip(&a.left) {
            // `(a, b) = (x, y);`: a tuple of places, assigned together. rustc desugars it to
            // `let (l0, l1) = (x, y); a = l0; b = l1;`, so the value is typed first.
            let rhs = self.expr(&a.right);
            let places: Vec<Expr> = t.elems.iter().map(|e| self.expr(e)).collect();
            for p in &places {
                self.check_place(p, true);
            }
            let ty = Ty::Tuple(places.iter().map(|p| p.ty.clone()).collect());
            self.expect(rhs.span, &ty, &rhs.ty);
            let lhs = Expr { kind: ExprKind::Tuple(places), ty, span: a.left.span() };
            return Expr { kind: ExprKind::Assign(Box::new(lhs), Box::new(rhs)), ty: Ty::Unit, span };
        }
        // The place is typed first, as rustc does: `out[q] = q.pow(2)` makes `q` a `usize`
        // (indexing) before its method is looked up.
        let lhs = match strip(&a.left) {
            syn::Expr::Index(ix) => match self.index_place(ix) {
                IndexPlace::Place(place) => place,
                IndexPlace::UserBase(base) => {
                    // `v[i] = x` on a `DeviceRepr` type: its `IndexMut` setter.
                    let index = self.expr(&ix.index);
                    let value = self.expr(&a.right);
                    return self.user_index_set(base, &ix.expr, index, value, span, ix.bracket_token.span.join());
                }
            },
            _ => self.expr(&a.left),
        };
        self.check_place(&lhs, true);
        let rhs = self.expr(&a.right);
        self.expect(rhs.span, &lhs.ty, &rhs.ty);
        Expr { kind: ExprKind::Assign(Box::new(lhs), Box::new(rhs)), ty: Ty::Unit, span }
    }

    /// `base[index]` as a place, or its base when that is a `DeviceRepr` type (indexed
    /// through its `Index`/`IndexMut` impls by the caller).
    fn index_place(&mut self, ix: &syn::ExprIndex) -> IndexPlace {
        if let syn::Expr::Range(_) = strip(&ix.index) {
            return IndexPlace::Place(self.index(ix));
        }
        let base = self.expr(&ix.expr);
        if matches!(self.peel_refs(&base.ty), Ty::Struct(_) | Ty::Named(_)) {
            return IndexPlace::UserBase(base);
        }
        let index = self.expr(&ix.index);
        IndexPlace::Place(self.index_of(base, index, true, ix.span()))
    }

    /// Whether `e` is a place that can be assigned (`write`) or read.
    pub fn check_place(&mut self, e: &Expr, write: bool) -> bool {
        match &e.kind {
            ExprKind::Local(id) => {
                if write && !self.local(*id).mutable {
                    let name = self.local(*id).name.clone();
                    self.errors.at(e.span, format!("cannot assign twice to immutable variable `{name}`; declare it `let mut {name}`"));
                }
                true
            }
            ExprKind::Field(base, _) => self.check_place(base, write),
            ExprKind::Index { base, .. } => match self.shallow(&base.ty) {
                Ty::Slice { .. } | Ty::Shared { .. } => true,
                _ => self.check_place(base, write),
            },
            ExprKind::Deref(_) => true,
            ExprKind::Tuple(xs) => xs.iter().all(|x| self.check_place(x, write)),
            ExprKind::Const(_) if write => !self.static_write_error(e),
            _ if matches!(e.ty, Ty::Error) => true,
            _ => {
                self.errors.at(e.span, "this expression is not a place that can be assigned");
                false
            }
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let span = c.first_span();
        let to = self.resolve_type(&c.ty, Position::Body);
        // A constant of unknown type cast to `T`: rustc evaluates the cast.
        if let syn::Expr::Path(p) = strip(&c.expr) {
            if p.path.segments.len() > 1 || self.lookup(&p.path.segments[0].ident.to_string()).is_none() {
                if let Some(e) = self.const_cast(p, &to, span) {
                    return e;
                }
            }
        }
        let inner = self.expr(&c.expr);
        let inner = self.auto_deref_value(inner);
        let inner = self.enum_value(inner);
        let from = self.shallow(&inner.ty);
        let ok = match (&from, &to) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Var(v), Ty::Scalar(s)) => {
                // An unsuffixed literal cast to a float stays an integer (defaulted to i32).
                let _ = v;
                *s != Scalar::Bool
            }
            (Ty::Var(_), Ty::Ptr { .. }) => true,
            (Ty::Scalar(a), Ty::Scalar(b)) => {
                let half = |s: &Scalar| matches!(s, Scalar::F16 | Scalar::BF16);
                *b != Scalar::Bool && !half(a) && !half(b)
            }
            (Ty::Ptr { pointee: p, .. }, Ty::Ptr { pointee: q, .. }) => {
                let (p, q) = (self.infer.resolve(p), self.infer.resolve(q));
                if !same_pointee(&p, &q) {
                    self.errors.at(span, format!("casting `*{p}` to `*{q}` reinterprets memory and is not supported in device code; read the value and convert it with `as`, or use `to_bits`/`from_bits` for floats"));
                    return self.error_expr(span);
                }
                true
            }
            (Ty::Ptr { .. }, Ty::Scalar(Scalar::U64 | Scalar::I64)) => true,
            // A C-like enum's discriminant, converted as Rust converts its integer.
            (f, t) if f.c_enum().is_some() => t.is_integer(),
            (Ty::Scalar(Scalar::U64 | Scalar::I64), Ty::Ptr { .. }) => true,
            (Ty::Slice { .. }, Ty::Ptr { .. }) => false,
            _ => false,
        };
        if !ok {
            let (f, t) = (self.infer.resolve(&from), self.infer.resolve(&to));
            let hint = if matches!(f, Ty::Scalar(Scalar::F16 | Scalar::BF16)) || matches!(t, Ty::Scalar(Scalar::F16 | Scalar::BF16)) {
                "; convert 16-bit floats with `f16::to_f32` / `f16::from_f32`"
            } else {
                ""
            };
            return self.error(span, format!("casting `{f}` as `{t}` is not supported in device code{hint}"));
        }
        Expr { kind: ExprKind::Cast(Box::new(inner)), ty: to, span }
    }

    fn field(&mut self, f: &syn::ExprField) -> Expr {
        let span = f.first_span();
        let base = self.expr(&f.base);
        self.field_of(base, &f.member, span)
    }

    pub fn field_of(&mut self, base: Expr, member: &syn::Member, span: Span) -> Expr {
        let base = self.auto_deref_value(base);
        let t = self.describe(&base.ty, span);
        let name = match member {
            syn::Member::Named(i) => {
                let s = i.to_string();
                s.strip_prefix("r#").unwrap_or(&s).to_owned()
            }
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        match &t {
            Ty::Struct(def) => match def.field(&name) {
                Some(i) => {
                    if def.kind == StructKind::Union && self.in_unsafe == 0 {
                        // rustc reports it too; reading a union field is `unsafe`.
                    }
                    let ty = def.fields[i].ty.clone();
                    Expr { kind: ExprKind::Field(Box::new(base), i), ty, span }
                }
                None => self.error(span, format!("`{}` has no field `{name}`", def.name)),
            },
            Ty::Tuple(ts) => match name.parse::<usize>().ok().filter(|i| *i < ts.len()) {
                Some(i) => {
                    let ty = ts[i].clone();
                    Expr { kind: ExprKind::Field(Box::new(base), i), ty, span }
                }
                None => self.error(span, format!("this tuple has no field `{name}`")),
            },
            Ty::Vector { elem, lanes } => match VECTOR_LANES.iter().take(*lanes as usize).position(|l| *l == name) {
                Some(i) => Expr { kind: ExprKind::Field(Box::new(base), i), ty: Ty::Scalar(*elem), span },
                None => self.error(span, format!("this vector has no lane `{name}`")),
            },
            Ty::Error => self.error_expr(span),
            Ty::Var(_) => self.error(span, "type annotations needed: the type of this value is not known here; annotate the binding"),
            other => self.error(span, format!("`{}` has no fields", self.infer.resolve(other))),
        }
    }

    fn index(&mut self, i: &syn::ExprIndex) -> Expr {
        let span = i.first_span();
        if let syn::Expr::Range(_) = strip(&i.index) {
            return self.error(span, "a range index makes a sub-slice: write `&s[a..b]`");
        }
        let base = self.expr(&i.expr);
        if matches!(self.peel_refs(&base.ty), Ty::Struct(_) | Ty::Named(_)) {
            // `v[i]` on a `DeviceRepr` type: its `#[device_fn] impl Index`.
            return self.user_operator("Index", base, &i.expr, Some(&i.index), span, i.bracket_token.span.join());
        }
        let index = self.expr(&i.index);
        self.index_of(base, index, true, span)
    }

    pub fn index_of(&mut self, base: Expr, index: Expr, checked: bool, span: Span) -> Expr {
        let base = self.auto_deref_value(base);
        let base = self.table_base(base);
        self.expect(index.span, &Ty::usize(), &index.ty);
        let elem = match self.shallow(&base.ty) {
            Ty::Slice { elem, .. } | Ty::Shared { elem, .. } => elem,
            Ty::Array { elem, .. } => {
                let unrolled = match index.kind {
                    ExprKind::Local(v) => match self.unroll_candidates.get_mut(&v) {
                        Some(used) => {
                            *used = true;
                            true
                        }
                        None => false,
                    },
                    _ => false,
                };
                if !matches!(index.kind, ExprKind::Int(_)) && !unrolled {
                    if let Some(local) = root_local(&base) {
                        self.mark_dynamic_index(local);
                    }
                }
                elem
            }
            Ty::Error => return self.error_expr(span),
            Ty::Ptr { .. } => return self.error(span, "raw pointers cannot be indexed; write `*p.add(i)` (or take a slice `&[T]`)"),
            Ty::Var(_) => return self.error(span, "type annotations needed: the type of the indexed value is not known here"),
            t => return self.error(span, format!("cannot index a value of type `{}`", self.infer.resolve(&t))),
        };
        let ty = self.describe(&elem, span);
        Expr { kind: ExprKind::Index { base: Box::new(base), index: Box::new(index), checked }, ty, span }
    }

    /// `&e`, `&mut e`, `&raw const e`: a sub-slice for `&s[a..b]`, else the address of a place
    /// in memory.
    fn reference(&mut self, inner: &syn::Expr, span: Span) -> Expr {
        if let syn::Expr::Index(ix) = strip(inner) {
            if let syn::Expr::Range(r) = strip(&ix.index) {
                let base = self.expr(&ix.expr);
                let base = self.auto_deref_value(base);
                let elem = match self.shallow(&base.ty) {
                    Ty::Slice { elem, .. } => elem,
                    Ty::Error => return self.error_expr(span),
                    t => return self.error(span, format!("sub-slices are supported on slices, not on `{}`", self.infer.resolve(&t))),
                };
                let bound = |c: &mut Self, e: &Option<Box<syn::Expr>>| {
                    e.as_ref().map(|e| {
                        let x = c.expr(e);
                        c.expect(x.span, &Ty::usize(), &x.ty);
                        Box::new(x)
                    })
                };
                let start = bound(self, &r.start);
                let end = bound(self, &r.end);
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                let mutable = matches!(self.shallow(&base.ty), Ty::Slice { mutable: true, .. });
                return Expr {
                    kind: ExprKind::SubSlice { base: Box::new(base), start, end, inclusive },
                    ty: Ty::Slice { mutable, elem },
                    span,
                };
            }
        }
        let place = self.expr(inner);
        if matches!(place.ty, Ty::Error) {
            return place;
        }
        if !is_memory_place(&place, &self.infer) {
            return self.local_address(place, true, span);
        }
        let ty = Ty::Ptr { mutable: true, reference: true, pointee: Rc::new(place.ty.clone()) };
        Expr { kind: ExprKind::AddrOf(Box::new(place)), ty, span }
    }

    fn array_lit(&mut self, a: &syn::ExprArray) -> Expr {
        let span = a.first_span();
        let elem = self.var(VarKind::General);
        let mut elems = Vec::new();
        for e in &a.elems {
            let x = self.expr(e);
            self.expect(x.span, &elem, &x.ty);
            elems.push(x);
        }
        let ty = Ty::Array { elem: Rc::new(elem), len: Len::Known(elems.len() as u64) };
        Expr { kind: ExprKind::Array(elems), ty, span }
    }

    fn repeat(&mut self, r: &syn::ExprRepeat) -> Expr {
        let span = r.first_span();
        let x = self.expr(&r.expr);
        let len = self.array_len(&r.len);
        let ty = Ty::Array { elem: Rc::new(x.ty.clone()), len: len.clone() };
        Expr { kind: ExprKind::Repeat(Box::new(x), len), ty, span }
    }

    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Expr {
        let span = s.first_span();
        if s.qself.is_some() {
            return self.error(span, "qualified paths are not supported in struct literals; name the struct");
        }
        if let Some(e) = self.generic_struct_lit(s) {
            return e;
        }
        if let Some(e) = self.data_variant_lit(s) {
            return e;
        }
        let path = s.path.to_token_stream();
        let named = Ty::Named(Rc::new(super::ty::NamedRef { key: crate::link::key(&path), path }));
        let def = match self.describe(&named, s.path.span()) {
            Ty::Struct(d) => d,
            _ => {
                // Check the field expressions anyway (for their own errors and fetches).
                for f in &s.fields {
                    self.expr(&f.expr);
                }
                return self.error_expr(span);
            }
        };
        let mut fields = Vec::new();
        for f in &s.fields {
            let name = match &f.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let x = self.expr(&f.expr);
            match def.field(&name) {
                Some(i) => {
                    self.expect(x.span, &def.fields[i].ty, &x.ty);
                    fields.push((i, x));
                }
                None => {
                    self.errors.at(f.member.span(), format!("`{}` has no field `{name}`", def.name));
                }
            }
        }
        let base = s.rest.as_ref().map(|r| {
            let b = self.expr(r);
            self.expect(b.span, &Ty::Struct(def.clone()), &b.ty);
            Box::new(b)
        });
        Expr { kind: ExprKind::Struct { def: def.clone(), fields, base }, ty: Ty::Struct(def), span }
    }

    fn macro_expr(&mut self, m: &syn::Macro) -> Expr {
        let span = m.first_span();
        let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        match name.as_str() {
            "ptx_asm" => self.asm(m),
            n if n.starts_with("__ptx_") => self.natural_macro(n, m),
            "println" | "print" | "eprintln" | "eprint" | "format" | "write" | "writeln" | "dbg" => self.error(span, unsupported::FORMAT),
            "vec" => self.error(span, unsupported::HEAP),
            "printf" => self.printf(m),
            "matches" => self.matches_macro(m),
            "assert" | "assert_eq" | "assert_ne" | "debug_assert" | "debug_assert_eq" | "debug_assert_ne" | "panic" | "unreachable" | "todo" | "unimplemented" => self.panic_macro(&name, m),
            _ => self.error(span, format!("the macro `{name}!` is not supported in device code; only `ptx_asm!`, `printf!`, `matches!` and the assertion and panic macros are")),
        }
    }
}

/// Strips parentheses and invisible groups.
/// What an indexed place on the left of an assignment is.
enum IndexPlace {
    Place(Expr),
    /// The base, a `DeviceRepr` type.
    UserBase(Expr),
}

pub fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// The local at the root of a place made of fields and array indexing.
pub fn root_local(e: &Expr) -> Option<super::hir::LocalId> {
    match &e.kind {
        ExprKind::Local(id) => Some(*id),
        ExprKind::Field(b, _) => root_local(b),
        ExprKind::Index { base, .. } if matches!(base.ty, Ty::Array { .. }) => root_local(base),
        _ => None,
    }
}

/// A place in memory (not in registers): through a pointer, a slice or shared memory.
fn is_memory_place(e: &Expr, infer: &super::infer::Infer) -> bool {
    match &e.kind {
        ExprKind::Deref(_) => true,
        ExprKind::Index { base, .. } => matches!(infer.shallow(&base.ty), Ty::Slice { .. } | Ty::Shared { .. }) || is_memory_place(base, infer),
        ExprKind::Field(b, _) => is_memory_place(b, infer),
        _ => false,
    }
}

fn same_pointee(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Scalar(x), Ty::Scalar(y)) => x == y,
        (Ty::Struct(x), Ty::Struct(y)) => x.name == y.name,
        (Ty::Named(x), Ty::Named(y)) => x.key == y.key,
        (Ty::Named(_), _) | (_, Ty::Named(_)) => true,
        (Ty::Vector { elem: e, lanes: l }, Ty::Vector { elem: f, lanes: m }) => e == f && l == m,
        (Ty::Ptr { .. }, Ty::Ptr { .. }) => true,
        (Ty::Array { elem: e, .. }, Ty::Array { elem: f, .. }) => same_pointee(e, f),
        (Ty::Error, _) | (_, Ty::Error) => true,
        _ => false,
    }
}
