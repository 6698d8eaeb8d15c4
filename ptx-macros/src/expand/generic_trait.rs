//! Impls of generic user traits: `#[device_fn] trait Scale<T> { fn scale(self, by: T) -> Self; }`
//! implemented for one type several times (`impl Scale<f32> for Vec3`, `impl Scale<Vec3> for Vec3`).
//!
//! Each impl's methods are keyed by the method and the trait's arguments
//! (`Vec3__scale__f32__needs_device_fn_impl_in_scope`, node `Vec3::__PTX_NODE__scale__f32`),
//! so the impls do not collide. A call `v.scale(x)` names neither the trait nor its arguments,
//! so every impl also re-exports the trait's replay under the method's plain name
//! (`Vec3__scale__needs_device_fn_impl_in_scope`) through a glob of a hidden module: the globs
//! of two impls name the same macro, which rustc accepts where two explicit `use`s would
//! collide. The caller fetches the plain name, finds the trait, binds its parameters from the
//! call's arguments against the method's signature in the trait, and fetches the keyed name
//! (`front::generic_trait`).
//!
//! The symbol is nvcc's for a member template specialized at the trait's arguments, as if the
//! C++ class had `template <class T> Vec3 scale(T) const;`: `krate::geo::Vec3::scale<float>()
//! const` is `_ZNK5krate3geo4Vec35scaleIfEE`, `scale<krate::geo::Vec3>` `..5scaleIS1_EE`.

use crate::report::Errors;
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::{format_ident, quote, ToTokens};

/// An argument of a generic trait at an impl: a type (`Scale<f32>`) or a const (`Dims<3>`,
/// its value and, when the literal is suffixed, its type's Itanium code).
#[derive(Clone)]
pub enum TraitArg {
    Type(syn::Type),
    Const(i128, Option<&'static str>),
}

/// The arguments a trait path is written with (`Scale<f32>`: `[f32]`, `Dims<3>`: `[3]`);
/// anything else in its brackets is an error.
pub fn trait_args(path: &syn::Path, errors: &mut Errors) -> Vec<TraitArg> {
    let mut out = Vec::new();
    if let Some(syn::PathArguments::AngleBracketed(ab)) = path.segments.last().map(|s| &s.arguments) {
        for a in &ab.args {
            match a {
                syn::GenericArgument::Type(t) => out.push(TraitArg::Type(t.clone())),
                c @ syn::GenericArgument::Const(e) => match crate::front::generic::const_value(c) {
                    Some(v) => out.push(TraitArg::Const(v, suffix_code(e))),
                    None => errors.error(c, "the const argument of a generic device trait is an integer or `bool` literal (`impl Dims<3> for Vec3`)"),
                },
                other => errors.error(other, "the arguments of a generic device trait are types or integer literals (`impl Scale<f32> for Vec3`, `impl Dims<3> for Vec3`)"),
            }
        }
    }
    out
}

/// The Itanium code of a literal's suffix (`3usize`: `m`), or of `bool`.
fn suffix_code(e: &syn::Expr) -> Option<&'static str> {
    match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => Scalar::from_rust_name(i.suffix()).map(super::method::scalar_code),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(_), .. }) => Some("b"),
        syn::Expr::Unary(u) => suffix_code(&u.expr),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => suffix_code(e),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a trait path has a const argument (`Dims<3>`).
pub fn has_const_arg(path: &syn::Path) -> bool {
    matches!(path.segments.last().map(|s| &s.arguments), Some(syn::PathArguments::AngleBracketed(ab)) if ab.args.iter().any(|a| matches!(a, syn::GenericArgument::Const(_))))
}

