//! Calls of a generic user trait's methods: `v.scale(2.0)` with `impl Scale<f32> for Vec3`
//! and `impl Scale<Vec3> for Vec3`, directly or in an instance of `fn f<V: Scale<f32>>`.
//!
//! The method's plain name next to the type (`geo::Vec3__scale__needs_device_fn_impl_in_scope`)
//! is the trait's replay, which carries the trait (see `expand::generic_trait`). Its
//! parameters are bound from the call's arguments against the method's signature in the trait,
//! as rustc binds them (`bind_call`); the arguments' keys then name the impl's method
//! (`Vec3__scale__f32__…`). An unsuffixed literal bound to a parameter names the impl its kind
//! fits (`Vec3__scale__float__…`), whose signature then types the literal.

use super::hir::Expr;
use super::ty::{StructDef, Ty};
use super::Checker;
use crate::expand::generic_trait::{const_key, method_key, type_key, OPEN};
use crate::link::info::{GenericFnInfo, Info};
use proc_macro2::Span;
use std::rc::Rc;

impl Checker<'_> {
    /// The generic trait `def`'s method `name` belongs to, when its plain name is the trait's.
    pub(super) fn generic_trait_of(&self, def: &StructDef, name: &str, span: Span) -> Option<GenericFnInfo> {
        match self.env.get(&super::user_method::method_path(def, name, span)) {
            Some(Info::GenericTrait(g)) => Some(g.clone()),
            _ => None,
        }
    }

    /// The generic trait `g` (its replay parsed) and the signature of its method `name`; an
    /// error expression where the trait has no such method (at `name_span`).
    pub(super) fn generic_trait_method(&mut self, g: &GenericFnInfo, name: &str, span: Span, name_span: Span) -> Result<(syn::ItemTrait, syn::Signature), Expr> {
        let Ok(tr) = syn::parse2::<syn::ItemTrait>(g.item.tokens.clone()) else {
            return Err(self.error(span, format!("internal: the replay of the trait `{}` does not parse", g.name)));
        };
        let sig = tr.items.iter().find_map(|i| match i {
            syn::TraitItem::Fn(f) if f.sig.ident == name => Some(f.sig.clone()),
            _ => None,
        });
        match sig {
            Some(sig) => Ok((tr, sig)),
            None => Err(self.error(name_span, format!("`{name}` is not a method of the trait `{}`", g.name))),
        }
    }

    /// `recv.name(args)` (`recv` given) or `Type::name(args)` of the generic trait `g`.
    #[allow(clippy::too_many_arguments)]
    /// `written`: a turbofish, the arguments of the impl's method when it is generic.
    pub(super) fn generic_trait_call(&mut self, def: Rc<StructDef>, g: &GenericFnInfo, written: Option<syn::AngleBracketedGenericArguments>, recv: Option<Expr>, recv_syn: Option<&syn::Expr>, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        // Taken before the arguments are checked: a call among them has its own.
        let trait_args = self.written_trait_args.take();
        let (tr, sig) = match self.generic_trait_method(g, name, span, name_span) {
            Ok(found) => found,
            Err(e) => return e,
        };
        let (recv_kind, inputs) = super::receiver::split_receiver(&sig);
        let (recv, args) = match self.split_call(recv, recv_kind, args, &g.name, &def.name, name, name_span) {
            Ok(split) => split,
            Err(e) => return e,
        };
        let xs: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        if inputs.len() != xs.len() {
            return self.error(name_span, format!("`{name}` takes {} argument(s) but {} were given", inputs.len(), xs.len()));
        }
        // The trait's arguments written at the call type the arguments its parameters stand for
        // (`4` is a `u32` in `<V as Scale<u32>>::scale(v, 4)`), so they name the impl.
        if let Some(ta) = &trait_args {
            let written: Vec<&syn::Type> = ta.args.iter().filter_map(|a| if let syn::GenericArgument::Type(t) = a { Some(t) } else { None }).collect();
            for (p, t) in tr.generics.type_params().zip(written) {
                let ty = self.resolve_type(t, super::Position::Body);
                for (pt, x) in inputs.iter().zip(&xs) {
                    if matches!(pt, syn::Type::Path(tp) if tp.qself.is_none() && tp.path.is_ident(&p.ident)) {
                        self.expect(x.span, &ty, &x.ty);
                    }
                }
            }
        }
        let key = match self.trait_key(&tr.generics, &inputs, &xs, def.base_name(), name, span) {
            Ok(k) => k,
            Err(e) => return e,
        };
        // A generic method (`fn mix<U>`): its own arguments bound as for an inherent one.
        if let Some(Info::GenericMethod(m)) = self.env.get(&super::user_method::method_path(&def, &key, name_span)).cloned() {
            if super::generic_method::has_own_generics(&m) {
                return self.generic_method_instance(def, &m, written, recv, recv_syn, xs, span, name_span);
            }
        }
        let Some(info) = self.method_info(&def, &key, name_span) else {
            return self.error_expr(span);
        };
        self.finish_resolved_call(def, info, recv, recv_syn, xs, span)
    }

    /// The key of the impl of a generic trait (parameters `generics`) whose method `name`
    /// (parameter types `inputs`) a call with the arguments `xs` reaches: the method and the
    /// trait's arguments bound from the call (`scale__f32`), a parameter that only unsuffixed
    /// literals bind by the literal's kind (`scale__float`). `self_name`: what `Self` is.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn trait_key(&mut self, generics: &syn::Generics, inputs: &[&syn::Type], xs: &[Expr], self_name: &str, name: &str, span: Span) -> Result<String, Expr> {
        // A parameter only unsuffixed literals bind: the literal's kind.
        let mut literal: Vec<(String, &'static str)> = Vec::new();
        for p in generics.type_params() {
            let pname = p.ident.to_string();
            let mut kind = None;
            let mut concrete = false;
            for (pt, x) in inputs.iter().zip(xs) {
                if !matches!(pt, syn::Type::Path(tp) if tp.qself.is_none() && tp.path.is_ident(&pname)) {
                    continue;
                }
                match self.shallow(&x.ty) {
                    Ty::Var(v) => match self.infer.kind_of(v) {
                        super::infer::VarKind::Float => kind = kind.or(Some("float")),
                        super::infer::VarKind::Int => kind = kind.or(Some("int")),
                        super::infer::VarKind::General => {}
                    },
                    _ => concrete = true,
                }
            }
            if let (Some(k), false) = (kind, concrete) {
                literal.push((pname, k));
            }
        }
        // A parameter no input mentions is left open: the one impl there is (`OPEN`).
        let mentioned = |p: &str| inputs.iter().any(|t| mentions(&quote::ToTokens::to_token_stream(t), p));
        let mut reduced = generics.clone();
        reduced.params = generics.params.iter().filter(|p| !matches!(p, syn::GenericParam::Lifetime(_))).filter(|p| mentioned(&param_name(p))).cloned().collect();
        let bound = self.bind_call(&reduced, None, inputs, xs, name, span)?;
        let keys: Vec<String> = generics
            .params
            .iter()
            .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
            .map(|p| {
                let pname = param_name(p);
                if !mentioned(&pname) {
                    return OPEN.to_owned();
                }
                if let Some((_, k)) = literal.iter().find(|(n, _)| *n == pname) {
                    return (*k).to_owned();
                }
                match p {
                    syn::GenericParam::Const(_) => bound.subst.const_of(&pname).map(const_key).unwrap_or_default(),
                    _ => bound.subst.type_of(&pname).map(|t| type_key(t, self_name)).unwrap_or_default(),
                }
            })
            .collect();
        Ok(method_key(name, &keys))
    }
}

fn param_name(p: &syn::GenericParam) -> String {
    match p {
        syn::GenericParam::Type(t) => t.ident.to_string(),
        syn::GenericParam::Const(c) => c.ident.to_string(),
        syn::GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
    }
}

/// Whether `tokens` name the identifier `name`.
fn mentions(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}
