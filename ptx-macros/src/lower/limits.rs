//! Values too big for registers. The lowering keeps every local value in registers (one per
//! scalar leaf) unless it is an array indexed at run time; a value of millions of leaves
//! (`let a: [f32; 1 << 32];`, a copy of a struct with a huge array field) would exhaust the
//! compiler's memory, so it is an error before lowering starts.

use super::place::visit_block;
use super::Lowerer;
use crate::front::hir::ExprKind;
use crate::front::ty::{Len, Ty};
use proc_macro2::Span;

/// The most registers one value may take (arrays literals hold at most 4096 elements).
const MAX_REGS: u64 = 1 << 16;

impl Lowerer<'_, '_> {
    /// Reports the first local or temporary value over [`MAX_REGS`]; whether there was one.
    pub fn oversized(&mut self) -> bool {
        let cx = self.cx;
        let mut found: Option<(Span, Ty)> = None;
        for local in &cx.body.locals {
            if !local.in_memory && found.is_none() && self.regs(&local.ty) > MAX_REGS {
                found = Some((local.span, self.ty(&local.ty)));
            }
        }
        visit_block(&cx.body.block, &mut |e| {
            // A local's storage was checked above (or is `.local` memory).
            if found.is_none() && !matches!(e.kind, ExprKind::Local(_)) && self.regs(&e.ty) > MAX_REGS {
                found = Some((e.span, self.ty(&e.ty)));
            }
        });
        let Some((span, ty)) = found else { return false };
        self.error(span, format!("a value of type `{ty}` takes more than {MAX_REGS} registers: device code keeps local values in registers; keep large data in shared memory or a buffer and work on it element by element"));
        true
    }

    /// Registers a value of type `ty` takes (saturating).
    fn regs(&self, ty: &Ty) -> u64 {
        match self.ty(ty) {
            Ty::Array { elem, len: Len::Known(n) } => n.saturating_mul(self.regs(&elem)),
            Ty::Tuple(ts) => ts.iter().fold(0, |a, t| a.saturating_add(self.regs(t))),
            Ty::Struct(def) => def.fields.iter().fold(0, |a, f| a.saturating_add(self.regs(&f.ty))),
            Ty::Vector { lanes, .. } => lanes as u64,
            _ => 2,
        }
    }
}
