//! User-trait functions of primitives, reached through a generic bound.
//!
//! `#[device_fn] impl Float for f32` hangs its functions on a hidden struct next to the impl
//! (`__ptx_Float_for_f32`, see `expand::method`); a primitive has no path a replay could be
//! found by, so they are found through the trait: an instance of `fn norm<T: Float>` with
//! `T = f32` keeps the bound as `where f32: algo::norm::Float` (see `generic`), and a call
//! `x.sq()` or `f32::zero()` in it looks up `algo::norm::__ptx_Float_for_f32__sq__…` (the impl
//! sits in the trait's module). Methods of the trait are looked up before the primitive's own
//! (name them apart).

use super::hir::{Callee, Expr, ExprKind};
use super::ty::{StructDef, StructKind, Ty};
use super::Checker;
use crate::link::info::Recv;
use proc_macro2::Span;
use ptx_abi::Scalar;
use quote::quote;
use std::rc::Rc;

/// Traits of `core` a bound can name that have no device functions to look up.
const CORE: [&str; 25] = [
    "Copy", "Clone", "Sized", "Send", "Sync", "Default", "Debug", "PartialEq", "PartialOrd", "Eq", "Ord", "Add", "Sub", "Mul", "Div", "Rem", "Neg",
    "AddAssign", "SubAssign", "MulAssign", "DivAssign", "RemAssign", "From", "Into", "Display",
];

/// The `where prim: Trait` predicates of an instance's signature whose trait is a user trait.
pub fn prim_bounds(sig: &syn::Signature) -> Vec<(Scalar, syn::Path)> {
    let mut out = Vec::new();
    let Some(w) = &sig.generics.where_clause else { return out };
    for p in &w.predicates {
        let syn::WherePredicate::Type(pt) = p else { continue };
        let syn::Type::Path(tp) = &pt.bounded_ty else { continue };
        let Some(s) = tp.path.get_ident().and_then(|i| Scalar::from_rust_name(&i.to_string())) else { continue };
        for b in &pt.bounds {
            if let syn::TypeParamBound::Trait(t) = b {
                if t.path.segments.last().is_some_and(|l| !CORE.contains(&l.ident.to_string().as_str())) {
                    out.push((s, t.path.clone()));
                }
            }
        }
    }
    out
}

/// Whether a bound names a user trait (one whose functions may be looked up).
pub fn is_user_trait(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|l| is_user_trait_name(&l.ident.to_string()))
}

/// Whether a trait named `name` (its last segment) may be a user trait, not one of `core`'s.
pub fn is_user_trait_name(name: &str) -> bool {
    !CORE.contains(&name)
}

impl Checker<'_> {
    /// The hidden struct of `impl Trait for s` for the first user-trait bound on `s`.
    fn prim_def(&self, s: Scalar) -> Option<Rc<StructDef>> {
        let (_, path) = self.prim_bounds.iter().find(|(t, _)| *t == s)?;
        let mut module = path.clone();
        let last = module.segments.pop()?.into_value();
        let prim = format!("{s:?}").to_lowercase();
        let anchor = crate::expand::trait_anchor(&last.ident.to_string(), &prim);
        let lead = module.leading_colon;
        let segs = module.segments.iter();
        let path = quote!(#lead #(#segs ::)* #anchor);
        Some(Rc::new(StructDef { name: anchor.to_string(), path, kind: StructKind::Named, fields: Vec::new(), layout: ptx_abi::Layout::new(0, 1), generic: None, tags: Vec::new() }))
    }

    /// The primitive bound by the trait at `path` here, if one is.
    pub fn prim_bound_by_trait(&self, path: &proc_macro2::TokenStream) -> Option<Scalar> {
        let k = crate::link::key(path);
        let mut it = self.prim_bounds.iter().filter(|(_, p)| crate::link::key(&quote!(#p)) == k);
        let (s, _) = it.next()?;
        // `T: Float, U: Float` with two primitives: the trait's path alone does not say which.
        it.next().is_none().then_some(*s)
    }

    /// Whether `s` has a user-trait bound here.
    pub fn has_prim_trait(&self, s: Scalar) -> bool {
        self.prim_bounds.iter().any(|(t, _)| *t == s)
    }

    /// `recv.name(args)` (`recv` a primitive) or, with `recv` `None`, `prim::name(args)`:
    /// a function of the bound trait's impl for the primitive.
    pub fn prim_trait_call(&mut self, s: Scalar, recv: Option<Expr>, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        // A generic trait's bound (`f32: Scale<f32>`): see `prim_generic_trait`.
        let recv = match self.prim_bound_generic_call(s, recv, name, args, span, name_span) {
            Ok(e) => return e,
            Err(recv) => recv,
        };
        let Some(def) = self.prim_def(s) else { return self.error(name_span, format!("no method `{name}` on `{}`", Ty::Scalar(s))) };
        let Some(info) = self.method_info(&def, name, name_span) else {
            for a in args {
                self.expr(a);
            }
            return self.error_expr(span);
        };
        let (recv, args) = match (recv, info.recv) {
            (Some(r), Recv::Value | Recv::Ref) => (Some(r), args),
            (None, Recv::Value | Recv::Ref) => match args.split_first() {
                Some((first, rest)) => (Some(self.expr(first)), rest),
                None => return self.error(name_span, format!("`{name}` takes the receiver as its first argument")),
            },
            (None, Recv::Assoc) => (None, args),
            (Some(_), Recv::Assoc) => return self.error(name_span, format!("`{name}` is an associated function: call it as `{}::{name}(..)`", Ty::Scalar(s))),
            (_, Recv::Mut) => return self.error(name_span, format!("`&mut self` methods of a trait for a primitive are not supported in device code: return the new value (`fn {name}(self) -> Self`)")),
        };
        if args.len() != info.params.len() {
            return self.error(name_span, format!("`{name}` takes {} argument(s) but {} were given", info.params.len(), args.len()));
        }
        let mut all = Vec::new();
        if let Some(r) = recv {
            let r = self.auto_deref_value(r);
            self.expect(r.span, &Ty::Scalar(s), &r.ty);
            all.push(r);
        }
        for (a, t) in args.iter().zip(&info.params) {
            let pt = self.method_type(t, &def);
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, &pt, &x.ty);
            all.push(x);
        }
        let ret = match &info.ret {
            Some(t) => self.method_type(t, &def),
            None => Ty::Unit,
        };
        let callee = Rc::new(Callee { path: def.path.clone(), assoc: Some(info.name.clone()), ret: ret.clone() });
        Expr { kind: ExprKind::Call { callee, args: all }, ty: ret, span }
    }
}
