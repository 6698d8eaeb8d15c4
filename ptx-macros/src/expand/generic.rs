//! Generic device functions: the definition leaves its whole item in its replay, and each
//! caller's round compiles the instantiations its body reaches (see `front::generic`).
//!
//! ```text
//! #[device_fn] fn horner<const N: usize>(..) { .. }
//!   => the function; its replay `@generic_fn horner { item }`;
//!      mod horner { pub use super::*; pub const __PTX_MODULE: &str = module_path!(); }
//!
//! a caller's expansion, per instance (next to the caller's own module):
//!   mod __ptx_inst_horner_<hash> { use super::*; const __SYMBOL; pub const SYMBOL; pub static NODE; }
//! ```
//!
//! The symbol is the Itanium template name of the instantiation in the callee's namespace
//! (`ptx_abi::template`), so two callers' copies of one instantiation are one function in a
//! kernel's module (nodes with the same symbol are the same function).

use super::{node_items, Compiled};
use crate::front::generic::Instance;
use crate::link::info::{GenericFnInfo, Info};
use proc_macro2::TokenStream;
use quote::quote;

/// `#[device_fn]` on a generic function: the function (for the host), its replay carrying the
/// item, and the module callers name its scope and namespace through.
pub fn definition(item_tokens: TokenStream, item: syn::ItemFn) -> TokenStream {
    let ident = &item.sig.ident;
    let vis = &item.vis;
    let info = Info::GenericFn(GenericFnInfo { name: ident.to_string(), item: crate::link::info::FnItem::new(quote::ToTokens::to_token_stream(&item)) });
    let replay = crate::link::replay::emit("gfn", ident, vis, &item_tokens, &info);
    let doc = format!("The scope of the generic device function [`{ident}`](fn@{ident}): each caller compiles the instantiations it reaches.");
    quote! {
        #[allow(dead_code)]
        #item
        #replay
        #[doc = #doc]
        #[allow(unused_imports, non_snake_case)]
        #vis mod #ident {
            #[doc(no_inline)]
            pub use super::*;
            /// This scope's path: the function's namespace and name in its instances' symbols.
            #[doc(hidden)]
            pub const __PTX_MODULE: &str = ::core::module_path!();
        }
    }
}

/// One instance's module.
pub fn expand_instance(c: Compiled, inst: &Instance) -> TokenStream {
    let module = &inst.module;
    let symbol = &inst.symbol;
    let node = node_items(&c);
    quote! {
        #[doc(hidden)]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals, dead_code)]
        mod #module {
            use super::*;
            const __SYMBOL: &str = ::ptx_runtime::__private::ptx_text![#symbol];
            pub const SYMBOL: &str = __SYMBOL;
            #node
        }
    }
}

