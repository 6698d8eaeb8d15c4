//! A generic user trait's method on a primitive (`impl Scale<f32> for f32`, `impl Scale<u32>
//! for f32`), however rustc lets a body call it: method syntax (`x.scale(2.0f32)`), the trait's
//! path (`Scale::scale(x, 2.0f32)`, `num::Scale::scale(..)`), a qualified path (`<f32 as
//! Scale<f32>>::scale(x, 2.0)`), or a bound in a generic instance (`v.scale(2.0)` in `fn
//! twice<T: Scale<f32>>` with `T = f32`).
//!
//! Each impl names its methods next to itself by the primitive, the method and the trait's
//! arguments (`f32_has_no_built_in_method_scale__f32__…`, see `expand::generic_trait` and
//! `prim_method::alias`). Where the trait's arguments are written (`Scale<f32>` in the
//! qualified path, the bound), they are the key, as they are for rustc: the literal in
//! `<f32 as Scale<f32>>::scale(x, 2.0)` is an `f32`. Otherwise they are bound from the call's
//! arguments as for method syntax (`generic_trait::trait_key`). The names are looked up in the
//! trait's module when the trait is named by a path through it (`num::Scale`), unqualified
//! otherwise (where the impls' module is glob-imported, as for method syntax).

use super::hir::Expr;
use super::Checker;
use crate::expand::generic_trait::{const_key, method_key, type_key, OPEN};
use crate::link::info::{GenericFnInfo, Info, Recv};
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::quote;

/// The module part of a trait's path (`num::Scale<f32>`: `num::`), where its impls for
/// primitives name their methods; empty for a single segment.
pub fn module_of(trait_path: &syn::Path) -> TokenStream {
    let lead = trait_path.leading_colon;
    let n = trait_path.segments.len();
    let segs = trait_path.segments.iter().take(n.saturating_sub(1)).map(|s| &s.ident);
    if n <= 1 {
        return TokenStream::new();
    }
    quote!(#lead #(#segs ::)*)
}

/// The arguments a trait path is written with (`Scale<f32>`), if any.
pub fn written_args(trait_path: &syn::Path) -> Option<syn::AngleBracketedGenericArguments> {
    match trait_path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(ab)) => Some(ab.clone()),
        _ => None,
    }
}

