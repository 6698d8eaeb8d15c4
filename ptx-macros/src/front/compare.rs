//! `==`, `!=`, `<`, `<=`, `>`, `>=` on `DeviceRepr` structs with `#[derive(PartialEq)]` (and
//! `#[derive(PartialOrd)]`): compared field by field as the derives compare, `==` when every
//! field is equal, `<` lexicographically (the first field that is not equal decides; a field
//! that is unordered, a NaN, makes the whole comparison false, as `partial_cmp` is `None`).
//! Nested structs and arrays are compared the same way, element by element.
//!
//! A derive cannot see the other derives of its type, so the body cannot know from the type's
//! replay whether `PartialEq` is derived; the generated module checks it instead, where rustc
//! knows: a constant of the type is used as a pattern, which rustc accepts only when
//! `PartialEq` is derived (structural equality) and refuses for a hand-written impl, whose
//! `eq` the device code would otherwise not run ("`T` must be annotated with
//! `#[derive(PartialEq)]`"). A hand-written `#[device_fn] impl PartialEq` is called by name
//! (`a.eq(&b)`), as any method.

use super::hir::{BinOp, Block, Expr, ExprKind, LetPat, Stmt};
use super::ty::{Len, Ty};
use super::Checker;
use proc_macro2::Span;
use quote::quote_spanned;

