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
