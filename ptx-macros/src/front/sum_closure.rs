//! The methods of `Option` and `Result` that take closures (`map`, `and_then`, `unwrap_or_else`,
//! `map_or`, `filter`, `map_err`, ...), as the `match` each stands for.
//!
//! A closure written in the call is bound to a local first (`let f = |v| ...;`, so it is inlined
//! where the `match` calls it, `closure.rs`); a closure's name or a function's path is called as
//! it is. A plain argument (`map_or`'s default) is evaluated before the `match`, after the
//! receiver, as Rust evaluates a call's arguments.

use super::ty::SumKind;
use super::{Checker, Expr};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

impl<'a> Checker<'a> {
    pub fn sum_closure_method(&mut self, recv: Expr, kind: SumKind, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let opt = kind == SumKind::Option;
        let n = match name {
            "map_or" | "map_or_else" => 2,
            _ => 1,
        };
        if args.len() != n {
            return self.error(name_span, format!("`{name}` takes {n} argument(s)"));
        }
        self.natural.next += 1;
        let id = self.natural.next;
        // Each argument: a closure written here is bound to a local (and inlined where the
        // `match` calls it); `map_or`'s default is evaluated now, after the receiver.
        let mut prelude = Vec::new();
        let mut named = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let local = format_ident!("__ptx_sf{}_{}", id, i, span = span);
            let is_fn = i + 1 == n || name == "map_or_else";
            match super::expr::strip(a) {
                _ if !is_fn => {
                    prelude.push(quote_spanned!(span=> let #local = #a;));
                    named.push(quote!(#local));
                }
                syn::Expr::Closure(_) => {
                    prelude.push(quote_spanned!(span=> let #local = #a;));
                    named.push(quote!(#local));
                }
                syn::Expr::Path(p) => named.push(quote!(#p)),
                _ => return self.error(syn::spanned::Spanned::span(a), "pass a closure (`|x| ...`), a closure bound to a local or a function's path here"),
            }
        }
        let (f, g) = (named[0].clone(), named[n - 1].clone());
        let d = &named[0];
        let arms = match (name, opt) {
            ("map", true) => quote!(Some(v) => Some(#f(v)), None => None),
            ("map", false) => quote!(Ok(v) => Ok(#f(v)), Err(e) => Err(e)),
            ("map_err", false) => quote!(Ok(v) => Ok(v), Err(e) => Err(#f(e))),
            ("and_then", true) => quote!(Some(v) => #f(v), None => None),
            ("and_then", false) => quote!(Ok(v) => #f(v), Err(e) => Err(e)),
            ("or_else", true) => quote!(Some(v) => Some(v), None => #f()),
            ("or_else", false) => quote!(Ok(v) => Ok(v), Err(e) => #f(e)),
            ("unwrap_or_else", true) => quote!(Some(v) => v, None => #f()),
            ("unwrap_or_else", false) => quote!(Ok(v) => v, Err(e) => #f(e)),
            ("map_or", true) => quote!(Some(v) => #g(v), None => #d),
            ("map_or", false) => quote!(Ok(v) => #g(v), Err(_) => #d),
            ("map_or_else", true) => quote!(Some(v) => #g(v), None => #f()),
            ("map_or_else", false) => quote!(Ok(v) => #g(v), Err(e) => #f(e)),
            ("filter", true) => quote!(Some(v) => if #f(&v) { Some(v) } else { None }, None => None),
            ("is_some_and", true) => quote!(Some(v) => #f(v), None => false),
            ("is_ok_and", false) => quote!(Ok(v) => #f(v), Err(_) => false),
            ("is_none_or", true) => quote!(Some(v) => #f(v), None => true),
            ("is_err_and", false) => quote!(Ok(_) => false, Err(e) => #f(e)),
            ("ok_or_else", true) => quote!(Some(v) => Ok(v), None => Err(#f())),
            _ => return self.error(name_span, format!("no method `{name}` on `{}` in device code; write the `match` it stands for", kind.name())),
        };
        let arms = spell(arms, span);
        self.with_local(recv, span, |c, r| {
            let tokens = quote_spanned!(span=> { #(#prelude)* match #r { #arms } });
            c.generated(tokens, span)
        })
    }
}

/// `Some`/`None`/`Ok`/`Err` as `::core` paths (a user's own items of those names do not apply).
fn spell(t: TokenStream, span: Span) -> TokenStream {
    t.into_iter()
        .map(|tt| match &tt {
            proc_macro2::TokenTree::Ident(i) if i == "Some" || i == "None" => {
                quote_spanned!(span=> ::core::option::Option::#i)
            }
            proc_macro2::TokenTree::Ident(i) if i == "Ok" || i == "Err" => {
                quote_spanned!(span=> ::core::result::Result::#i)
            }
            proc_macro2::TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), spell(g.stream(), span));
                ng.set_span(g.span());
                quote!(#ng)
            }
            _ => quote!(#tt),
        })
        .collect()
}
