//! The function's header: `.visible .entry sym(params)` or `.visible .func (ret) sym(params)`.
//!
//! Declarations follow §2.3 through `Piece::Param`, whose ABI class rustc supplies from the
//! parameter's type (`<T as ParamType>::ABI`), so aliases and types from other crates are
//! declared by the same rules as primitives. The function's symbol is the constant `__SYMBOL`
//! in the generated module.

use crate::syntax::attrs::LaunchBounds;
use crate::syntax::signature::FnKind;
use crate::text::Text;
use proc_macro2::TokenStream;
use quote::quote;

/// Parameter and return types as they can be named inside the generated module.
pub struct SigTypes {
    pub params: Vec<syn::Type>,
    pub ret: Option<syn::Type>,
}

pub fn abi_of(ty: &syn::Type) -> TokenStream {
    quote!(<#ty as ::ptx_runtime::__private::ParamType>::ABI)
}

fn param_decl(ty: &syn::Type, site: TokenStream, index: usize) -> TokenStream {
    let abi = abi_of(ty);
    quote!(::ptx_runtime::__private::Piece::Param {
        abi: #abi,
        site: ::ptx_runtime::__private::Site::#site,
        symbol: __SYMBOL,
        index: #index,
    })
}

/// `.visible .entry sym(params)` or `.visible .func (ret) sym(params)`, without a body.
pub fn prototype(kind: FnKind, types: &SigTypes) -> Text {
    let mut t = Text::new();
    match kind {
        FnKind::Kernel => {
            t.str(".visible .entry ");
        }
        FnKind::Device => {
            t.str(".visible .func ");
            if let Some(ret) = &types.ret {
                t.str("(").piece(param_decl(ret, quote!(Return), 0)).str(") ");
            }
        }
    }
    let site = match kind {
        FnKind::Kernel => quote!(Entry),
        FnKind::Device => quote!(Func),
    };
    t.piece(quote!(::ptx_runtime::__private::Piece::Str(__SYMBOL))).str("(");
    for (i, ty) in types.params.iter().enumerate() {
        t.str(if i == 0 { "\n\t" } else { ",\n\t" });
        t.piece(param_decl(ty, site.clone(), i));
    }
    t.str(if types.params.is_empty() { ")" } else { "\n)" });
    t
}

/// `.extern .func (ret) sym(params)`: the declaration of a function another module defines
/// (a CUDA C++ `__device__` function, `expand::extern_cpp`), its parameters as nvcc declares
/// them for the same C++ signature.
pub fn extern_prototype(types: &SigTypes) -> Text {
    let mut t = Text::new();
    t.str(".extern .func ");
    if let Some(ret) = &types.ret {
        t.str("(").piece(param_decl(ret, quote!(Return), 0)).str(") ");
    }
    t.piece(quote!(::ptx_runtime::__private::Piece::Str(__SYMBOL))).str("(");
    for (i, ty) in types.params.iter().enumerate() {
        t.str(if i == 0 { "\n\t" } else { ",\n\t" });
        t.piece(param_decl(ty, quote!(Func), i));
    }
    t.str(if types.params.is_empty() { ")" } else { "\n)" });
    t
}

/// A kernel's launch-bound directives, as nvcc writes them after the parameter list
/// (`__launch_bounds__(256, 2)` is `.maxntid 256, 1, 1` and `.minnctapersm 2`).
pub fn launch_directives(b: &LaunchBounds) -> String {
    let mut s = String::new();
    if let Some([x, y, z]) = b.block {
        s.push_str(&format!("\n.reqntid {x}, {y}, {z}"));
    }
    if let Some(n) = b.max_threads {
        s.push_str(&format!("\n.maxntid {n}, 1, 1"));
    }
    if let Some(m) = b.min_blocks {
        s.push_str(&format!("\n.minnctapersm {m}"));
    }
    s
}