/// A const argument's part of a key: its value (`3`, `n3` for `-3`).
pub fn const_key(v: i128) -> String {
    if v < 0 {
        format!("n{}", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

/// An argument's part of a key (see [`type_key`], [`const_key`]).
pub fn arg_key(a: &TraitArg, self_name: &str) -> String {
    match a {
        TraitArg::Type(t) => type_key(t, self_name),
        TraitArg::Const(v, _) => const_key(*v),
    }
}

/// The type arguments as written (`Mix<f32>`: `f32`; `Self` is `self_ty`), comma-separated:
/// a generic method's replay carries them (see `front::generic_method`).
pub fn type_args(args: &[TraitArg], self_ty: &syn::Type) -> TokenStream {
    let types = args.iter().filter_map(|a| match a {
        TraitArg::Type(t) => {
            let mut t = t.clone();
            syn::visit_mut::VisitMut::visit_type_mut(&mut super::method::SelfToType(self_ty), &mut t);
            Some(t)
        }
        TraitArg::Const(..) => None,
    });
    quote!(#(#types),*)
}

/// The trait's path without its arguments, as its replay is named (`Scale<f32>` is `Scale!`).
pub fn bare(path: &syn::Path) -> syn::Path {
    let mut p = path.clone();
    if let Some(last) = p.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
    }
    p
}

/// One argument's part of a key: the last segment's name (`Self` is the implementing type),
/// with its own arguments (`Pair<f32>`: `Pair_f32`). The caller spells the bound type the same.
pub fn type_key(t: &syn::Type, self_name: &str) -> String {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else { return String::new() };
            let name = last.ident.to_string();
            let mut key = if name == "Self" { self_name.to_owned() } else { name };
            if let syn::PathArguments::AngleBracketed(ab) = &last.arguments {
                for a in &ab.args {
                    match a {
                        syn::GenericArgument::Type(t) => key = format!("{key}_{}", type_key(t, self_name)),
                        other => key = format!("{key}_{}", other.to_token_stream()),
                    }
                }
            }
            key
        }
        syn::Type::Paren(p) => type_key(&p.elem, self_name),
        syn::Type::Group(g) => type_key(&g.elem, self_name),
        other => other.to_token_stream().to_string(),
    }
}

/// The key of a method of a generic trait's impl: the method, then the trait's arguments.
pub fn method_key(method: &str, keys: &[String]) -> String {
    format!("{method}__{}", keys.join("_"))
}

/// The trait's arguments as the member template's arguments (`TemplateArg`s), written in the
/// impl's module (the type's): a primitive's builtin code, a `DeviceRepr` struct by its path.
pub fn template_args(args: &[TraitArg], self_ty: &syn::Type, errors: &mut Errors) -> Vec<TokenStream> {
    let p = quote!(::ptx_runtime::__private);
    let mut out = Vec::new();
    for a in args {
        let a = match a {
            TraitArg::Type(t) => t,
            // A const argument's type is the trait's parameter's, which the impl's round
            // writes as the literal's suffix (`trait_def::defaults`); `m` (`usize`) otherwise.
            TraitArg::Const(v, code) => {
                let (code, value, negative) = (code.unwrap_or("m"), v.unsigned_abs() as u64, *v < 0);
                out.push(quote!(#p::TemplateArg::Int { code: #code, value: #value, negative: #negative }));
                continue;
            }
        };
        if let Some(arg) = type_arg(a, self_ty, errors) {
            out.push(arg);
        }
    }
    out
}

/// One type argument of a generic trait at an impl as a `TemplateArg`: a primitive's builtin
/// code, a `DeviceRepr` struct by its path, an instance of a generic one (`Pair<f32>`) as the
/// class template's specialization, its own arguments the same way.
pub(super) fn type_arg(a: &syn::Type, self_ty: &syn::Type, errors: &mut Errors) -> Option<TokenStream> {
    let p = quote!(::ptx_runtime::__private);
    let syn::Type::Path(tp) = a else {
        errors.error(a, "the arguments of a generic device trait's impl are primitives or `DeviceRepr` structs");
        return None;
    };
    if let Some(s) = tp.path.get_ident().and_then(|i| Scalar::from_rust_name(&i.to_string())) {
        let code = super::method::scalar_code(s);
        return Some(quote!(#p::TemplateArg::Builtin(#code)));
    }
    let ty: syn::Type = if tp.path.is_ident("Self") { self_ty.clone() } else { a.clone() };
    let syn::Type::Path(tp) = &ty else { return None };
    let last = tp.path.segments.last()?;
    let name = last.ident.to_string();
    match &last.arguments {
        syn::PathArguments::None if tp.path.segments.iter().all(|s| s.arguments.is_empty()) => Some(quote!(#p::TemplateArg::Struct { path: <#ty as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #name })),
        // `Scale<Pair<f32>>`: the specialization `Pair<float>`.
        syn::PathArguments::AngleBracketed(ab) if tp.path.segments.iter().rev().skip(1).all(|s| s.arguments.is_empty()) => {
            let mut args = Vec::new();
            for g in &ab.args {
                match g {
                    syn::GenericArgument::Type(t) => args.push(type_arg(t, self_ty, errors)?),
                    other => {
                        errors.error(other, "an instance of a generic type as a generic device trait's argument has type arguments here (`Scale<Pair<f32>>`); for a const argument write a non-generic `DeviceRepr` struct");
                        return None;
                    }
                }
            }
            Some(quote!(#p::TemplateArg::Specialization { path: <#ty as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #name, args: &[#(#args),*] }))
        }
        _ => {
            errors.error(a, "the arguments of a generic device trait's impl are primitives or `DeviceRepr` structs named by a path (`Scale<f32>`, `Scale<geo::Pair<f32>>`)");
            None
        }
    }
}

/// The plain name of a method of a generic trait's impl, `Vec3__scale__needs_device_fn_impl_in_scope`,
/// made the trait's replay through a glob of a hidden module (see the module's docs).
/// `salt`: the method's key, which tells two impls' modules apart.
pub fn dispatch_alias(trait_path: &syn::Path, alias: proc_macro2::Ident, method: &str, salt: &str, span: Span) -> TokenStream {
    // A path relative to the impl's module is one level up from the hidden module.
    let mut path = trait_path.clone();
    let first = path.segments.first().map(|s| s.ident.to_string()).unwrap_or_default();
    if first == "self" {
        path.segments[0].ident = syn::Ident::new("super", span);
    } else if path.leading_colon.is_none() && !matches!(first.as_str(), "crate" | "$crate") {
        path.segments.insert(0, syn::parse_quote!(super));
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&(alias.to_string(), salt, trait_path.to_token_stream().to_string(), span.start().line, span.start().column), &mut h);
    let module = format_ident!("__ptx_dispatch_{}_{:x}", method.trim_start_matches("r#"), std::hash::Hasher::finish(&h));
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        mod #module {
            pub use #path as #alias;
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub use #module::*;
    }
}

/// The kind of literal that takes a primitive argument's type (`2.0` an `f32`, `3` a `u32`).
pub fn literal_kind(key: &str) -> Option<&'static str> {
    let s = Scalar::from_rust_name(key)?;
    if s.is_float() {
        Some("float")
    } else if s.is_integral() {
        Some("int")
    } else {
        None
    }
}

/// A call whose argument is an unsuffixed literal (`v.scale(2.0)`) does not know the
/// primitive yet; rustc takes it from the one impl a literal of its kind fits, and where
/// several fit, from the impl at the literal's fallback type (`f64`, `i32`). A call whose
/// trait argument no parameter of the method mentions (`fn dims(&self) -> [f32; N]`) takes the
/// one impl there is. So each impl names its method once more for every way a call can leave
/// its arguments open: a primitive argument as the literal's kind (`scale__float`), any
/// argument as `_` (`dims___`) (`named` makes the name of a key, `export` is the impl's own).
/// Each is a glob, so that one impl is found and two make the name ambiguous (rustc's error at
/// the call), except where every open argument is a literal kind and the impl's primitive is
/// that kind's fallback type: that name is an explicit `use`, which shadows the globs of the
/// other impls, as rustc's fallback picks it.
pub fn literal_aliases(keys: &[String], named: &dyn Fn(&str) -> proc_macro2::Ident, method: &str, export: &proc_macro2::Ident, span: Span) -> TokenStream {
    let mut out = TokenStream::new();
    for (k, fallback) in alias_choices(keys) {
        let alias = named(&method_key(method, &k));
        if fallback {
            out.extend(quote! {
                #[doc(hidden)]
                #[allow(unused_imports)]
                pub use #export as #alias;
            });
            continue;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&(alias.to_string(), export.to_string(), span.start().line, span.start().column), &mut h);
        let module = format_ident!("__ptx_literal_{}_{:x}", method.trim_start_matches("r#"), std::hash::Hasher::finish(&h));
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, unused_imports)]
            mod #module {
                pub use super::#export as #alias;
            }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub use #module::*;
        });
    }
    out
}

/// The argument keys [`literal_aliases`] names an impl's method by besides its own.
pub fn alias_keys(keys: &[String]) -> Vec<Vec<String>> {
    alias_choices(keys).into_iter().map(|(k, _)| k).collect()
}

/// Per way a call can leave the arguments `keys` open, its keys and whether it is an explicit
/// `use` (every open argument a literal kind at its fallback type).
fn alias_choices(keys: &[String]) -> Vec<(Vec<String>, bool)> {
    // Per argument (the first four), the keys a call may have besides the impl's own.
    let options: Vec<Vec<String>> = keys
        .iter()
        .take(4)
        .map(|k| {
            let mut o = vec![k.clone()];
            if let Some(kind) = literal_kind(k) {
                o.push(kind.to_owned());
            }
            o.push(OPEN.to_owned());
            o
        })
        .collect();
    let mut out = Vec::new();
    let mut choice = vec![0usize; options.len()];
    loop {
        // The next combination (odometer), the impl's own keys (all zeros) left out.
        let mut i = 0;
        while i < choice.len() {
            choice[i] += 1;
            if choice[i] < options[i].len() {
                break;
            }
            choice[i] = 0;
            i += 1;
        }
        if i == choice.len() {
            break;
        }
        let mut k = keys.to_vec();
        let mut fallback = true;
        for (j, &c) in choice.iter().enumerate() {
            if c > 0 {
                k[j] = options[j][c].clone();
                fallback &= k[j] != OPEN && is_fallback(&keys[j]);
            }
        }
        out.push((k, fallback));
    }
    out
}

/// The key of a trait argument a call leaves open (no parameter of the method mentions it).
pub const OPEN: &str = "_";

/// Whether a primitive is the type rustc gives an unsuffixed literal nothing else constrains.
fn is_fallback(key: &str) -> bool {
    key == "f64" || key == "i32"
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn keys_name_the_last_segment_and_self() {
        let t: syn::Type = syn::parse_quote!(crate::geo::Pair<Self>);
        assert_eq!(super::type_key(&t, "Vec3"), "Pair_Vec3");
        assert_eq!(super::method_key("scale", &["f32".into(), "Vec3".into()]), "scale__f32_Vec3");
        assert_eq!(super::literal_kind("u8"), Some("int"));
        assert_eq!(super::literal_kind("Vec3"), None);
    }

    /// An impl of a generic trait names its method by the trait's argument, by the literal kind
    /// of a primitive argument and (through a glob) by the plain name, and is still items.
    #[test]
    fn an_impl_names_its_method_three_ways() {
        let item: syn::ItemImpl = syn::parse_quote! {
            impl Scale<f32> for Vec3 { fn scale(self, by: f32) -> Vec3 { self } }
        };
        let out = super::super::method::device_impl(quote!(), item);
        syn::parse2::<syn::File>(out.clone()).unwrap_or_else(|e| panic!("{e}: {out}"));
        let out = out.to_string();
        for name in ["as Vec3__scale__f32__needs_device_fn_impl_in_scope", "as Vec3__scale__float__needs_device_fn_impl_in_scope", "super :: Scale as Vec3__scale__needs_device_fn_impl_in_scope", "MemberTemplate", "margs : & [:: ptx_runtime :: __private :: TemplateArg :: Builtin (\"f\")]"] {
            assert!(out.contains(name), "{name}: {out}");
        }
        assert!(!out.contains("compile_error"), "{out}");
    }
}