/// `#[device_fn] impl<T: Num> Pair<T> { .. }`: the impl, and per method a replay carrying the
/// method as written with the impl's generics, next to the type as other methods' replays are
/// (`Pair__sum__needs_device_fn_impl_in_scope`). Each caller compiles the instances it reaches
/// (see `front::generic_type`). A trait impl (`impl<T: Num> Add for Pair<T>`, a user trait)
/// keys its methods as the non-generic impls do (`Pair__Add__..`, `Mul<T>` with `T` a
/// parameter as `Mul_scalar`: a primitive right operand), and a user trait's default methods it
/// leaves out come back through the trait's replay (`origin` `Defaults`, the impl not emitted
/// again).
pub fn generic_impl(args: TokenStream, imp: syn::ItemImpl, origin: super::trait_def::Origin) -> TokenStream {
    use super::method::{op_key, rhs_key, OutputToType, OPS};
    use crate::link::info::{GenericMethodInfo, Recv};
    use syn::visit_mut::VisitMut;
    let mut errors = crate::report::Errors::new();
    let params: Vec<String> = imp
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let name = match &*imp.self_ty {
        syn::Type::Path(p) if p.qself.is_none() && !p.path.get_ident().is_some_and(|i| params.contains(&i.to_string())) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        syn::Type::Path(p) if p.qself.is_none() => {
            errors.error(p, "a blanket `#[device_fn]` impl (`impl<T: Bound> Trait for T`) has no type to hang its methods on: implement the trait for each type, or write a generic `#[device_fn]` bound by the trait");
            String::new()
        }
        other => {
            errors.error(other, "a generic `#[device_fn]` impl is for a generic `#[derive(DeviceRepr)]` type named by a path (`impl<T> Pair<T>`)");
            String::new()
        }
    };
    // For an operator impl: its entry in OPS and the right operand's part of the key.
    let mut op = None;
    let mut defaults = TokenStream::new();
    if let Some((bang, path, _)) = &imp.trait_ {
        if let Some(b) = bang {
            errors.error(b, "negative impls have no device code; remove `#[device_fn]`");
        }
        let last = path.segments.last();
        let trait_name = last.map(|s| s.ident.to_string()).unwrap_or_default();
        match OPS.iter().find(|(t, _, _)| *t == trait_name) {
            Some(entry) => {
                let rhs = match last.map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) => match a.args.first() {
                        // `Mul<T>`: a parameter on the right is called with a primitive.
                        Some(syn::GenericArgument::Type(syn::Type::Path(p))) if p.path.get_ident().is_some_and(|i| params.contains(&i.to_string())) => Some("scalar".to_owned()),
                        Some(syn::GenericArgument::Type(t)) => rhs_key(t, &name, &mut errors),
                        _ => None,
                    },
                    _ => None,
                };
                op = Some((*entry, rhs));
            }
            None => {
                if let Some(d) = super::trait_def::user_trait_impl(path, &imp, &args, origin, &mut errors) {
                    defaults = d;
                }
            }
        }
    }
    let output = imp.items.iter().find_map(|i| match i {
        syn::ImplItem::Type(t) if t.ident == "Output" => Some(t.ty.clone()),
        _ => None,
    });
    let assoc = super::assoc_types::of(&imp);
    let mut out = TokenStream::new();
    if errors.is_empty() {
        let (gparams, where_clause) = (&imp.generics, &imp.generics.where_clause);
        let generics = quote!(fn __generics #gparams () #where_clause {});
        let self_ty = &imp.self_ty;
        for item in &imp.items {
            let syn::ImplItem::Fn(f) = item else { continue };
            let fname = f.sig.ident.to_string();
            let (key, code) = match &op {
                Some(((trait_name, method, code), rhs)) => {
                    if fname != *method {
                        errors.error(&f.sig.ident, format!("`{trait_name}` has one method, `{method}`"));
                        continue;
                    }
                    (op_key(trait_name, rhs.as_deref()), Some((*code).to_owned()))
                }
                None => (fname.clone(), None),
            };
            let mut method = f.clone();
            if let Some(o) = &output {
                OutputToType(o).visit_impl_item_fn_mut(&mut method);
            }
            // A user trait's `Self::Out` is the impl's `type Out = T;` (`T` substituted per instance).
            super::assoc_types::AssocToType(&assoc).visit_impl_item_fn_mut(&mut method);
            let reshaped = match fname.as_str() {
                "index" if op.is_some() => super::index_ops::index_by_value(&mut method, &mut errors),
                "index_mut" if op.is_some() => super::index_ops::index_mut_as_setter(&mut method, &mut errors),
                _ => true,
            };
            if !reshaped {
                continue;
            }
            let recv = match method.sig.inputs.first() {
                Some(syn::FnArg::Receiver(r)) => Recv::of(r),
                _ => Recv::Assoc,
            };
            let item = quote::ToTokens::to_token_stream(&method);
            let info = Info::GenericMethod(GenericMethodInfo { name: fname, recv, generics: generics.clone(), self_ty: quote!(#self_ty), item: item.clone(), op: code, trait_args: TokenStream::new() });
            let export = super::method::replay_name(&name, &key, f.sig.ident.span());
            let vis: syn::Visibility = syn::parse_quote!(pub);
            out.extend(crate::link::replay::emit("gmethod", &export, &vis, &item, &info));
        }
    }
    let e = errors.to_compile_errors();
    let imp = match origin {
        super::trait_def::Origin::Written => quote::ToTokens::to_token_stream(&imp),
        super::trait_def::Origin::Defaults => TokenStream::new(),
    };
    quote! {
        #imp
        #out
        #defaults
        #e
    }
}

/// A generic method of a plain impl (`impl Vec3 { fn get<const I: usize>(&self) -> f32 }`):
/// its replay under `key` (the method, or for a generic trait's impl the method and the
/// trait's arguments, `trait_args`), as a generic impl's method with no impl parameters; each
/// caller compiles the instances it reaches (see `front::generic_method`).
pub fn generic_method_replay(ty_name: &str, key: &str, self_ty: &syn::Type, method: &syn::ImplItemFn, trait_args: TokenStream) -> TokenStream {
    use crate::link::info::{GenericMethodInfo, Recv};
    let recv = match method.sig.inputs.first() {
        Some(syn::FnArg::Receiver(r)) => Recv::of(r),
        _ => Recv::Assoc,
    };
    let item = quote::ToTokens::to_token_stream(method);
    let info = Info::GenericMethod(GenericMethodInfo { name: method.sig.ident.to_string(), recv, generics: quote!(fn __generics() {}), self_ty: quote!(#self_ty), item: item.clone(), op: None, trait_args });
    let export = super::method::replay_name(ty_name, key, method.sig.ident.span());
    let vis: syn::Visibility = syn::parse_quote!(pub);
    crate::link::replay::emit("gmethod", &export, &vis, &item, &info)
}
