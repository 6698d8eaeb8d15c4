//! `#[kernel] fn k(...)` expands to the function and
//!
//! ```text
//! mod k {
//!     pub const PTX: &str;    // complete module: header, reachable device functions, `.entry`
//!     pub const ENTRY: &str;  // the `.entry` symbol
//!     pub static KERNEL: Kernel;
//!     pub fn launch(stream, config, args...) -> Result<()>;  // `unsafe` with raw pointers
//! }
//! ```

use super::{abi_checks, dyn_smem_decl, isa_tokens, launch, node_list, string_nodes, symbol_const, target_tokens, Compiled};
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(c: Compiled) -> TokenStream {
    let item = &c.item;
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let symbol = symbol_const(&c);
    let abi = abi_checks(&c.types);
    let checks = &c.checks;
    let target = target_tokens(&c.args);
    let isa = isa_tokens(c.isa);
    let funcs = node_list(&c);
    let dyn_smem = dyn_smem_decl();
    let strings = string_nodes(&c);
    let prototype = c.prototype.pieces();
    // The entry's file numbers are the module's (its files come first): written as numbers.
    let (shared, body) = c.body.with_file_numbers().shared_pieces("__PTX_PIECE_");
    let launcher = launch::launcher(&c);
    let files = super::lineinfo::files(&c);
    let debug = c.args.debug;
    let dwarf = c.dwarf.as_ref().map(|(unit, _)| super::debuginfo::kernel_sections(unit, &funcs).pieces()).unwrap_or_default();
    let bounds = bounds_tokens(&c);
    let doc = format!("PTX and launcher for the kernel [`{ident}`](fn@{ident}).");
    quote! {
        #[doc = #doc]
        #[allow(unused_imports, non_snake_case, non_upper_case_globals)]
        #vis mod #ident {
            use super::*;
            #symbol
            #strings
            #shared

            /// The kernel's `.entry` symbol.
            pub const ENTRY: &str = __SYMBOL;

            const __PTX_FILES: &[&str] = #files;

            /// The complete PTX module: header, every device function the kernel reaches, and the
            /// `.entry`.
            pub const PTX: &str = ::ptx_runtime::__private::ptx_text![
                ::ptx_runtime::__private::Piece::Header { target: #target, isa: #isa, funcs: #funcs, debug: #debug },
                #dyn_smem,
                ::ptx_runtime::__private::Piece::Funcs { files: __PTX_FILES, roots: #funcs },
                ::ptx_runtime::__private::Piece::Str("\n"),
                #(#prototype,)*
                ::ptx_runtime::__private::Piece::Str("\n"),
                #(#body,)*
                ::ptx_runtime::__private::Piece::Str("\n"),
                ::ptx_runtime::__private::Piece::Files { files: __PTX_FILES, roots: #funcs },
                #(#dwarf,)*
            ];

            /// The kernel as the runtime sees it: its module is loaded once per device.
            pub static KERNEL: ::ptx_runtime::Kernel = ::ptx_runtime::Kernel::new(PTX, ENTRY)#bounds;

            #launcher

            #abi
            #(#checks)*
        }
    }
}

/// `.with_bounds(...)`: the declared block shape and thread limit, which every launch is
/// checked against (the PTX's `.reqntid`/`.maxntid` say the same to the driver).
fn bounds_tokens(c: &Compiled) -> TokenStream {
    let b = &c.args.bounds;
    if b.block.is_none() && b.max_threads.is_none() {
        return quote!();
    }
    let block = match b.block {
        Some([x, y, z]) => quote!(::core::option::Option::Some(::ptx_runtime::Dim3::new(#x, #y, #z))),
        None => quote!(::core::option::Option::None),
    };
    let max = match b.max_threads {
        Some(n) => {
            let n = n as u64;
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    quote!(.with_bounds(::ptx_runtime::LaunchBounds { block: #block, max_threads: #max }))
}
