//! Calls through a `#[device_fn] trait`: `Halve::halve(x)`, `Shape::area(&c)`,
//! `<f32 as Halve>::zero()`, `<Circle as Shape>::area(&c)`.
//!
//! A method call on a primitive (`x.halve()`) names no trait, and the body compiler does not
//! see the `use` that brings it into scope, so outside a generic instance (where the bound
//! names it, see `traits`) such a function is called through the trait's path. The trait's
//! replay says it is a trait (`@trait`); the receiver (or the qualified self type) says which
//! impl: a primitive's is found through the trait's path as in an instance (the hidden struct
//! `__ptx_Halve_for_f32` next to the impl, which sits in the trait's module or is imported
//! with it), a `DeviceRepr` type's is its method.

use super::hir::Expr;
use super::ty::Ty;
use super::{Checker, Position};
use crate::link::info::{GenericFnInfo, Info, Recv};
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use syn::spanned::Spanned;

/// The end of a "no method" error on a primitive, whose name is one of the primitive's own
/// (rustc picks those before a trait's, see `prim_method::is_inherent`): how to call a user
/// trait's method of that name, and that other names take method syntax.
pub fn prim_hint(name: &str, t: &str) -> String {
    format!("`{name}` is a name of `{t}`'s own methods, which rustc picks before a trait's: call a `#[device_fn]` trait's `{name}` through the trait, `Trait::{name}(x, ..)` or `<{t} as Trait>::{name}(..)` (a trait method with another name also takes method syntax, `x.method(..)`, where its impl's module is glob-imported)")
}

