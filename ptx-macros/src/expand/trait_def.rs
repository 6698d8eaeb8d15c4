//! User traits in device code, dispatched statically.
//!
//! `#[device_fn] trait Shape { fn area(&self) -> f32; fn twice(&self) -> f32 { .. } }` keeps the
//! trait and leaves a replay under the trait's own name (the macro namespace, so `Shape!`
//! resolves wherever the trait does, through `use` too) that carries the trait's tokens:
//!
//! ```text
//! macro_rules! __ptx_trait_Shape_<hash> {
//!     (@ptx_defaults $($t:tt)*) => { ::ptx_runtime::__private::trait_defaults! { { TRAIT } $($t)* } };
//!     (@ptx_fetch $($t:tt)*) => { fetch_next! { { @trait Shape } $($t)* } };   // `Shape::area(&c)`
//! }
//! pub use __ptx_trait_Shape_<hash> as Shape;
//! ```
//!
//! `#[device_fn] impl Shape for Circle { .. }` compiles its methods as those of an inherent
//! impl (a call on a `Circle` resolves to them: dispatch is by the receiver's concrete type, as
//! rustc's is for a concrete receiver), and invokes `Shape! { @ptx_defaults {args} {Circle}
//! {area ..} }` with the methods it wrote, so the trait's default methods it leaves out are
//! compiled for `Circle` where the impl is ([`defaults`]). Supertraits need nothing more: their
//! methods are the type's through their own impls. Associated constants are rustc's
//! (`Circle::SIDES`, `Self::SIDES`).

use crate::report::Errors;
use proc_macro2::{Delimiter, Punct, Spacing, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// Where an impl's methods come from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Written by the user: the impl is emitted too.
    Written,
    /// A trait's default methods, compiled for an impl that leaves them out.
    Defaults,
}

