//! The fetch chain.
//!
//! ```text
//! A! { @ptx_fetch ([A]) { ([B] [B]) ([C] [C]) } [::ptx_runtime::__private::compile] {STATE} {FOUND} }
//! ```
//!
//! Each replay hands its description to `ptx_runtime::__private::fetch_next!`, which appends
//! `([A] {info})` to FOUND and invokes the next path (`B!`), or, at the end, the compiler
//! macro with `{STATE} {FOUND}`. STATE is the item being compiled, carried along unchanged
//! (its tokens keep their spans, so later errors still point into the user's code).

use super::info::{self, Info};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

/// The chain that fetches `paths` and then compiles `state` with `found` plus what they say.
pub fn fetch(paths: &[TokenStream], state: TokenStream, found: TokenStream) -> TokenStream {
    let (first, rest) = match paths.split_first() {
        Some(x) => x,
        None => return quote!(::ptx_runtime::__private::compile! { {#state} {#found} }),
    };
    let rest = rest.iter().map(|p| quote!(([#p] [#p])));
    quote! {
        #first! { @ptx_fetch ([#first]) { #(#rest)* } [::ptx_runtime::__private::compile] {#state} {#found} }
    }
}

/// What the fetches found: each replay's path and description.
pub type Found = Vec<(TokenStream, Info)>;

/// Splits the compiler macro's input into STATE and the found `(path, info)` pairs (with
/// FOUND's own tokens, to carry into a further round).
pub fn parse_input(input: TokenStream) -> Option<(TokenStream, TokenStream, Found)> {
    let mut it = input.into_iter();
    let state = info::group(it.next()?, Delimiter::Brace)?;
    let found_tokens = info::group(it.next()?, Delimiter::Brace)?;
    let mut found = Vec::new();
    for entry in found_tokens.clone() {
        let entry = info::group(entry, Delimiter::Parenthesis)?;
        let mut e = entry.into_iter();
        let path = info::group(e.next()?, Delimiter::Bracket)?;
        let body = info::group(e.next()?, Delimiter::Brace)?;
        found.push((path, info::parse(body)?));
    }
    Some((state, found_tokens, found))
}

/// STATE: `@kernel|@device_fn (args) item...`
pub fn state(kind: &str, args: &TokenStream, item: &TokenStream) -> TokenStream {
    let kind = proc_macro2::Ident::new(kind, proc_macro2::Span::call_site());
    quote!(@#kind (#args) #item)
}

pub fn parse_state(state: TokenStream) -> Option<(String, TokenStream, TokenStream)> {
    let mut it = state.into_iter();
    match it.next()? {
        TokenTree::Punct(p) if p.as_char() == '@' => {}
        _ => return None,
    }
    let kind = match it.next()? {
        TokenTree::Ident(i) => i.to_string(),
        _ => return None,
    };
    let args = info::group(it.next()?, Delimiter::Parenthesis)?;
    Some((kind, args, it.collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_input_round_trip() {
        let s = state("kernel", &quote!(sm = 90), &quote!(fn k() {}));
        let (kind, args, item) = parse_state(s.clone()).unwrap();
        assert_eq!(kind, "kernel");
        assert_eq!(args.to_string(), "sm = 90");
        assert_eq!(item.to_string(), "fn k () { }");
        let input = quote!({#s} { ([a::B] { @api sync_threads }) });
        let (st, _, found) = parse_input(input).unwrap();
        assert_eq!(st.to_string(), s.to_string());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0.to_string(), "a :: B");
    }

    #[test]
    fn chain_starts_at_the_first_path() {
        let t = fetch(&[quote!(a::A), quote!(B)], quote!(S), quote!()).to_string();
        assert!(t.starts_with("a :: A ! { @ ptx_fetch ([a :: A]) { ([B] [B]) }"), "{t}");
    }
}
