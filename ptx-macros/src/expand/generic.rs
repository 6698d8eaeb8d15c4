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
    let info = Info::GenericFn(GenericFnInfo { name: ident.to_string(), item: quote::ToTokens::to_token_stream(&item) });
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
/// (see `front::generic_type`).
pub fn generic_impl(imp: syn::ItemImpl) -> TokenStream {
    use crate::link::info::{GenericMethodInfo, Recv};
    let mut errors = crate::report::Errors::new();
    if let Some((_, path, _)) = &imp.trait_ {
        errors.error(path, "`#[device_fn]` impls of traits for generic types are not supported yet: write the method in the generic inherent impl (`impl<T> Pair<T> { fn add(self, o: Self) -> Self { .. } }`), or implement the trait for each concrete type");
    }
    let name = match &*imp.self_ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        other => {
            errors.error(other, "a generic `#[device_fn]` impl is for a generic `#[derive(DeviceRepr)]` type named by a path (`impl<T> Pair<T>`)");
            String::new()
        }
    };
    let mut out = TokenStream::new();
    if errors.is_empty() {
        let (params, where_clause) = (&imp.generics, &imp.generics.where_clause);
        let generics = quote!(fn __generics #params () #where_clause {});
        let self_ty = &imp.self_ty;
        for item in &imp.items {
            let syn::ImplItem::Fn(f) = item else { continue };
            if !f.sig.generics.params.is_empty() {
                errors.error(&f.sig.generics, "generic methods are not supported in device code yet: use the impl's parameters");
                continue;
            }
            let recv = match f.sig.inputs.first() {
                Some(syn::FnArg::Receiver(r)) => Recv::of(r),
                _ => Recv::Assoc,
            };
            let item = quote::ToTokens::to_token_stream(f);
            let info = Info::GenericMethod(GenericMethodInfo { name: f.sig.ident.to_string(), recv, generics: generics.clone(), self_ty: quote!(#self_ty), item: item.clone() });
            let export = super::method::replay_name(&name, &f.sig.ident.to_string(), f.sig.ident.span());
            let vis: syn::Visibility = syn::parse_quote!(pub);
            out.extend(crate::link::replay::emit("gmethod", &export, &vis, &item, &info));
        }
    }
    let e = errors.to_compile_errors();
    quote! {
        #imp
        #out
        #e
    }
}
