//! Generic methods: methods with type or const parameters of their own (`fn get<const I:
//! usize>(&self)`, `fn scale<U: Into<f32>>(self, u: U)`), inherent or of a user trait, on a
//! plain or a generic `DeviceRepr` type.
//!
//! Such a method leaves its replay as a method of a generic impl does (`@generic_method`, the
//! impl's generics empty for a plain type; see `expand::generic`). A call binds the method's
//! own parameters as a generic function's call does (`v.get::<2>()` written, `v.scale(3u8)`
//! inferred from the arguments; [`Checker::bind_call`]) and the impl's from the receiver's
//! type, and compiles the instance in the caller's round, named as nvcc names the member
//! template's instance (`krate::geo::Vec3::get<2ul>() const` is `_ZNK5krate3geo4Vec33getILm2EEE`).

use super::hir::Expr;
use super::ty::StructDef;
use super::Checker;
use crate::link::info::{GenericMethodInfo, Info};
use proc_macro2::Span;
use std::rc::Rc;

/// Whether a method's replay has parameters of its own (lifetimes aside).
pub fn has_own_generics(g: &GenericMethodInfo) -> bool {
    syn::parse2::<syn::ImplItemFn>(g.item.clone()).is_ok_and(|m| super::generic::is_generic(&m.sig))
}

impl Checker<'_> {
    /// The replay of `def`'s method `name` when it is a generic method already fetched.
    pub(super) fn own_generic_method(&self, def: &StructDef, name: &str, span: Span) -> Option<GenericMethodInfo> {
        let found = match self.env.get(&super::user_method::method_path(def, name, span)) {
            // An impl for one instance (`impl Pair<u32> { fn weighted<U> }`): the instance's name.
            Some(Info::PerInstance) => self.env.get(&super::user_method::instance_method_path(def, name, span)?),
            found => found,
        };
        match found {
            Some(Info::GenericMethod(g)) if has_own_generics(g) => Some(g.clone()),
            _ => None,
        }
    }

    /// `recv.name::<..>(args)` (`recv` given) or `Type::name::<..>(args)` of the generic
    /// method `g`; `written`: the turbofish.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn generic_method_call(&mut self, def: Rc<StructDef>, g: &GenericMethodInfo, written: Option<syn::AngleBracketedGenericArguments>, recv: Option<Expr>, recv_syn: Option<&syn::Expr>, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let (recv, args) = match self.split_call(recv, g.recv, args, &def.name, &def.name, &g.name, name_span) {
            Ok(split) => split,
            Err(e) => return e,
        };
        let xs: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        self.generic_method_instance(def, g, written, recv, recv_syn, xs, span, name_span)
    }

    /// The call of the generic method `g` once its receiver and arguments (`xs`) are checked:
    /// its own parameters bound (`written`, then from `xs`), its instance made.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn generic_method_instance(&mut self, def: Rc<StructDef>, g: &GenericMethodInfo, written: Option<syn::AngleBracketedGenericArguments>, recv: Option<Expr>, recv_syn: Option<&syn::Expr>, xs: Vec<Expr>, span: Span, name_span: Span) -> Expr {
        let Ok(method) = syn::parse2::<syn::ImplItemFn>(g.item.clone()) else {
            return self.error(span, format!("internal: the replay of `{}::{}` does not parse", def.base_name(), g.name));
        };
        let name = &g.name;
        let (_, inputs) = super::receiver::split_receiver(&method.sig);
        let written = written.map(syn::PathArguments::AngleBracketed);
        let bound = match self.bind_call(&method.sig.generics, written.as_ref(), &inputs, &xs, name, span) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let Some(info) = self.instantiate_method(&def, g, Some(&bound), name_span) else { return self.error_expr(span) };
        self.finish_resolved_call(def, info, recv, recv_syn, xs, span)
    }
}

impl Checker<'_> {
    /// The arguments of the generic trait a generic method's impl is of (`trait_args`, written
    /// in the impl's module, `Self` the type; empty for other methods), resolved: as the instance's key shows
    /// them and as its first template arguments.
    pub(super) fn trait_template_args(&mut self, def: &StructDef, trait_args: &proc_macro2::TokenStream, span: Span) -> Option<(Vec<String>, Vec<proc_macro2::TokenStream>)> {
        let (mut shown, mut margs) = (Vec::new(), Vec::new());
        if trait_args.is_empty() {
            return Some((shown, margs));
        }
        let parser = syn::punctuated::Punctuated::<syn::Type, syn::Token![,]>::parse_terminated;
        let Ok(types) = syn::parse::Parser::parse2(parser, trait_args.clone()) else {
            self.errors.at(span, format!("internal: the trait arguments of `{}`'s impl do not parse", def.base_name()));
            return None;
        };
        for t in &types {
            let ty = self.method_type(&quote::ToTokens::to_token_stream(t), def);
            let Some((tokens, targ)) = self.type_arg(&ty) else {
                if !matches!(ty, super::ty::Ty::Error) {
                    let shown = self.infer.resolve(&ty);
                    self.errors.at(span, format!("`{shown}` cannot be the argument of a generic trait whose method is generic yet: use a primitive or a `DeviceRepr` struct"));
                }
                return None;
            };
            shown.push(tokens.to_string());
            margs.push(targ);
        }
        Some((shown, margs))
    }
}
