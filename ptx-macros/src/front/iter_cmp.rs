//! The comparators of `min_by` / `max_by`: a closure of two items whose body compares them
//! with `partial_cmp(..).unwrap()` (or `.expect(..)`), `total_cmp` or `cmp`. Device code has no
//! `Ordering` value, and these consumers only ask whether the first is greater than the second,
//! so the comparison is read from the syntax and compiled to `>`: after a NaN test that panics as
//! the `unwrap` would for `partial_cmp`, and on the order-preserving integer image of the bits
//! for `total_cmp` (`-0.0 < 0.0`, NaNs at the ends, as Rust's).

use crate::syntax::first_token::FirstToken;
use super::expr::strip;
use super::iter::{Gen, Item};
use super::Checker;
use proc_macro2::TokenStream;
use quote::quote_spanned;

enum Kind {
    /// `partial_cmp(..).unwrap()` / `.expect(msg)`: the panic message.
    Partial(TokenStream),
    Total,
    Ord,
}

/// `|a, b| lhs.METHOD(rhs)...`: the parameters, the two sides and the comparison.
fn read(f: &syn::Expr) -> Option<(&syn::ExprClosure, syn::Expr, syn::Expr, Kind)> {
    let syn::Expr::Closure(c) = strip(f) else { return None };
    if c.inputs.len() != 2 {
        return None;
    }
    let mut body = strip(&c.body);
    // `{ a.total_cmp(b) }`
    while let syn::Expr::Block(b) = body {
        match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => body = strip(e),
            _ => return None,
        }
    }
    let syn::Expr::MethodCall(m) = body else { return None };
    let side = |e: &syn::Expr| match strip(e) {
        // `&b`: the item itself (an item is held as its value).
        syn::Expr::Reference(r) => (*r.expr).clone(),
        e => e.clone(),
    };
    let name = m.method.to_string();
    match (name.as_str(), m.args.len()) {
        ("total_cmp" | "cmp", 1) => {
            let kind = if name == "cmp" { Kind::Ord } else { Kind::Total };
            Some((c, side(&m.receiver), side(&m.args[0]), kind))
        }
        ("unwrap" | "expect", n) if n == (name == "expect") as usize => {
            let syn::Expr::MethodCall(inner) = strip(&m.receiver) else { return None };
            if inner.method != "partial_cmp" || inner.args.len() != 1 {
                return None;
            }
            let span = m.first_span();
            let msg = match m.args.first() {
                Some(a) => quote_spanned!(span=> #a),
                None => quote_spanned!(span=> "called `Option::unwrap()` on a `None` value"),
            };
            Some((c, side(&inner.receiver), side(&inner.args[0]), Kind::Partial(msg)))
        }
        _ => None,
    }
}

impl<'a> Checker<'a> {
    /// `cmp(&a, &b) == Greater` for the comparator `f` of `min_by`/`max_by`, as an expression
    /// (a block; written where `a` already holds an item, so its type is known).
    pub(super) fn greater(&mut self, g: &mut Gen, f: &syn::Expr, a: &syn::Ident, b: &syn::Ident) -> Option<TokenStream> {
        let sp = self.natural.span;
        let Some((c, lhs, rhs, kind)) = read(f) else {
            self.errors.error(f, "`min_by` / `max_by` take a closure comparing its two items here: `|a, b| a.partial_cmp(b).unwrap()`, `|a, b| a.total_cmp(b)` or `|a, b| a.cmp(b)` (the sides may be any expressions of `a` and `b`); for another order, use `min_by_key` / `max_by_key`");
            return None;
        };
        let mut binds = Vec::new();
        for (p, v) in c.inputs.iter().zip([a, b]) {
            binds.extend(self.bind_item(p, &Item::Val(v.clone()), None));
        }
        let (l, r) = (g.fresh("l"), g.fresh("r"));
        let test = match kind {
            Kind::Partial(msg) => quote_spanned!(sp=> if #l != #l || #r != #r { panic!(#msg); } #l > #r),
            Kind::Ord => quote_spanned!(sp=> #l > #r),
            Kind::Total => quote_spanned!(sp=> __ptx_total_key!(#l) > __ptx_total_key!(#r)),
        };
        Some(quote_spanned!(sp=> { #(#binds)* let #l = #lhs; let #r = #rhs; #test }))
    }

    /// `__ptx_total_key!(x)`: for a float `x`, a signed integer ordered as `x.total_cmp` orders
    /// (the bits, with the magnitude bits flipped for negatives).
    pub fn total_key(&mut self, m: &syn::Macro) -> super::hir::Expr {
        let span = m.first_span();
        let Ok(x) = m.parse_body::<syn::Expr>() else { return self.error(span, "internal: bad total-order marker") };
        let probe = self.expr(&x);
        let (int, uint, shift) = match self.infer.resolve(&self.peel_refs(&probe.ty)).to_string().as_str() {
            "f32" => (quote_spanned!(span=> i32), quote_spanned!(span=> u32), 31u32),
            "f64" => (quote_spanned!(span=> i64), quote_spanned!(span=> u64), 63u32),
            other => return self.error(span, format!("`total_cmp` compares `f32` or `f64` values, not `{other}`")),
        };
        let tokens = quote_spanned! {span=> {
            let __ptx_tk = (#x).to_bits() as #int;
            __ptx_tk ^ ((((__ptx_tk >> #shift) as #uint) >> 1) as #int)
        }};
        self.generated(tokens, span)
    }
}
