//! The tokens of the macros a body may use, visited as the syntax they hold, so that a rewrite
//! of the body before checking (`local_alias`) reaches them: `assert!`, `debug_assert!`,
//! `assert_eq!` and the other assertion and panic macros, `printf!` (expressions separated by
//! commas), `matches!` (an expression, a pattern and a guard) and `ptx_asm!` (the operands'
//! types and expressions). Other macros' tokens are left as they are.
//!
//! A bare `assert!(cond)` panics with `assertion failed: cond` as written, so where the rewrite
//! changes `cond` the message is written out from the condition before it (with `{`/`}`
//! doubled, as an explicit message is read).

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// The macros whose tokens are expressions separated by commas.
const EXPR_LISTS: &[&str] = &[
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "panic", "unreachable", "todo", "unimplemented", "printf",
];

/// Visits the syntax inside `m` with `v`, writing the result back into its tokens.
pub fn visit_macro_mut<V: VisitMut>(v: &mut V, m: &mut syn::Macro) {
    let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    let rewritten = match name.as_str() {
        n if EXPR_LISTS.contains(&n) => expr_list(v, n, &m.tokens),
        "matches" => matches(v, &m.tokens),
        "ptx_asm" => Some(asm(v, m.tokens.clone())),
        _ => None,
    };
    if let Some(t) = rewritten {
        m.tokens = t;
    }
}

fn expr_list<V: VisitMut>(v: &mut V, name: &str, tokens: &TokenStream) -> Option<TokenStream> {
    let mut args = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens.clone()).ok()?;
    let before = args.first().cloned();
    for a in args.iter_mut() {
        v.visit_expr_mut(a);
    }
    let bare_assert = matches!(name, "assert" | "debug_assert") && args.len() == 1;
    if let (true, Some(cond)) = (bare_assert, before) {
        if cond.to_token_stream().to_string() != args[0].to_token_stream().to_string() {
            let text = format!("assertion failed: {}", super::pretty::expr(&cond)).replace('{', "{{").replace('}', "}}");
            let lit = syn::LitStr::new(&text, cond.span());
            let c = &args[0];
            return Some(quote_spanned!(cond.span()=> #c, #lit));
        }
    }
    Some(args.to_token_stream())
}

/// `matches!(value, pattern if guard)`.
fn matches<V: VisitMut>(v: &mut V, tokens: &TokenStream) -> Option<TokenStream> {
    let parser = |input: syn::parse::ParseStream| {
        let value: syn::Expr = input.parse()?;
        let comma: syn::Token![,] = input.parse()?;
        let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
        let guard = if input.peek(syn::Token![if]) {
            let i: syn::Token![if] = input.parse()?;
            Some((i, input.parse::<syn::Expr>()?))
        } else {
            None
        };
        let trailing: Option<syn::Token![,]> = input.parse()?;
        Ok((value, comma, pat, guard, trailing))
    };
    let (mut value, comma, mut pat, mut guard, trailing) = parser.parse2(tokens.clone()).ok()?;
    v.visit_expr_mut(&mut value);
    v.visit_pat_mut(&mut pat);
    if let Some((_, g)) = &mut guard {
        v.visit_expr_mut(g);
    }
    let guard = guard.map(|(i, g)| quote!(#i #g));
    Some(quote!(#value #comma #pat #guard #trailing))
}

/// `ptx_asm!("..", in(T) x, out(T) y)`: each operand's type and expression; the template and
/// anything that does not parse stay as written.
fn asm<V: VisitMut>(v: &mut V, tokens: TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut segment: Vec<TokenTree> = Vec::new();
    for t in tokens {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                flush(&mut segment, &mut out, v);
                out.extend([t]);
            }
            _ => segment.push(t),
        }
    }
    flush(&mut segment, &mut out, v);
    out
}

/// One operand of `ptx_asm!` (the tokens between two commas) visited into `out`.
fn flush<V: VisitMut>(segment: &mut Vec<TokenTree>, out: &mut TokenStream, v: &mut V) {
    let seg = std::mem::take(segment);
    if let [dir @ TokenTree::Ident(_), TokenTree::Group(g), rest @ ..] = seg.as_slice() {
        if g.delimiter() == Delimiter::Parenthesis && !rest.is_empty() {
            if let (Ok(mut ty), Ok(mut expr)) = (syn::parse2::<syn::Type>(g.stream()), syn::parse2::<syn::Expr>(rest.iter().cloned().collect())) {
                v.visit_type_mut(&mut ty);
                v.visit_expr_mut(&mut expr);
                let mut group = proc_macro2::Group::new(Delimiter::Parenthesis, ty.to_token_stream());
                group.set_span(g.span());
                out.extend(quote!(#dir #group #expr));
                return;
            }
        }
    }
    out.extend(seg);
}