impl Checker<'_> {
    /// `f(..)` with a user-trait bound `s: trait_path` in force (the first one found for `s`).
    fn with_prim_trait(&mut self, s: Scalar, trait_path: syn::Path, f: impl FnOnce(&mut Self) -> Expr) -> Expr {
        self.prim_bounds.insert(0, (s, trait_path));
        let e = f(self);
        self.prim_bounds.remove(0);
        e
    }

    /// `Trait::name(recv, args)`: the impl of the receiver's type.
    pub fn trait_path_call(&mut self, trait_path: &TokenStream, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let Ok(tp) = syn::parse2::<syn::Path>(trait_path.clone()) else { return self.error_expr(span) };
        let Some((first, rest)) = args.split_first() else {
            return self.error(name_span, format!("`{name}` has no receiver to pick the impl by: write the implementing type, `<f32 as {}>::{name}(..)`", quote::ToTokens::to_token_stream(&tp)));
        };
        let recv = self.expr(first);
        match self.peel_refs(&recv.ty) {
            // A generic trait (`Scale::scale(x, 2.0f32)`): the impl's names next to it.
            Ty::Scalar(s) => match self.env.get(trait_path).cloned() {
                Some(Info::GenericTrait(g)) => self.prim_generic_call(s, &g, super::prim_generic_trait::module_of(&tp), None, Some(recv), name, rest, span, name_span),
                _ => self.with_prim_trait(s, tp, |c| c.prim_trait_call(s, Some(recv), name, rest, span, name_span)),
            },
            t @ (Ty::Struct(_) | Ty::Named(_)) => {
                let Some(def) = self.struct_of(&t, recv.span) else {
                    for a in rest {
                        self.expr(a);
                    }
                    return self.error_expr(span);
                };
                if self.generic_trait_of(&def, name, name_span).is_some() {
                    return self.user_method(recv, None, name, rest, span, name_span);
                }
                match self.method_info(&def, name, name_span) {
                    Some(info) if info.recv == Recv::Mut => self.error(name_span, format!("call `&mut self` methods with method syntax (`v.{name}(..)`): the receiver is written back to its place")),
                    _ => self.user_method(recv, None, name, rest, span, name_span),
                }
            }
            Ty::Error => {
                for a in rest {
                    self.expr(a);
                }
                self.error_expr(span)
            }
            t => {
                let shown = self.infer.resolve(&t);
                self.error(recv.span, format!("`{shown}` has no device trait impls: call `{name}` on a primitive or a `DeviceRepr` type"))
            }
        }
    }

    /// `Trait::<A>::name(recv, args)` (`written`, whose `bare` path is a generic `#[device_fn]`
    /// trait `g`): the written arguments name the impl, as in `<f32 as Trait<A>>::name(..)`;
    /// the receiver's type is its first argument's.
    #[allow(clippy::too_many_arguments)]
    pub fn turbofish_trait_call(&mut self, written: &syn::Path, bare: &syn::Path, g: &GenericFnInfo, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let Some((first, rest)) = args.split_first() else {
            return self.error(name_span, format!("`{name}` has no receiver to pick the impl by: write the implementing type, `<f32 as {}>::{name}(..)`", quote::ToTokens::to_token_stream(written)));
        };
        let recv = self.expr(first);
        match self.peel_refs(&recv.ty) {
            Ty::Scalar(s) => {
                let module = super::prim_generic_trait::module_of(bare);
                self.prim_generic_call(s, g, module, super::prim_generic_trait::written_args(written).as_ref(), Some(recv), name, rest, span, name_span)
            }
            t @ (Ty::Struct(_) | Ty::Named(_)) => {
                let Some(def) = self.struct_of(&t, recv.span) else {
                    for a in rest {
                        self.expr(a);
                    }
                    return self.error_expr(span);
                };
                self.written_trait_args = super::prim_generic_trait::written_args(written);
                self.generic_trait_call(def, g, None, Some(recv), None, name, rest, span, name_span)
            }
            t => {
                for a in rest {
                    self.expr(a);
                }
                if matches!(t, Ty::Error) {
                    return self.error_expr(span);
                }
                let shown = self.infer.resolve(&t);
                self.error(recv.span, format!("`{shown}` has no device trait impls: call `{name}` on a primitive or a `DeviceRepr` type"))
            }
        }
    }

    /// `<T as Trait>::name(args)`.
    pub fn qualified_call(&mut self, q: &syn::QSelf, path: &syn::Path, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Expr {
        let args: Vec<&syn::Expr> = args.iter().collect();
        let name_span = path.segments.last().map(|s| s.ident.span()).unwrap_or(span);
        let name = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if q.position == 0 || q.position + 1 != path.segments.len() {
            for a in &args {
                self.expr(a);
            }
            return self.error(span, "qualified paths are `<T as Trait>::f(..)` in device code, with a `#[device_fn]` trait");
        }
        let trait_path = syn::Path { leading_colon: path.leading_colon, segments: path.segments.iter().take(q.position).cloned().collect() };
        let ty = self.resolve_type(&q.ty, Position::Body);
        match self.describe(&ty, q.ty.span()) {
            // `<f32 as Scale<f32>>::scale(x, 2.0)`: the written arguments name the impl.
            Ty::Scalar(s) if super::prim_generic_trait::written_args(&trait_path).is_some() && super::traits::is_user_trait(&trait_path) => {
                let bare = crate::expand::generic_trait::bare(&trait_path);
                match self.generic_trait_at(&quote::quote!(#bare), name_span) {
                    Ok(g) => self.prim_generic_call(s, &g, super::prim_generic_trait::module_of(&bare), super::prim_generic_trait::written_args(&trait_path).as_ref(), None, &name, &args, span, name_span),
                    Err(_) => {
                        for a in &args {
                            self.expr(a);
                        }
                        self.error_expr(span)
                    }
                }
            }
            Ty::Scalar(s) => self.with_prim_trait(s, trait_path, |c| c.prim_trait_call(s, None, &name, &args, span, name_span)),
            // `<V as Scale<u32>>::scale(v, 4)`: the written arguments name the impl.
            Ty::Struct(def) if super::prim_generic_trait::written_args(&trait_path).is_some() && super::traits::is_user_trait(&trait_path) => {
                let bare = crate::expand::generic_trait::bare(&trait_path);
                match self.generic_trait_at(&quote::quote!(#bare), name_span) {
                    Ok(g) => {
                        self.written_trait_args = super::prim_generic_trait::written_args(&trait_path);
                        self.generic_trait_call(def, &g, None, None, None, &name, &args, span, name_span)
                    }
                    Err(_) => {
                        for a in &args {
                            self.expr(a);
                        }
                        self.error_expr(span)
                    }
                }
            }
            Ty::Struct(def) => self.assoc_call(def, &name, &args, span, name_span),
            Ty::Error => {
                for a in &args {
                    self.expr(a);
                }
                self.error_expr(span)
            }
            t => {
                let shown = self.infer.resolve(&t);
                self.error(q.ty.span(), format!("`{shown}` has no device trait impls: `<T as Trait>::f(..)` takes a primitive or a `DeviceRepr` type"))
            }
        }
    }
}
