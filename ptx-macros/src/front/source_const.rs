//! Constants defined outside the body (`pub const TILE: usize = 16;` in the module), read from
//! the source.
//!
//! A macro sees only its item, so such a constant used to reach the PTX as a piece rustc
//! evaluates (`mov.u64 %rd13, 16;`) that the optimiser could not read: `for k in 0..TILE` was a
//! loop of unknown length, `t * TILE + tx` 64-bit arithmetic of an unknown, and the passes had
//! to reason about `TILE` symbolically (`ir::const_range`, `ir::narrow_cmp`). Where the source
//! index ([`source_index::const_value`]) finds the constant's definition and evaluates its
//! initializer, the body reads it as the literal it is, with its declared type.
//!
//! What the macro read is an assumption, and rustc checks it: the expansion asserts, at compile
//! time, that the path written in the body is the value and type the macro compiled with
//! (`const _: () = assert!(TILE == 16usize, ..);` in the generated module). A wrong read (a
//! kernel written by a `macro_rules!` defined in another module, whose `TILE` is another) is a
//! compile error at the constant, never a kernel computing with the wrong value.
//!
//! Read only in the body of the item being expanded (not in a generic function's instance or
//! an inlined replay, written elsewhere), and only in free functions without generic
//! parameters, where no parameter (`const N: usize`, an impl's) can hide a module's constant.
//! Everything else keeps the piece.

use super::hir::{Expr, ExprKind};
use super::ty::Ty;
use super::Checker;
use crate::syntax::first_token::FirstToken;
use crate::syntax::source_index::{self, ConstValue};
use ptx_abi::Scalar;
use quote::{quote_spanned, ToTokens};
use std::cell::Cell;

thread_local! {
    static READS: Cell<bool> = const { Cell::new(false) };
}

/// Whether the item a round compiles may read constants from its source: a free function
/// without generic parameters (see the module's documentation).
pub fn set_item(readable: bool) {
    READS.with(|r| r.set(readable));
}

impl Checker<'_> {
    /// The value of the outside constant `p` names, as a literal of its type, when its
    /// definition is read from the source.
    pub fn source_const(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        let span = p.path.first_span();
        let c = self.read_const(&p.path, span)?;
        let kind = match c.ty {
            Scalar::Bool => ExprKind::Bool(c.value != 0),
            _ => ExprKind::Int(c.value as u128),
        };
        Some(Expr { kind, ty: Ty::Scalar(c.ty), span })
    }

    /// An array length written with outside constants (`{ TILE * TILE }`), evaluated.
    pub fn source_len(&mut self, e: &syn::Expr) -> Option<u64> {
        let (v, ty) = self.eval_source(e, Some(Scalar::U64))?;
        (ty == Scalar::U64).then(|| u64::try_from(v).ok()).flatten()
    }

    /// The constant `path` names at `span`, read from the source, with rustc's check of it.
    fn read_const(&mut self, path: &syn::Path, span: proc_macro2::Span) -> Option<ConstValue> {
        if !READS.with(Cell::get) || path.segments.iter().any(|s| !s.arguments.is_none()) || !super::plain_call::in_item_body(span) {
            return None;
        }
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let c = source_index::const_value(span, &segs)?;
        // The value as a literal of the constant's type, for rustc's check (no check, no read).
        let value: proc_macro2::TokenStream = match c.ty {
            Scalar::Bool => (c.value != 0).to_string().parse().ok()?,
            _ => format!("{}{}", c.value, c.ty_name).parse().ok()?,
        };
        let written = path.to_token_stream().to_string();
        if self.assumed.insert(written.clone()) {
            let rewritten = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: path.clone() }));
            let message = format!(
                "`{written}` is not the constant defined at {}:{} that the device code was compiled with (`{}: {} = {}`): the kernel's macro read that definition from the source. Define the kernel in the module that defines the constant, or the constant inside the kernel's body",
                source_index::display(&c.file),
                c.line,
                segs.last().map(String::as_str).unwrap_or_default(),
                c.ty_name,
                c.value,
            );
            self.checks.push(quote_spanned!(span=> const _: () = ::core::assert!(#rewritten == #value, #message);));
        }
        Some(c)
    }

    /// `const_eval` over an expression of the body, its paths read from the source.
    fn eval_source(&mut self, e: &syn::Expr, want: Option<Scalar>) -> Option<(i128, Scalar)> {
        let mut paths = Vec::new();
        collect_paths(e, &mut paths);
        let mut values = Vec::new();
        for p in paths {
            let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(c) = self.read_const(p, p.first_span()) {
                values.push((segs, (c.value, c.ty)));
            }
        }
        crate::syntax::const_eval::eval(e, want, &mut |segs| values.iter().find(|(s, _)| s == segs).map(|(_, v)| *v))
    }
}

fn collect_paths<'e>(e: &'e syn::Expr, out: &mut Vec<&'e syn::Path>) {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => out.push(&p.path),
        syn::Expr::Paren(p) => collect_paths(&p.expr, out),
        syn::Expr::Group(g) => collect_paths(&g.expr, out),
        syn::Expr::Unary(u) => collect_paths(&u.expr, out),
        syn::Expr::Cast(c) => collect_paths(&c.expr, out),
        syn::Expr::Binary(b) => {
            collect_paths(&b.left, out);
            collect_paths(&b.right, out);
        }
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => {
            if let syn::Stmt::Expr(inner, None) = &b.block.stmts[0] {
                collect_paths(inner, out);
            }
        }
        _ => {}
    }
}
