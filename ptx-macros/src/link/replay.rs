//! Replay macros: how a definition makes itself known to bodies compiled elsewhere.
//!
//! ```text
//! #[doc(hidden)] #[macro_export]
//! macro_rules! __ptx_repr_Foo_<hash> {
//!     (@ptx_fetch $($t:tt)*) => { ::ptx_runtime::__private::fetch_next! { { INFO } $($t)* } };
//! }
//! #[doc(hidden)] <vis> use __ptx_repr_Foo_<hash> as Foo;
//! ```
//!
//! `#[macro_export]` names share the crate root, so the name carries a hash of the item's
//! tokens, its position and a per-compilation counter.

use super::info::{self, Info};
use proc_macro2::{Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::{format_ident, quote};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A crate-unique name for the replay of `ident`.
pub(crate) fn unique_name(prefix: &str, ident: &Ident, tokens: &TokenStream) -> Ident {
    let mut h = DefaultHasher::new();
    tokens.to_string().hash(&mut h);
    let start = ident.span().start();
    (start.line, start.column).hash(&mut h);
    COUNTER.fetch_add(1, Ordering::Relaxed).hash(&mut h);
    let name = ident.to_string();
    format_ident!("__ptx_{}_{}_{:x}", prefix, name.strip_prefix("r#").unwrap_or(&name), h.finish())
}

/// The replay macro for `ident` (a struct, union or device function) with `info`.
pub fn emit(prefix: &str, ident: &Ident, vis: &syn::Visibility, item_tokens: &TokenStream, info: &Info) -> TokenStream {
    emit_with(prefix, ident, vis, item_tokens, info, false)
}


/// The replay of a `#[device_fn]` kernels may inline: fetched for a kernel (the chain's state
/// is `@kernel ...`), it has the chain fetch `f::__ptx_inline` next, under the path the kernel
/// names `f` by, so the kernel learns whether to inline in the same round
/// (`front::inline_call`). Fetched for a device function it is the plain replay: a device
/// function does not inline by default, and waiting for the module of a function that calls it
/// back would never end.
pub fn emit_device_fn(ident: &Ident, vis: &syn::Visibility, item_tokens: &TokenStream, info: &Info) -> TokenStream {
    emit_with("fn", ident, vis, item_tokens, info, true)
}

/// The replay of a method kernels may inline, as [`emit_device_fn`]'s: fetched for a kernel by
/// `m::Vec3__dot__…`, the chain fetches `m::Vec3__dot__…::__ptx_inline` next, the module the
/// method's last round leaves beside the replay (`expand::method::inline_module`).
pub fn emit_inlinable_method(ident: &Ident, vis: &syn::Visibility, item_tokens: &TokenStream, info: &Info) -> TokenStream {
    emit_with("method", ident, vis, item_tokens, info, true)
}

fn emit_with(prefix: &str, ident: &Ident, vis: &syn::Visibility, item_tokens: &TokenStream, info: &Info, inline_for_kernels: bool) -> TokenStream {
    let name = unique_name(prefix, ident, item_tokens);
    let body = dollar_crate(info::write(info));
    let d = Punct::new('$', Spacing::Alone);
    let kernel_arm = inline_for_kernels.then(|| {
        quote! {
            (@ptx_fetch ([#d (#d p:tt)*]) { #d (#d rest:tt)* } [#d (#d fin:tt)*] {@kernel #d (#d state:tt)*} #d (#d t:tt)*) => {
                ::ptx_runtime::__private::fetch_next! { { #body } ([#d (#d p)*]) { ([#d (#d p)* :: __ptx_inline] [#d (#d p)* :: __ptx_inline]) #d (#d rest)* } [#d (#d fin)*] {@kernel #d (#d state)*} #d (#d t)* }
            };
        }
    });
    quote! {
        #[doc(hidden)]
        #[macro_export]
        #[allow(non_local_definitions)] // a DeviceRepr struct may be declared inside a fn
        macro_rules! #name {
            #kernel_arm
            (@ptx_fetch #d (#d t:tt)*) => {
                ::ptx_runtime::__private::fetch_next! { { #body } #d (#d t)* }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #name as #ident;
    }
}

/// A path starting with `crate` names the defining crate: in a macro body that is `$crate`.
/// Only a path's first segment is rewritten (`crate` followed by `::`, not after `::`); the
/// `crate` of a visibility (`pub(crate)`, `pub(in crate::m)`) stays, since `$crate` is no
/// visibility.
pub(crate) fn dollar_crate(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) if id == "crate" && starts_path(&tokens, i) => {
                out.push(TokenTree::Punct(Punct::new('$', Spacing::Alone)));
                out.push(TokenTree::Ident(Ident::new("crate", id.span())));
            }
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), dollar_crate(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether the `crate` at `i` begins a path: `::` follows, no `::` precedes, and it is not
/// the path of `pub(in crate::m)`.
fn starts_path(tokens: &[TokenTree], i: usize) -> bool {
    let colon = |j: usize, joint: bool| {
        matches!(tokens.get(j), Some(TokenTree::Punct(p)) if p.as_char() == ':' && (p.spacing() == Spacing::Joint) == joint)
    };
    let path_sep_after = colon(i + 1, true) && colon(i + 2, false);
    let path_sep_before = i >= 2 && colon(i - 2, true) && colon(i - 1, false);
    let after_in = i >= 1 && matches!(&tokens[i - 1], TokenTree::Ident(p) if p == "in");
    path_sep_after && !path_sep_before && !after_in
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_crate_becomes_dollar_crate() {
        assert_eq!(dollar_crate(quote!([crate::a::B])).to_string(), "[$ crate :: a :: B]");
        assert_eq!(dollar_crate(quote!([*const crate::B])).to_string(), "[* const $ crate :: B]");
        assert_eq!(dollar_crate(quote!([other::crate_x])).to_string(), "[other :: crate_x]");
        assert_eq!(dollar_crate(quote!(pub(crate) fn f(x: crate::T) {})).to_string(), "pub (crate) fn f (x : $ crate :: T) { }");
        assert_eq!(dollar_crate(quote!(pub(in crate::m) fn f() {})).to_string(), "pub (in crate :: m) fn f () { }");
    }
}
