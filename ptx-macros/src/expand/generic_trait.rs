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

/// The type arguments a trait path is written with (`Scale<f32>`: `[f32]`); anything else in
/// its brackets is an error.
pub fn trait_args(path: &syn::Path, errors: &mut Errors) -> Vec<syn::Type> {
    let mut out = Vec::new();
    if let Some(syn::PathArguments::AngleBracketed(ab)) = path.segments.last().map(|s| &s.arguments) {
        for a in &ab.args {
            match a {
                syn::GenericArgument::Type(t) => out.push(t.clone()),
                other => errors.error(other, "the arguments of a generic device trait are types (`impl Scale<f32> for Vec3`)"),
            }
        }
    }
    out
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
pub fn template_args(args: &[syn::Type], self_ty: &syn::Type, errors: &mut Errors) -> Vec<TokenStream> {
    let p = quote!(::ptx_runtime::__private);
    let mut out = Vec::new();
    for a in args {
        let syn::Type::Path(tp) = a else {
            errors.error(a, "the arguments of a generic device trait's impl are primitives or `DeviceRepr` structs");
            continue;
        };
        if let Some(s) = tp.path.get_ident().and_then(|i| Scalar::from_rust_name(&i.to_string())) {
            let code = super::method::scalar_code(s);
            out.push(quote!(#p::TemplateArg::Builtin(#code)));
            continue;
        }
        if tp.path.segments.iter().any(|s| !s.arguments.is_empty()) {
            errors.error(a, "an instance of a generic type as a generic device trait's argument is not supported yet: use a primitive or a non-generic `DeviceRepr` struct");
            continue;
        }
        let ty: syn::Type = if tp.path.is_ident("Self") { self_ty.clone() } else { a.clone() };
        let name = match &ty {
            syn::Type::Path(tp) => tp.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => String::new(),
        };
        out.push(quote!(#p::TemplateArg::Struct { path: <#ty as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #name }));
    }
    out
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
/// several fit, from the impl at the literal's fallback type (`f64`, `i32`). Each impl with
/// primitive arguments names its method once more with those keys made the literal's kind
/// (`Vec3__scale__float__needs_device_fn_impl_in_scope`; `named` makes the name of a key,
/// `export` is the impl's own): through a glob, so that one impl of a kind is found and two
/// make the name ambiguous (rustc's error at the call), except where every replaced argument
/// is its kind's fallback type: that impl's name is an explicit `use`, which shadows the globs
/// of the other impls, as rustc's fallback picks it.
pub fn literal_aliases(keys: &[String], named: &dyn Fn(&str) -> proc_macro2::Ident, method: &str, export: &proc_macro2::Ident, span: Span) -> TokenStream {
    let prims: Vec<usize> = (0..keys.len()).filter(|&i| literal_kind(&keys[i]).is_some()).collect();
    let mut out = TokenStream::new();
    for mask in 1u32..(1 << prims.len().min(4)) {
        let mut k = keys.to_vec();
        let mut fallback = true;
        for (bit, &i) in prims.iter().enumerate().take(4) {
            if mask & (1 << bit) != 0 {
                k[i] = literal_kind(&keys[i]).unwrap_or_default().to_owned();
                fallback &= is_fallback(&keys[i]);
            }
        }
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