/// Traits of `core` an impl can name that have no device code here, with what to write.
const CORE_TRAITS: [&str; 17] = ["Clone", "Copy", "Default", "Debug", "Display", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash", "Drop", "From", "Into", "Iterator", "Send", "Sync", "Deref"];

/// `#[device_fn] trait ...`: the trait and its replay.
pub fn device_trait(t: syn::ItemTrait) -> TokenStream {
    let mut errors = Errors::new();
    for p in &t.generics.params {
        match p {
            syn::GenericParam::Type(_) => {}
            syn::GenericParam::Const(c) if const_code(&c.ty).is_some() => {}
            syn::GenericParam::Const(c) => errors.error(&c.ty, "a const parameter of a `#[device_fn]` trait is an integer or `bool` (`trait Dims<const N: usize>`)"),
            syn::GenericParam::Lifetime(l) => errors.error(l, "a `#[device_fn]` trait has no lifetime parameters: device code passes values"),
        }
    }
    if !errors.is_empty() {
        let e = errors.to_compile_errors();
        return quote!(#t #e);
    }
    let tokens = crate::link::replay::dollar_crate(t.to_token_stream());
    let name = crate::link::replay::unique_name("trait", &t.ident, &tokens);
    let ident = &t.ident;
    let vis = &t.vis;
    let d = Punct::new('$', Spacing::Alone);
    let info = if t.generics.params.is_empty() {
        crate::link::info::Info::Trait(ident.to_string())
    } else {
        crate::link::info::Info::GenericTrait(crate::link::info::GenericFnInfo { name: ident.to_string(), item: crate::link::info::FnItem::new(tokens.clone()) })
    };
    let info = crate::link::info::write(&info);
    quote! {
        #t
        #[doc(hidden)]
        #[macro_export]
        #[allow(non_local_definitions)]
        macro_rules! #name {
            (@ptx_defaults #d (#d t:tt)*) => {
                ::ptx_runtime::__private::trait_defaults! { { #tokens } #d (#d t)* }
            };
            (@ptx_fetch #d (#d t:tt)*) => {
                ::ptx_runtime::__private::fetch_next! { { #info } #d (#d t)* }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #name as #ident;
    }
}

/// The checks of `impl Trait for T` for a trait outside `core::ops`, and (for an impl as
/// written) the invocation of the trait's replay that compiles its default methods for `T`.
pub fn user_trait_impl(path: &syn::Path, imp: &syn::ItemImpl, args: &TokenStream, origin: Origin, errors: &mut Errors) -> Option<TokenStream> {
    let last = path.segments.last()?;
    let name = last.ident.to_string();
    if CORE_TRAITS.contains(&name.as_str()) && path.segments.len() <= 3 {
        errors.error(path, format!("`{name}` has no device code: `#[device_fn]` implements user traits (`#[device_fn] trait`), the `core::ops` operator traits and inherent methods; remove `#[device_fn]` from this impl"));
        return None;
    }
    if origin == Origin::Defaults {
        return None;
    }
    if let Some(e) = crate::front::plain_call::plain_trait(path, "a `#[device_fn] impl` of a user trait needs the trait's signatures and default methods", "") {
        errors.push(e);
        return None;
    }
    let written = imp.items.iter().filter_map(|i| match i {
        syn::ImplItem::Fn(f) => Some(&f.sig.ident),
        _ => None,
    });
    let self_ty = &imp.self_ty;
    // A generic impl's parameters, as a function's (`fn __generics<T: Num>() where .. {}`).
    let (g, w) = (&imp.generics, &imp.generics.where_clause);
    let generics = quote!({ fn __generics #g () #w {} });
    let bare = super::generic_trait::bare(path);
    // The impl's associated types, which the defaults' `Self::Out` names; for a trait with const
    // parameters also the impl's methods, which the trait's round compiles with the defaults
    // (only it knows the const parameters' types, which their symbols spell).
    let delegated = super::generic_trait::has_const_arg(path);
    let types = imp.items.iter().filter(|i| matches!(i, syn::ImplItem::Type(_)) || (delegated && matches!(i, syn::ImplItem::Fn(_))));
    Some(quote!(#bare! { @ptx_defaults {#args} {#self_ty} { #(#written)* } #generics {#path} { #(#types)* } }))
}

/// `ptx_runtime::__private::trait_defaults! { {TRAIT} {args} {T} {written methods} }`: the
/// trait's default methods that the impl for `T` does not write, compiled for `T`.
pub fn defaults(input: TokenStream) -> TokenStream {
    let mut it = input.into_iter().peekable();
    if matches!(it.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '@') {
        // `@misused "message" path..`: a body named the trait where a function or type goes;
        // the message is reported at that path.
        let (_, _, msg) = (it.next(), it.next(), it.next());
        let span = it.next().map_or_else(proc_macro2::Span::call_site, |t| t.span());
        let msg = msg.and_then(|m| syn::parse2::<syn::LitStr>(m.into()).ok()).map_or_else(String::new, |m| m.value());
        return syn::Error::new(span, msg).to_compile_error();
    }
    let mut next = || crate::link::info::group(it.next()?, Delimiter::Brace);
    let (Some(tr), Some(args), Some(self_ty), Some(written)) = (next(), next(), next(), next()) else {
        return quote!(::core::compile_error!("internal: malformed input to the device compiler's trait defaults"););
    };
    let (Ok(tr), Ok(self_ty)) = (syn::parse2::<syn::ItemTrait>(tr), syn::parse2::<syn::Type>(self_ty)) else {
        return quote!(::core::compile_error!("internal: malformed trait in the device compiler's trait defaults"););
    };
    let written: Vec<String> = written
        .into_iter()
        .filter_map(|t| match t {
            TokenTree::Ident(i) => Some(i.to_string()),
            _ => None,
        })
        .collect();
    let items: Vec<syn::ImplItem> = tr
        .items
        .iter()
        .filter_map(|i| match i {
            syn::TraitItem::Fn(f) if !written.contains(&f.sig.ident.to_string()) => {
                let block = f.default.clone()?;
                Some(syn::ImplItem::Fn(syn::ImplItemFn { attrs: f.attrs.clone(), vis: syn::Visibility::Inherited, defaultness: None, sig: f.sig.clone(), block }))
            }
            _ => None,
        })
        .collect();
    let ident = &tr.ident;
    let generics = next().and_then(|g| syn::parse2::<syn::ItemFn>(g).ok());
    // The trait's path as the impl wrote it, with its arguments (`Scale<f32>`), which replace
    // the trait's parameters in its default bodies.
    let trait_path: syn::Path = next().and_then(|p| syn::parse2(p).ok()).unwrap_or_else(|| syn::parse_quote!(#ident));
    let mut items = items;
    let mut trait_path = trait_path;
    if !tr.generics.params.is_empty() {
        let mut e = Errors::new();
        let args = super::generic_trait::trait_args(&trait_path, &mut e);
        let (mut types, mut consts) = (std::collections::HashMap::new(), std::collections::HashMap::new());
        let params = tr.generics.params.iter().filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
        for (p, a) in params.zip(&args) {
            match (p, a) {
                (syn::GenericParam::Type(t), super::generic_trait::TraitArg::Type(a)) => {
                    types.insert(t.ident.to_string(), a.clone());
                }
                (syn::GenericParam::Const(c), super::generic_trait::TraitArg::Const(v, _)) => {
                    if let Some(code) = const_code(&c.ty) {
                        consts.insert(c.ident.to_string(), (*v, code));
                    }
                }
                _ => {}
            }
        }
        suffix_const_args(&mut trait_path, &tr.generics);
        let mut subst = crate::front::generic::Subst::new(types, consts);
        for i in &mut items {
            syn::visit_mut::VisitMut::visit_impl_item_mut(&mut subst, i);
        }
    }
    let types: Vec<syn::ImplItem> = next().and_then(|g| syn::parse2::<syn::ItemImpl>(quote!(impl X { #g })).ok()).map(|i| i.items).unwrap_or_default();
    if items.is_empty() && !types.iter().any(|i| matches!(i, syn::ImplItem::Fn(_))) {
        return TokenStream::new();
    }
    let mut imp: syn::ItemImpl = syn::parse_quote!(impl #trait_path for #self_ty { #(#types)* #(#items)* });
    if let Some(g) = generics {
        imp.generics = g.sig.generics;
    }
    super::method::impl_methods(args, imp, Origin::Defaults)
}

/// The Itanium code of a const parameter's type (`usize`: `m`), for the integers and `bool`.
fn const_code(t: &syn::Type) -> Option<&'static str> {
    let syn::Type::Path(tp) = t else { return None };
    let s = ptx_abi::Scalar::from_rust_name(&tp.path.get_ident()?.to_string())?;
    (s.is_integral() || s == ptx_abi::Scalar::Bool).then(|| super::method::scalar_code(s))
}

/// The const arguments of an impl's trait path written with the trait's parameter types as
/// suffixes (`Dims<3>` with `const N: usize` is `Dims<3usize>`), so the symbol spells the type.
fn suffix_const_args(path: &mut syn::Path, generics: &syn::Generics) {
    let Some(syn::PathArguments::AngleBracketed(ab)) = path.segments.last_mut().map(|s| &mut s.arguments) else { return };
    let params = generics.params.iter().filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
    for (p, a) in params.zip(ab.args.iter_mut()) {
        let (syn::GenericParam::Const(c), syn::GenericArgument::Const(_)) = (p, &*a) else { continue };
        let (Some(v), syn::Type::Path(tp)) = (crate::front::generic::const_value(a), &c.ty) else { continue };
        let Some(ty) = tp.path.get_ident() else { continue };
        if ty == "bool" {
            continue;
        }
        let lit = syn::LitInt::new(&format!("{}{ty}", v.unsigned_abs()), proc_macro2::Span::call_site());
        *a = if v < 0 { syn::parse_quote!({ -#lit }) } else { syn::GenericArgument::Const(syn::parse_quote!(#lit)) };
    }
}

/// The hidden struct the functions of `impl Trait for prim` hang on, next to the impl.
pub fn prim_anchor(trait_name: &str, prim: &str) -> proc_macro2::Ident {
    quote::format_ident!("__ptx_{}_for_{}", trait_name, prim)
}
