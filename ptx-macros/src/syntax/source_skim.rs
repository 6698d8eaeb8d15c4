//! A source file's tokens without the function bodies that [`super::source_index`] does not
//! read.
//!
//! The index needs a file's items (names, attributes, signatures, `use` trees, modules,
//! impls) and where blocks define items of their own, never what a function computes. Parsing
//! every body with syn costs most of the index's time (an unoptimized syn, as cargo builds
//! proc macros by default: 87 ms for the 3300-line crate of `cargo xtask bench-compile`,
//! against 22 ms to lex it), so the lexed tokens are skimmed first: a function's body that
//! mentions no item keyword anywhere inside it becomes `{}` (same span), and syn parses the
//! rest. A body that does mention one (`fn helper` inside a kernel, `use`, or just `*const T`)
//! is kept and skimmed in turn, so every block that defines items is still there.
//!
//! What is taken as a body: the first brace group after `fn` and before a `;` at the same
//! level. Where that is a const argument in the signature (`-> Foo<{ N }>`) it is that group
//! that empties, which the index does not read either; the body is then kept whole.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// Keywords that can begin an item; a body holding none of them defines no item.
const ITEM_KEYWORDS: &[&str] =
    &["fn", "struct", "enum", "union", "trait", "impl", "mod", "use", "static", "const", "type", "macro_rules", "extern"];

/// `tokens` with each function body that defines no items emptied.
pub fn skim(tokens: TokenStream) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    let mut body_next = false;
    for tree in tokens {
        let tree = match tree {
            TokenTree::Ident(ref i) if i == "fn" => {
                body_next = true;
                tree
            }
            TokenTree::Punct(ref p) if p.as_char() == ';' => {
                body_next = false;
                tree
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && body_next => {
                body_next = false;
                let inner = if mentions_items(&g.stream()) { skim(g.stream()) } else { TokenStream::new() };
                TokenTree::Group(with_stream(&g, inner))
            }
            TokenTree::Group(g) => TokenTree::Group(with_stream(&g, skim(g.stream()))),
            other => other,
        };
        out.push(tree);
    }
    out.into_iter().collect()
}

/// Whether an item keyword occurs anywhere in `tokens`.
fn mentions_items(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => ITEM_KEYWORDS.iter().any(|k| i == k),
        TokenTree::Group(g) => mentions_items(&g.stream()),
        _ => false,
    })
}

/// `g`'s delimiters and span around `stream`.
fn with_stream(g: &Group, stream: TokenStream) -> Group {
    let mut new = Group::new(g.delimiter(), stream);
    new.set_span(g.span());
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skimmed(src: &str) -> String {
        skim(src.parse().unwrap()).to_string()
    }

    #[test]
    fn bodies_without_items_empty_and_the_rest_stays() {
        assert_eq!(skimmed("fn a(x: u32) -> u32 { let y = x + 1; y }"), "fn a (x : u32) -> u32 { }");
        // A body that defines an item keeps it, and its own bodies are skimmed.
        assert_eq!(skimmed("fn k() { fn helper() { 1 } helper(); }"), "fn k () { fn helper () { } helper () ; }");
        // Modules, impls, traits, use trees and struct bodies are not bodies.
        assert_eq!(skimmed("mod m { use a::{b, c}; }"), "mod m { use a :: { b , c } ; }");
        assert_eq!(skimmed("impl S { fn f(&self) { self.0 } }"), "impl S { fn f (& self) { } }");
        assert_eq!(skimmed("trait T { fn f(); fn g() { 2 } }"), "trait T { fn f () ; fn g () { } }");
        assert_eq!(skimmed("struct S { f: fn(u32), g: u32 }"), "struct S { f : fn (u32) , g : u32 }");
        // `fn` in a pointer type ends at `;`: the next item's braces are not taken.
        assert_eq!(skimmed("type F = fn(); struct S { a: u8 }"), "type F = fn () ; struct S { a : u8 }");
    }
}
