//! `Index` and `IndexMut` on the device.
//!
//! Their functions return references into the receiver, which on the device is a value in
//! registers (see `method`). So `index` becomes a getter returning the element itself, and
//! `index_mut` a setter: a `&mut self` method (copy-in/copy-out) that takes the value to store.
//! The rewrite applies to what the function returns: its tail, `if`/`match` branches and
//! `return`s.

use crate::report::Errors;
use proc_macro2::Span;
use syn::visit_mut::VisitMut;

/// The value `index_mut`'s device function stores.
const INDEX_VALUE: &str = "__ptx_index_value";

/// `-> &T` becomes `-> T` (`Self::Output` is already the impl's `type Output`), and each
/// returned `&place` becomes `place`.
pub fn index_by_value(f: &mut syn::ImplItemFn, errors: &mut Errors) -> bool {
    match &mut f.sig.output {
        syn::ReturnType::Type(_, t) if matches!(**t, syn::Type::Reference(_)) => {
            if let syn::Type::Reference(r) = &**t {
                let elem = (*r.elem).clone();
                **t = elem;
            }
        }
        o => {
            errors.error(&*o, "`index` returns `&Self::Output`, with `type Output = T;` in the same impl");
            return false;
        }
    }
    rewrite_returns(&mut f.block, |place| place.clone());
    true
}

/// `-> &mut T` becomes a last parameter `T` and no result, and each returned `&mut place`
/// becomes `{ place = value; }`: `v[i] = x` is `v = V::index_mut(v, i, x)`. `T` is written
/// out: `Self::Output` is defined in the `Index` impl, which this one's macro cannot see.
pub fn index_mut_as_setter(f: &mut syn::ImplItemFn, errors: &mut Errors) -> bool {
    let elem = match &f.sig.output {
        syn::ReturnType::Type(_, t) => match &**t {
            syn::Type::Reference(r) if !matches!(&*r.elem, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Output")) => (*r.elem).clone(),
            _ => {
                errors.error(t, "a device `index_mut` names its element type: write `-> &mut f32` (the type `Index::Output` is), not `&mut Self::Output`");
                return false;
            }
        },
        o => {
            errors.error(o, "`index_mut` returns `&mut T`");
            return false;
        }
    };
    let value = syn::Ident::new(INDEX_VALUE, Span::call_site());
    f.sig.inputs.push(syn::parse_quote!(#value: #elem));
    f.sig.output = syn::ReturnType::Default;
    rewrite_returns(&mut f.block, |place| syn::parse_quote!({ #place = #value; }));
    true
}

/// Replaces each `&place` the block returns with `with(place)`.
fn rewrite_returns(block: &mut syn::Block, with: impl FnMut(&syn::Expr) -> syn::Expr) {
    let mut r = Returned(with);
    r.block(block);
    r.visit_block_mut(block);
}

struct Returned<F>(F);

impl<F: FnMut(&syn::Expr) -> syn::Expr> Returned<F> {
    fn tail(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Reference(r) => *e = (self.0)(&r.expr),
            syn::Expr::Paren(p) => self.tail(&mut p.expr),
            syn::Expr::Block(b) => self.block(&mut b.block),
            syn::Expr::Unsafe(b) => self.block(&mut b.block),
            syn::Expr::If(i) => {
                self.block(&mut i.then_branch);
                if let Some((_, els)) = &mut i.else_branch {
                    self.tail(els);
                }
            }
            syn::Expr::Match(m) => m.arms.iter_mut().for_each(|a| self.tail(&mut a.body)),
            _ => {}
        }
    }

    fn block(&mut self, b: &mut syn::Block) {
        if let Some(syn::Stmt::Expr(e, None)) = b.stmts.last_mut() {
            self.tail(e);
        }
    }
}

impl<F: FnMut(&syn::Expr) -> syn::Expr> VisitMut for Returned<F> {
    fn visit_expr_return_mut(&mut self, r: &mut syn::ExprReturn) {
        if let Some(e) = &mut r.expr {
            self.tail(e);
        }
        syn::visit_mut::visit_expr_return_mut(self, r);
    }

    // Closures and nested items return for themselves.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