impl Checker<'_> {
    /// `recv.name(args)` (`recv` given) or `path::name(args)` of the generic trait `g` for the
    /// primitive `s`. `module`: where the impls' names are looked up (see [`module_of`]);
    /// `written`: the trait's arguments where the call or a bound writes them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prim_generic_call(&mut self, s: Scalar, g: &GenericFnInfo, module: TokenStream, written: Option<&syn::AngleBracketedGenericArguments>, recv: Option<Expr>, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let prim = format!("{s:?}").to_lowercase();
        let (tr, sig) = match self.generic_trait_method(g, name, span, name_span) {
            Ok(found) => found,
            Err(e) => {
                // The arguments' own errors are reported too.
                for a in args {
                    self.expr(a);
                }
                return e;
            }
        };
        let (recv_kind, inputs) = super::receiver::split_receiver(&sig);
        if recv_kind == Recv::Mut {
            return self.error(name_span, format!("`&mut self` methods of a trait for a primitive are not supported in device code: return the new value (`fn {name}(self) -> Self`)"));
        }
        let qualified = format!("<{prim} as {}<..>>", g.name);
        let (recv, args) = match self.split_call(recv, recv_kind, args, &g.name, &qualified, name, name_span) {
            Ok(split) => split,
            Err(e) => return e,
        };
        let xs: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        if inputs.len() != xs.len() {
            return self.error(name_span, format!("`{name}` takes {} argument(s) but {} were given", inputs.len(), xs.len()));
        }
        let key = match written {
            Some(w) => match written_key(&tr.generics, w, &prim, name) {
                Some(k) => k,
                None => return self.error(name_span, format!("the trait `{}` takes {} generic argument(s), written as types or integer literals", g.name, tr.generics.params.len())),
            },
            None => match self.trait_key(&tr.generics, &inputs, &xs, &prim, name, span) {
                Ok(k) => k,
                Err(e) => return e,
            },
        };
        let keyed = super::prim_method::alias(&prim, &key, name_span);
        let path = quote!(#module #keyed);
        let info = match self.env.get(&path).cloned() {
            Some(Info::Method(m)) => m,
            Some(_) => return self.error(name_span, format!("`{keyed}` is not the replay of a method of a `#[device_fn]` impl for `{prim}`")),
            None => {
                self.needs.need(&path);
                return self.error_expr(span);
            }
        };
        // The name is also the hidden struct's: `<name>::__PTX_NODE__scale__f32`.
        self.prim_impl_call(path, &info, s, recv, xs, span)
    }

    /// The generic trait `bare` names (its replay, fetched when not known yet): `Err` when it
    /// is not known yet (asked for) or not a generic trait (reported at `span`).
    pub(super) fn generic_trait_at(&mut self, bare: &TokenStream, span: Span) -> Result<GenericFnInfo, ()> {
        match self.env.get(bare) {
            Some(Info::GenericTrait(g)) => Ok(g.clone()),
            Some(_) => {
                self.errors.at(span, format!("`{bare}` is not a generic `#[device_fn]` trait: write it without arguments"));
                Err(())
            }
            None => {
                self.needs.need(bare);
                Err(())
            }
        }
    }

    /// Whether `x.name(..)` on the primitive `s` in a generic instance whose first user-trait
    /// bound on `s` is a generic trait's is one of the primitive's own methods (`x.sqrt()`
    /// beside `T: Scale<f32>`): the trait, once known, has no method of that name.
    pub fn builtin_beside_generic_bound(&self, s: Scalar, name: &str) -> bool {
        let Some((_, first)) = self.prim_bounds.iter().find(|(t, _)| *t == s) else { return false };
        if written_args(first).is_none() || !super::prim_method::is_inherent(name) {
            return false;
        }
        let bare = crate::expand::generic_trait::bare(first);
        match self.env.get(&quote!(#bare)) {
            Some(Info::GenericTrait(g)) => syn::parse2::<syn::ItemTrait>(g.item.tokens.clone()).is_ok_and(|t| !t.items.iter().any(|i| matches!(i, syn::TraitItem::Fn(f) if f.sig.ident == name))),
            _ => false,
        }
    }

    /// A call through the user-trait bounds on the primitive `s` in a generic instance, when the
    /// first of them is a generic trait's (`where f32: algo::twice::Scale<f32>`): `Some` the
    /// call, `None` for a trait without parameters (see `traits`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prim_bound_generic_call(&mut self, s: Scalar, recv: Option<Expr>, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Result<Expr, Option<Expr>> {
        let Some((_, first)) = self.prim_bounds.iter().find(|(t, _)| *t == s).cloned() else { return Err(recv) };
        if written_args(&first).is_none() {
            return Err(recv);
        }
        let bare = crate::expand::generic_trait::bare(&first);
        let key_of = |p: &syn::Path| {
            let b = crate::expand::generic_trait::bare(p);
            crate::link::key(&quote!(#b))
        };
        let bare_key = key_of(&first);
        // The bounds of this trait on `s`: one fixes the arguments, several leave them to the call.
        let same: Vec<syn::Path> = self.prim_bounds.iter().filter(|(t, p)| *t == s && key_of(p) == bare_key).map(|(_, p)| p.clone()).collect();
        let g = match self.generic_trait_at(&quote!(#bare), name_span) {
            Ok(g) => g,
            Err(_) => {
                for a in args {
                    self.expr(a);
                }
                return Ok(self.error_expr(span));
            }
        };
        let written = if same.len() == 1 { written_args(&same[0]) } else { None };
        Ok(self.prim_generic_call(s, &g, module_of(&bare), written.as_ref(), recv, name, args, span, name_span))
    }
}

/// The key of the impl the written arguments name (`Scale<f32>`: `scale__f32`); a parameter
/// without an argument (a default) is left open. `None`: more arguments than parameters, or
/// one that is neither a type nor a literal.
fn written_key(generics: &syn::Generics, written: &syn::AngleBracketedGenericArguments, prim: &str, name: &str) -> Option<String> {
    let params: Vec<&syn::GenericParam> = generics.params.iter().filter(|p| !matches!(p, syn::GenericParam::Lifetime(_))).collect();
    let args: Vec<&syn::GenericArgument> = written.args.iter().filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_))).collect();
    if args.len() > params.len() {
        return None;
    }
    let mut keys = Vec::new();
    for (i, _) in params.iter().enumerate() {
        let k = match args.get(i) {
            None => OPEN.to_owned(),
            Some(syn::GenericArgument::Type(t)) => type_key(t, prim),
            Some(c @ syn::GenericArgument::Const(_)) => const_key(crate::front::generic::const_value(c)?),
            Some(_) => return None,
        };
        keys.push(k);
    }
    Some(method_key(name, &keys))
}
