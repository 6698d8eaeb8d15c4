//! `#[device_fn] fn f(...)` expands to the function, its replay (see `link`), and
//!
//! ```text
//! mod f {
//!     pub const PTX: &str;     // a module holding the `.visible .func` and what it reaches
//!     pub const SYMBOL: &str;  // the `.func` symbol
//!     pub static NODE: FnNode; // its node in the static call graph, for kernels that call it
//!     __ptx_inline!            // whether kernels inline it (see `inline_form`)
//! }
//! ```

use super::{dyn_smem_decl, isa_tokens, node_items, symbol_const, target_tokens, Compiled};
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(c: Compiled) -> TokenStream {
    let item = &c.item;
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let symbol = symbol_const(&c);
    let target = target_tokens(&c.args);
    let isa = isa_tokens(c.isa);
    let dyn_smem = dyn_smem_decl();
    let node = node_items(&c);
    let doc = format!("PTX for the device function [`{ident}`](fn@{ident}).");
    let inline = &c.inline;
    quote! {
        #[doc = #doc]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals)]
        #vis mod #ident {
            // Re-exported (each name at most as visible as it is) so callers elsewhere can
            // name this function's signature types as `#ident::T`.
            #[doc(no_inline)]
            pub use super::*;
            #symbol

            /// The `.func` symbol.
            pub const SYMBOL: &str = __SYMBOL;

            /// The function's path: a failed check in its body inlined into a kernel names it.
            #[doc(hidden)]
            pub const __PATH: &str = ::core::module_path!();

            #node
            #inline

            /// A PTX module holding this function's `.visible .func` and every device function it
            /// reaches.
            pub const PTX: &str = ::ptx_runtime::__private::ptx_text![
                ::ptx_runtime::__private::Piece::Header { target: #target, isa: #isa, funcs: &[&NODE], debug: false },
                #dyn_smem,
                ::ptx_runtime::__private::Piece::Funcs { files: &[], roots: &[&NODE] },
                ::ptx_runtime::__private::Piece::Files { files: &[], roots: &[&NODE] },
            ];
        }
    }
}

/// What a device function that failed to compile leaves in place of its module: the names
/// kernels and host code use (`f::NODE`, `f::__ptx_inline`, ...), empty, so that a caller
/// reports nothing more than the function's own errors (the crate does not build anyway).
pub fn stub(ident: &syn::Ident, vis: &syn::Visibility) -> TokenStream {
    let no_inline = crate::link::replay::emit("inl", &quote::format_ident!("__ptx_inline"), &syn::parse_quote!(pub), &quote!(#ident), &crate::link::info::Info::NoInline);
    quote! {
        #[doc(hidden)]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals, dead_code)]
        #vis mod #ident {
            pub const SYMBOL: &str = "";
            pub const PTX: &str = "";
            #[doc(hidden)]
            pub const __PATH: &str = "";
            #[doc(hidden)]
            pub static NODE: ::ptx_runtime::__private::FnNode = ::ptx_runtime::__private::FnNode {
                symbol: "", prototype: "", body: "", callees: &[], isa: ::ptx_runtime::__private::Isa::ABI_CALLS, files: &[], file_refs: &[], dwarf: "", dwarf_refs: &[],
            };
            #no_inline
        }
    }
}
