//! `&x` / `&mut x` of a local (or of its field or element), and `&value` of a temporary.
//!
//! nvcc gives a local whose address is taken a slot in the function's local memory and passes
//! its generic address (`cvta.local`) to a `__noinline__` callee. So does the body compiler: the
//! local is marked to live in `.local` (as an array indexed at run time is, `lower::place`), its
//! reads and writes are `ld.local`/`st.local`, and the reference is a `.local` address, converted
//! to a generic one where it is passed or stored. Locals whose address is never taken stay in
//! registers; `mem::swap`/`mem::replace` and `&mut self` methods never take one (`local_ref.rs`,
//! copy-in/copy-out). A temporary (`&(a + b)`) is spilled to a fresh `.local` slot.

use super::hir::{Expr, ExprKind, LocalId};
use super::ty::Ty;
use super::Checker;
use proc_macro2::Span;
use std::rc::Rc;

impl<'a> Checker<'a> {
    /// The address of `place`, a place in registers or a value (not memory behind a pointer).
    pub fn local_address(&mut self, place: Expr, mutable: bool, span: Span) -> Expr {
        if let Some(id) = self.register_root(&place) {
            // Its layout is needed for its slot.
            let t = self.local(id).ty.clone();
            self.describe(&t, span);
            self.mark_dynamic_index(id);
        }
        let ty = Ty::Ptr { mutable, reference: true, pointee: Rc::new(place.ty.clone()) };
        Expr { kind: ExprKind::AddrOf(Box::new(place)), ty, span }
    }

    /// The local whose registers hold `e`: a local, a field of one, an element of a local array.
    fn register_root(&self, e: &Expr) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(id) => Some(*id),
            ExprKind::Field(b, _) => self.register_root(b),
            ExprKind::Index { base, .. } if matches!(self.shallow(&base.ty), Ty::Array { .. }) => self.register_root(base),
            _ => None,
        }
    }
}
