//! `core::mem::swap` and `core::mem::replace` on places (locals, their fields and elements,
//! slice elements). They need no address: they are the assignments they stand for
//! (`(a, b) = (b, a)`; `{ let old = a; a = v; old }`), so the locals stay in registers.

use super::hir::{Block, Expr, ExprKind, LetPat, Stmt};
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;

impl<'a> Checker<'a> {
    /// `mem::swap(&mut a, &mut b)` and `mem::replace(&mut a, v)`.
    pub fn mem_call(&mut self, name: &str, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Expr {
        let args: Vec<&syn::Expr> = args.iter().collect();
        let place_of = |e: &syn::Expr| match super::expr::strip(e) {
            syn::Expr::Reference(r) if r.mutability.is_some() => Some((*r.expr).clone()),
            _ => None,
        };
        match (name, args.as_slice()) {
            ("swap", [a, b]) => {
                let (Some(a), Some(b)) = (place_of(a), place_of(b)) else {
                    return self.error(span, "write `mem::swap(&mut a, &mut b)` with the two places");
                };
                let (pa, pb) = (self.expr(&a), self.expr(&b));
                self.check_place(&pa, true);
                self.check_place(&pb, true);
                self.expect(pb.span, &pa.ty, &pb.ty);
                let (va, vb) = (self.expr(&a), self.expr(&b));
                let ty = Ty::Tuple(vec![pa.ty.clone(), pb.ty.clone()]);
                let lhs = Expr { kind: ExprKind::Tuple(vec![pa, pb]), ty: ty.clone(), span };
                let rhs = Expr { kind: ExprKind::Tuple(vec![vb, va]), ty, span };
                Expr { kind: ExprKind::Assign(Box::new(lhs), Box::new(rhs)), ty: Ty::Unit, span }
            }
            ("replace", [a, v]) => {
                let Some(a) = place_of(a) else {
                    return self.error(span, "write `mem::replace(&mut place, value)`");
                };
                let old = self.expr(&a);
                let ty = old.ty.clone();
                self.push_scope();
                let tmp = self.declare("__ptx_old", ty.clone(), false, span);
                self.pop_scope();
                let place = self.expr(&a);
                self.check_place(&place, true);
                let value = self.expr(v);
                self.expect(value.span, &ty, &value.ty);
                let stmts = vec![
                    Stmt::Let { pat: LetPat::Bind(tmp), init: Some(old), span },
                    Stmt::Expr(Expr { kind: ExprKind::Assign(Box::new(place), Box::new(value)), ty: Ty::Unit, span }),
                ];
                let tail = Expr { kind: ExprKind::Local(tmp), ty: ty.clone(), span };
                Expr { kind: ExprKind::Block(Block { stmts, tail: Some(Box::new(tail)) }), ty, span }
            }
            _ => self.error(span, format!("`mem::{name}` is not supported in device code; `mem::swap(&mut a, &mut b)` and `mem::replace(&mut a, v)` are")),
        }
    }
}
