//! `flat_map(|x| inner)` and `flatten()`: a loop inside the chain's loop. The closure's body
//! (for `flatten`, the item itself) is a chain of its own (a slice, array, range, chunks, with
//! adapters); the stages after `flat_map` and the consumer run in the inner loop. The chain's
//! own `break`s (`take`, `find`, `any`...) and a `for` body's leave both loops: they break a
//! labeled block around them (`Gen::exit`).

use super::expr::strip;
use super::iter::{Gen, Item};
use super::Checker;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::visit_mut::VisitMut;

/// A loop inside the chain's loop: what the enclosing trip does before it and its header.
pub struct Nest {
    pub top: Vec<TokenStream>,
    pub body: Vec<TokenStream>,
    pub header: TokenStream,
}

/// The trip of the outermost loop, with the loops inside it (`content` is the innermost
/// trip), and the label the outermost loop keeps: a `for` loop's own label goes on the
/// innermost loop, whose trips are the items (so `continue 'l` goes to the next item).
pub fn nested(label: Option<TokenStream>, nest: Vec<Nest>, mut content: TokenStream) -> (Option<TokenStream>, TokenStream) {
    if nest.is_empty() {
        return (label, content);
    }
    let mut label = label;
    for n in nest.into_iter().rev() {
        let (top, body, header) = (n.top, n.body, n.header);
        let l = label.take();
        content = quote!(#(#top)* #(#body)* #l #header { #content });
    }
    (None, content)
}

impl<'a> Checker<'a> {
    /// The inner loop is written as a `for` over the closure's body (its parameter bound just
    /// before), compiled when the generated code is checked, where the parameter is in scope;
    /// the stages after `flat_map` are its body.
    pub(super) fn flat_map(&mut self, g: &mut Gen, item: Item, f: Option<&syn::Expr>, span: Span) -> Option<Item> {
        let (binds, inner) = match f.map(strip) {
            Some(syn::Expr::Closure(c)) if c.inputs.len() == 1 => (self.bind_item(&c.inputs[0], &item, None), c.body.to_token_stream()),
            Some(_) => {
                self.errors.at(span, "`flat_map` takes a closure written here whose body is an iterator over a slice, an array or a range (`|row| row.iter()`, `|y| (0..w).map(move |x| (x, y))`)");
                return None;
            }
            None if !matches!(item, Item::Tup(_)) => (Vec::new(), item.value()),
            None => {
                self.errors.at(span, "`flatten` here takes items that are slices or arrays; write `flat_map(|x| ...)`");
                return None;
            }
        };
        let fi = g.fresh("fi");
        let header = quote_spanned!(g.span=> for #fi in (#inner));
        let mut outer_body = std::mem::take(&mut g.body);
        outer_body.extend(binds);
        let outer_top = std::mem::take(&mut g.top);
        g.nest.push(Nest { top: outer_top, body: outer_body, header });
        g.one_to_one = false;
        if g.exit.is_none() {
            g.exit = Some(syn::Lifetime::new(&format!("'{}_exit", g.p), span));
        }
        Some(Item::Val(fi))
    }
}

/// A `for` body inside a chain with loops inside: its plain `break`s (outside loops of its own)
/// and its `break 'label`s leave the whole chain (`exit`); its `continue`s go to the next item.
pub fn relabel_breaks(body: &syn::Block, exit: &syn::Lifetime, label: Option<&syn::Lifetime>) -> syn::Block {
    let mut b = body.clone();
    let mut r = Breaks { exit: exit.clone(), label: label.cloned(), depth: 0 };
    r.visit_block_mut(&mut b);
    b
}

struct Breaks {
    exit: syn::Lifetime,
    label: Option<syn::Lifetime>,
    depth: usize,
}

impl VisitMut for Breaks {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Break(b) => {
                let ours = match &b.label {
                    None => self.depth == 0,
                    Some(l) => self.label.as_ref() == Some(l),
                };
                if ours {
                    b.label = Some(self.exit.clone());
                }
                syn::visit_mut::visit_expr_break_mut(self, b);
            }
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                self.depth += 1;
                syn::visit_mut::visit_expr_mut(self, e);
                self.depth -= 1;
            }
            // A closure's `break`s are its own (and an error there).
            syn::Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}