/// A constant of `def`'s type for the proof that its comparison is derived: zeroed bytes, or
/// for an enum with fields (whose discriminants may leave out `0`), a variant, the first unit
/// one or the first with its fields zeroed.
fn proof_value(def: &super::ty::StructDef, t: &syn::Type, span: Span) -> proc_macro2::TokenStream {
    let zeroed = |t: proc_macro2::TokenStream| quote_spanned!(span=> unsafe { ::core::mem::MaybeUninit::<#t>::zeroed().assume_init() });
    if def.kind != super::ty::StructKind::Enum {
        return zeroed(quote::quote!(#t));
    }
    let variants: Vec<(&str, &super::ty::StructDef)> = def.fields[1..]
        .iter()
        .filter_map(|f| match &f.ty {
            Ty::Struct(v) => Some((f.name.as_str(), &**v)),
            _ => None,
        })
        .collect();
    let pick = variants.iter().find(|(_, v)| v.fields.is_empty()).or(variants.first());
    let Some((name, v)) = pick else { return zeroed(quote::quote!(#t)) };
    let name = quote::format_ident!("{}", name, span = span);
    let fields = v.fields.iter().map(|_| zeroed(quote::quote!(_)));
    match v.kind {
        _ if v.fields.is_empty() => quote_spanned!(span=> <#t>::#name),
        super::ty::StructKind::Named => {
            let names = v.fields.iter().map(|f| quote::format_ident!("{}", f.name, span = span));
            quote_spanned!(span=> <#t>::#name { #(#names: #fields),* })
        }
        _ => quote_spanned!(span=> <#t>::#name(#(#fields),*)),
    }
}

impl Checker<'_> {
    /// `lhs op rhs` where `lhs` is a struct and `op` a comparison.
    pub fn struct_compare(&mut self, op: BinOp, lhs: Expr, rhs: &syn::Expr, span: Span, op_span: Span) -> Expr {
        let lhs = self.auto_deref_value(lhs);
        let rhs = self.expr(rhs);
        let rhs = self.auto_deref_value(rhs);
        let ty = self.describe(&self.peel_refs(&lhs.ty), lhs.span);
        let Ty::Struct(def) = &ty else { return self.error_expr(span) };
        self.expect(rhs.span, &ty, &rhs.ty);
        if def.kind == super::ty::StructKind::Union {
            return self.error(op_span, format!("`{}` is a union: compare its fields through a pointer", def.name));
        }
        if def.kind == super::ty::StructKind::Enum && !matches!(op, BinOp::Eq | BinOp::Ne) {
            return self.error(op_span, format!("`{}` is an enum with fields: device code compares such enums with `==` and `!=` only; `match` on them to order them", def.name));
        }
        // rustc's proof that the comparison is the derived one (see the module's comment).
        if let Ok(t) = syn::parse2::<syn::Type>(def.path.clone()) {
            let t = crate::syntax::rewrite::for_inner_module(&t);
            let ord = (!matches!(op, BinOp::Eq | BinOp::Ne)).then(|| quote_spanned!(op_span=> fn __partial_ord<T: ::core::cmp::PartialOrd>() {} __partial_ord::<#t>();));
            let value = proof_value(def, &t, op_span);
            self.checks.push(quote_spanned! {op_span=>
                const _: () = {
                    #[allow(dead_code, unused_unsafe)]
                    fn __derived(v: #t) -> bool {
                        // SAFETY: never evaluated at run time; zeroed bytes are valid for every
                        // `DeviceRepr` field type but enums without a `0` variant.
                        const C: #t = #value;
                        #ord
                        matches!(v, C)
                    }
                };
            });
        }
        self.push_scope();
        let a = self.declare("__ptx_cmp_lhs", ty.clone(), false, span);
        let b = self.declare("__ptx_cmp_rhs", ty.clone(), false, span);
        self.pop_scope();
        let local = |id, ty: &Ty| Expr { kind: ExprKind::Local(id), ty: ty.clone(), span };
        let (l, r) = (local(a, &ty), local(b, &ty));
        let eq = self.all_equal(&l, &r, span);
        let cmp = match op {
            BinOp::Eq => eq,
            BinOp::Ne => not(eq, span),
            BinOp::Lt | BinOp::Gt => self.ordered(op, &l, &r, span),
            BinOp::Le | BinOp::Ge => {
                let strict = if op == BinOp::Le { BinOp::Lt } else { BinOp::Gt };
                let o = self.ordered(strict, &l, &r, span);
                logic(false, o, eq, span)
            }
            _ => return self.error(op_span, "internal: not a comparison"),
        };
        let stmts = vec![Stmt::Let { pat: LetPat::Bind(a), init: Some(lhs), span }, Stmt::Let { pat: LetPat::Bind(b), init: Some(rhs), span }];
        Expr { kind: ExprKind::Block(Block { stmts, tail: Some(Box::new(cmp)) }), ty: Ty::bool(), span }
    }

    /// The parts of a value compared one by one: a struct's fields, an array's elements; a
    /// scalar, pointer or vector is one part (`None`).
    fn parts(&mut self, x: &Expr, span: Span) -> Option<Vec<Expr>> {
        let ty = self.describe(&x.ty, span);
        match ty {
            // A C-like enum is one part: its discriminant.
            Ty::Struct(def) if def.c_enum_repr().is_none() => Some(
                def.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| Expr { kind: ExprKind::Field(Box::new(clone_place(x)), i), ty: f.ty.clone(), span })
                    .collect(),
            ),
            Ty::Array { elem, len: Len::Known(n) } => Some(
                (0..n)
                    .map(|i| {
                        let index = Expr { kind: ExprKind::Int(i as u128), ty: Ty::Scalar(ptx_abi::Scalar::U64), span };
                        Expr { kind: ExprKind::Index { base: Box::new(clone_place(x)), index: Box::new(index), checked: false }, ty: (*elem).clone(), span }
                    })
                    .collect(),
            ),
            Ty::Array { .. } => {
                self.errors.at(span, "an array whose length is an outside constant cannot be compared as a whole in device code: compare its elements in a `for` loop");
                Some(Vec::new())
            }
            _ => None,
        }
    }

    pub(super) fn all_equal(&mut self, l: &Expr, r: &Expr, span: Span) -> Expr {
        if let Some(e) = self.enum_equal(l, r, span) {
            return e;
        }
        match (self.parts(l, span), self.parts(r, span)) {
            (Some(ls), Some(rs)) => {
                let mut acc: Option<Expr> = None;
                for (a, b) in ls.iter().zip(&rs) {
                    let e = self.all_equal(a, b, span);
                    acc = Some(match acc {
                        None => e,
                        Some(prev) => logic(true, prev, e, span),
                    });
                }
                acc.unwrap_or(Expr { kind: ExprKind::Bool(true), ty: Ty::bool(), span })
            }
            _ => self.scalar_cmp(BinOp::Eq, l, r, span),
        }
    }

    /// `l < r` (or `>`) lexicographically: `l0 < r0 || (l0 == r0 && (l1 < r1 || ...))`.
    fn ordered(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Expr {
        match (self.parts(l, span), self.parts(r, span)) {
            (Some(ls), Some(rs)) => {
                let mut acc: Option<Expr> = None;
                for (a, b) in ls.iter().zip(&rs).rev() {
                    let strict = self.ordered(op, a, b, span);
                    acc = Some(match acc {
                        None => strict,
                        Some(rest) => {
                            let eq = self.all_equal(a, b, span);
                            logic(false, strict, logic(true, eq, rest, span), span)
                        }
                    });
                }
                acc.unwrap_or(Expr { kind: ExprKind::Bool(false), ty: Ty::bool(), span })
            }
            _ => self.scalar_cmp(op, l, r, span),
        }
    }

    fn scalar_cmp(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Expr {
        let t = self.shallow(&l.ty);
        let ok = match &t {
            Ty::Scalar(s) => !matches!(s, ptx_abi::Scalar::F16 | ptx_abi::Scalar::BF16),
            Ty::Ptr { .. } | Ty::Error => true,
            // A C-like enum: its discriminant.
            t => t.c_enum().is_some(),
        };
        if !ok {
            let shown = self.infer.resolve(&t);
            self.errors.at(span, format!("a field of type `{shown}` is not compared in device code: compare the fields you need (16-bit floats after `to_f32()`)"));
        }
        Expr { kind: ExprKind::Binary(op, Box::new(clone_place(l)), Box::new(clone_place(r))), ty: Ty::bool(), span }
    }
}

/// A copy of a place made of locals, fields and constant indexes.
pub(super) fn clone_place(e: &Expr) -> Expr {
    let kind = match &e.kind {
        ExprKind::Local(id) => ExprKind::Local(*id),
        ExprKind::Field(b, i) => ExprKind::Field(Box::new(clone_place(b)), *i),
        ExprKind::Index { base, index, checked } => ExprKind::Index { base: Box::new(clone_place(base)), index: Box::new(clone_place(index)), checked: *checked },
        ExprKind::Int(v) => ExprKind::Int(*v),
        _ => ExprKind::Unit,
    };
    Expr { kind, ty: e.ty.clone(), span: e.span }
}

fn logic(and: bool, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr { kind: ExprKind::Logic { and, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty: Ty::bool(), span }
}

fn not(e: Expr, span: Span) -> Expr {
    Expr { kind: ExprKind::Unary(super::hir::UnOp::Not, Box::new(e)), ty: Ty::bool(), span }
}
