//! Tables defined outside the body: `const LUT: [u8; 16] = [...]` or `static TABLE: [f32; 64]`
//! indexed at run time (`LUT[i]`).
//!
//! The macro never sees the item (rustc evaluates it), so the table's element type comes from
//! the context, as for scalar constants, and a compile-time check in the table's declaration
//! makes sure it is the item's (see `lower::statics`). The table becomes initialized `.const`
//! data of the module, named by its path; its length is `LUT.len()`, evaluated by rustc.

use super::hir::{Expr, ExprKind};
use super::infer::VarKind;
use super::ty::{Len, Ty};
use super::Checker;
use quote::quote;
use std::rc::Rc;

impl<'a> Checker<'a> {
    /// `base` indexed: an outside constant of a type not known yet is a table (an array whose
    /// element type the context gives). Any other base is returned as it is.
    pub fn table_base(&mut self, base: Expr) -> Expr {
        let ExprKind::Const(tokens) = &base.kind else { return base };
        if !matches!(self.shallow(&base.ty), Ty::Var(_)) {
            return base;
        }
        let elem = self.var(VarKind::General);
        let ty = Ty::Array { elem: Rc::new(elem), len: Len::Const(quote!((#tokens).len())) };
        self.expect(base.span, &base.ty, &ty);
        Expr { ty, ..base }
    }

    /// An assignment to an outside path (`COUNTER += 1`, `TABLE[i] = x`): a `static mut`, which
    /// device code cannot have.
    pub fn static_write_error(&mut self, place: &Expr) -> bool {
        let mut root = place;
        while let ExprKind::Index { base, .. } | ExprKind::Field(base, _) = &root.kind {
            root = base;
        }
        if !matches!(root.kind, ExprKind::Const(_)) {
            return false;
        }
        self.errors.at(place.span, "`static mut` is not supported in device code: a static is one copy for every thread of every block, so plain writes race; write to a buffer passed in (`&mut [T]`), with `ptx_runtime::device::atomic` where threads share an element");
        true
    }
}
