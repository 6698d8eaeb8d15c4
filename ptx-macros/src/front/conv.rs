//! Lossless numeric conversions (`f64::from(x)`, `let y: u64 = x.into()`) and `matches!`.
//!
//! rustc accepts `From`/`Into` between numeric types only where the conversion is lossless
//! (`u8` → `u32`, `f32` → `f64`, `i16` → `f32`, `bool` → integers), and there it is the same
//! value as `as` gives: the device compiler lowers both as a cast. `matches!(e, pat if guard)`
//! is `match e { pat if guard => true, _ => false }`, as its definition in `core` says.

use super::hir::{Expr, ExprKind};
use super::infer::VarKind;
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use syn::parse::Parser;

impl<'a> Checker<'a> {
    /// `T::from(x)` for a primitive `T`.
    pub fn from_call(&mut self, to: Ty, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Expr {
        let Some(a) = args.first().filter(|_| args.len() == 1) else {
            return self.error(span, "`from` takes one argument");
        };
        let x = self.expr(a);
        let x = self.auto_deref_value(x);
        self.conversion(x, to, span)
    }

    /// `x.into()`: the target type is the one the context gives, as in rustc.
    pub fn into_call(&mut self, recv: Expr, span: Span) -> Expr {
        let recv = self.auto_deref_value(recv);
        let to = self.var(VarKind::General);
        self.conversion(recv, to, span)
    }

    /// `let v: T = x.into();`: the conversion with its target known (`None` for another
    /// initializer).
    pub fn into_let(&mut self, init: &syn::Expr, to: &Ty) -> Option<Expr> {
        let syn::Expr::MethodCall(m) = super::expr::strip(init) else { return None };
        if m.method != "into" || !m.args.is_empty() || m.turbofish.is_some() {
            return None;
        }
        let recv = self.expr(&m.receiver);
        let recv = self.auto_deref_value(recv);
        Some(self.conversion(recv, to.clone(), syn::spanned::Spanned::span(init)))
    }

    fn conversion(&mut self, x: Expr, to: Ty, span: Span) -> Expr {
        match self.shallow(&x.ty) {
            Ty::Scalar(_) | Ty::Var(_) | Ty::Error => {
                self.pending_conversions.push((x.ty.clone(), to.clone(), span));
                Expr { kind: ExprKind::Cast(Box::new(x)), ty: to, span }
            }
            // A `DeviceRepr` value through its `#[device_fn] impl From` (see `from_user`).
            Ty::Struct(_) | Ty::Named(_) => self.user_into(x, to, span),
            t => {
                let t = self.infer.resolve(&t);
                self.error(span, format!("`From`/`Into` in device code convert between numeric types, not from `{t}`; build the value directly"))
            }
        }
    }

    /// A numeric conversion's target, once the types are final, is a number too
    /// (`let (s, c) = x.into()` asks for a tuple, which no `From` of a number gives).
    pub fn check_conversions(&mut self) {
        for (from, to, span) in std::mem::take(&mut self.pending_conversions) {
            match (self.infer.resolve(&from), self.infer.resolve(&to)) {
                (_, Ty::Scalar(_) | Ty::Error) | (Ty::Error, _) => {}
                (f, t) => {
                    self.errors.at(span, format!("`From`/`Into` in device code convert between numeric types, not from `{f}` into `{t}`; build the value directly"));
                }
            }
        }
    }

    /// `matches!(expr, pattern)` / `matches!(expr, pattern if guard)`.
    pub fn matches_macro(&mut self, m: &syn::Macro) -> Expr {
        let span = syn::spanned::Spanned::span(m);
        let parsed = (|input: syn::parse::ParseStream| {
            let e: syn::Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
            let guard = if input.peek(syn::Token![if]) {
                input.parse::<syn::Token![if]>()?;
                Some(input.parse::<syn::Expr>()?)
            } else {
                None
            };
            let _ = input.parse::<Option<syn::Token![,]>>()?;
            Ok((e, pat, guard))
        })
        .parse2(m.tokens.clone());
        let (e, pat, guard) = match parsed {
            Ok(p) => p,
            Err(err) => return self.error(err.span(), format!("write `matches!(value, pattern)`: {err}")),
        };
        let guard = guard.map(|g| quote::quote!(if #g));
        // The value in parentheses: a struct literal (`matches!(S {}, _)`) is no scrutinee
        // otherwise. What still does not parse as a `match` (a pattern only `matches!` takes
        // apart, `..`) is an error, not a panic (fuzz seed 1795980482129614270).
        match syn::parse2::<syn::ExprMatch>(quote::quote_spanned!(span=> match (#e) { #pat #guard => true, _ => false })) {
            Ok(desugared) => self.match_expr(&desugared),
            Err(err) => self.error(span, format!("write `matches!(value, pattern)` with a pattern a `match` arm takes: {err}")),
        }
    }
}
