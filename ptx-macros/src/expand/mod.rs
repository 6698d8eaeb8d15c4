//! What each macro expands to.
//!
//! Both attributes keep the function itself — its body stays plain Rust that rustc type-checks
//! and the host can call — and add a module of the same name (`mod k`) holding the PTX
//! constants. The module imports its parent's names, and the signature's types are rewritten to
//! be nameable from inside it (see `syntax::rewrite`).

mod derive;
mod device_fn;
mod kernel;
mod launch;

pub use derive::derive_device_repr;

use crate::back::writer::SigTypes;
use crate::report::Errors;
use crate::syntax::attrs::{self, Args};
use crate::syntax::rewrite::for_inner_module;
use crate::syntax::signature::{FnKind, Signature};
use crate::{check, lower};
use proc_macro2::TokenStream;
use quote::quote;

pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    function(FnKind::Kernel, args, item)
}

pub fn device_fn(args: TokenStream, item: TokenStream) -> TokenStream {
    function(FnKind::Device, args, item)
}

/// Everything the item-specific expansions need.
pub struct Compiled {
    pub item: syn::ItemFn,
    pub sig: Signature,
    pub args: Args,
    pub no_mangle: bool,
    pub types: SigTypes,
    pub prototype: crate::text::Text,
    pub body: crate::text::Text,
}

fn function(kind: FnKind, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let msg = format!("{} applies to a free function (`fn name(params) {{ body }}`)", kind.attr());
            return syn::Error::new_spanned(item, msg).to_compile_error();
        }
    };
    let mut errors = Errors::new();
    let args = attrs::parse_args(args, &mut errors);
    let no_mangle = attrs::take_no_mangle(&mut item.attrs);
    check::ascii_name(&item.sig.ident, &mut errors);
    let sig = Signature::parse(&item.sig, kind, &mut errors);
    let body = lower::body(&item.block, &sig, &mut errors);
    if !errors.is_empty() {
        // Keep the function so rustc goes on checking the rest of the crate against it, less
        // what rustc would report a second time.
        item.sig.variadic = None;
        return quote!(#errors #item);
    }
    let types = SigTypes {
        params: sig.params.iter().map(|p| for_inner_module(&p.syn_ty)).collect(),
        ret: sig.ret.as_ref().map(|(ty, _)| for_inner_module(ty)),
    };
    let compiled = Compiled {
        prototype: crate::back::writer::prototype(kind, &types),
        body: crate::back::writer::body(&body, &types),
        item,
        sig,
        args,
        no_mangle,
        types,
    };
    match kind {
        FnKind::Kernel => kernel::expand(compiled),
        FnKind::Device => device_fn::expand(compiled),
    }
}

/// `const __SYMBOL: &str`: the plain name under `#[no_mangle]`, else the mangled module path.
fn symbol_const(c: &Compiled) -> TokenStream {
    let piece = if c.no_mangle {
        let name = c.item.sig.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
        quote!(::ptx_runtime::__private::Piece::Str(#name))
    } else {
        quote!(::ptx_runtime::__private::Piece::Mangled(::core::module_path!()))
    };
    quote!(const __SYMBOL: &str = ::ptx_runtime::__private::ptx_text![#piece];)
}

/// One `const` per parameter and return type checking §2.3 notes C and D on the type rustc
/// resolved, spanned at the type so a violation behind an alias is reported there.
fn abi_checks(types: &SigTypes) -> TokenStream {
    types
        .params
        .iter()
        .chain(types.ret.iter())
        .map(|ty| {
            quote::quote_spanned! {syn::spanned::Spanned::span(ty)=>
                const _: () = ::ptx_runtime::__private::check_param(<#ty as ::ptx_runtime::__private::ParamType>::ABI);
            }
        })
        .collect()
}

fn target_tokens(args: &Args) -> TokenStream {
    let sm = args.target.sm;
    let suffix = match args.target.suffix {
        Some(c) => quote!(::core::option::Option::Some(#c)),
        None => quote!(::core::option::Option::None),
    };
    quote!(::ptx_runtime::__private::Target { sm: #sm, suffix: #suffix })
}
