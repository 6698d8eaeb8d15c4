//! `T::from(x)` where `T` is a `DeviceRepr` type with a `#[device_fn] impl From<X> for T`
//! (`expand::from_impl`): a call of the impl's `from`, found by the key of `x`'s type.
//!
//! `?` on a `Result` whose error type differs from the function's converts it as Rust does,
//! `Err(e) => return Err(From::from(e))` (`sum.rs`): between numbers through the numeric `From`
//! (`conv.rs`), into a `DeviceRepr` type through its `From` impl here, into a primitive through
//! the source's `impl From<X> for u32` (`X::into_u32`, found next to `X` by the target's name),
//! so C-like enums convert both ways (`u32::from(op)`, `Op::from(3u8)`). `T::try_from(x)` calls
//! a `#[device_fn] impl TryFrom<X> for T` the same way, keyed `TryFrom_<X>`.

use super::hir::{Expr, ExprKind};
use super::ty::{StructDef, Ty};
use super::Checker;
use proc_macro2::Span;
use std::rc::Rc;

/// How `?` passes on the error of a `Result` (see `sum::try_expr`).
pub enum TryError {
    /// The same type: `return Err(e)`.
    Same,
    /// Numbers of two types: `return Err(e.into())`.
    Number,
    /// Into a `DeviceRepr` type: `return Err(T::from(e))`, `T` named by this path.
    From(proc_macro2::TokenStream),
}

impl<'a> Checker<'a> {
    /// `T::from(x)` for a `DeviceRepr` type `T`.
    pub fn user_from(&mut self, def: Rc<StructDef>, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        self.user_conversion(def, args, false, span, name_span)
    }

    /// `T::from(x)` (`try_from`: `T::try_from(x)`) for a `DeviceRepr` type `T`.
    pub fn user_conversion(&mut self, def: Rc<StructDef>, args: &[&syn::Expr], try_from: bool, span: Span, name_span: Span) -> Expr {
        let method = if try_from { "try_from" } else { "from" };
        let [a] = args else { return self.error(name_span, format!("`{method}` takes one argument")) };
        let x = self.expr(a);
        let x = self.auto_deref_value(x);
        self.from_value(def, x, try_from, span, name_span)
    }

    /// The conversion of the checked value `x` into `T` (`def`) through its impl.
    pub fn from_value(&mut self, def: Rc<StructDef>, x: Expr, try_from: bool, span: Span, name_span: Span) -> Expr {
        let method = if try_from { "try_from" } else { "from" };
        let source = match self.shallow(&x.ty) {
            Ty::Scalar(_) => self.infer.resolve(&x.ty).to_string(),
            Ty::Struct(d) => d.generic.as_ref().map(|g| g.base.clone()).unwrap_or_else(|| d.name.clone()),
            t @ Ty::Named(_) => match self.describe(&t, x.span) {
                Ty::Struct(d) => d.name.clone(),
                _ => return self.error_expr(span),
            },
            Ty::Error => return self.error_expr(span),
            t => {
                let t = self.infer.resolve(&t);
                return self.error(x.span, format!("`{}::{method}` in device code takes a scalar or a `DeviceRepr` value (`impl From<X> for {}`), not `{t}`", def.name, def.name));
            }
        };
        let key = if try_from { crate::expand::try_from_key(&source) } else { crate::expand::from_impl_key(&source) };
        let Some(mut info) = self.method_info(&def, &key, name_span) else { return self.error_expr(span) };
        info.name = key;
        let Some(param) = info.params.first().cloned() else { return self.error(name_span, format!("`{method}` takes one argument")) };
        let pt = self.method_type(&param, &def);
        self.expect(x.span, &pt, &x.ty);
        let ret = match (&info.ret, try_from) {
            (Some(t), true) => self.method_type(t, &def),
            _ => Ty::Struct(def.clone()),
        };
        let callee = Rc::new(super::user_method::method_callee(&def, &info, ret.clone()));
        Expr { kind: ExprKind::Call { callee, args: vec![x] }, ty: ret, span }
    }

    /// `T::from(x)` / `x.into()` into the primitive `to` from a `DeviceRepr` value `x`: a call
    /// of the source's `impl From<X> for T`, which sits with `X` (see `expand::from_impl`).
    pub fn user_into(&mut self, x: Expr, to: Ty, span: Span) -> Expr {
        let Some(def) = self.struct_of(&x.ty, x.span) else { return self.error_expr(span) };
        let target = match self.shallow(&to) {
            Ty::Scalar(s) => s,
            Ty::Struct(t) => return self.from_value(t, x, false, span, span),
            Ty::Error => return self.error_expr(span),
            _ => return self.error(span, format!("the target of this conversion from `{}` is not known here: write it (`u32::from(x)`, `let v: u32 = x.into();`)", def.name)),
        };
        let key = crate::expand::into_key(super::ty::scalar_name(target));
        let Some(mut info) = self.method_info(&def, &key, span) else { return self.error_expr(span) };
        info.name = key;
        let self_ty = Ty::Struct(def.clone());
        self.expect(x.span, &self_ty, &x.ty);
        let ret = Ty::Scalar(target);
        let callee = Rc::new(super::user_method::method_callee(&def, &info, ret.clone()));
        Expr { kind: ExprKind::Call { callee, args: vec![x] }, ty: ret, span }
    }

    /// How `?` on a `Result` of type `inner` returns its error from this function.
    pub fn try_error(&mut self, inner: &Ty) -> TryError {
        let ret = self.ret.clone();
        let err = |c: &mut Self, t: &Ty| match c.shallow(t) {
            Ty::Sum { args, .. } => args.get(1).map(|e| c.shallow(e)),
            _ => None,
        };
        match (err(self, inner), err(self, &ret)) {
            (Some(Ty::Scalar(a)), Some(Ty::Scalar(b))) if a != b => TryError::Number,
            (Some(Ty::Struct(a)), Some(Ty::Struct(b))) if a.name == b.name => TryError::Same,
            (Some(Ty::Scalar(_) | Ty::Struct(_)), Some(Ty::Struct(b))) => TryError::From(b.path.clone()),
            // Into a primitive through the source's `impl From<X> for u32`.
            (Some(Ty::Struct(_)), Some(Ty::Scalar(b))) => {
                let b = quote::format_ident!("{}", super::ty::scalar_name(b));
                TryError::From(quote::quote!(#b))
            }
            _ => TryError::Same,
        }
    }
}
