//! What full debug information (`#[kernel(debug)]`, `#[device_fn(debug)]`, the `debug-info`
//! feature) needs from the lowering: where each local ends up, so the DWARF can describe it
//! (`expand::debuginfo`, `back::ptx::dwarf`), as nvcc `-G` keeps every variable somewhere a
//! debugger can read it.
//!
//! - A local bound to a constant also gets a register of its own holding it, for the debugger
//!   only (the lowering goes on using the immediate, so constant indices stay constant; an
//!   unrolled loop's variable moves each trip's value into the same register).
//! - The `.local` and `.shared` arrays are named per function (`__local_<tag>_<n>`): the DWARF
//!   locates an array by its symbol (`DW_OP_addr`, which ptxas turns into a frame offset for
//!   `.local`), and the functions of one module each declare their own.

use super::value::Val;
use super::Lowerer;
use crate::ir::{Arg, Reg};
use std::collections::HashMap;

/// Each local's final value (indexed by `LocalId`; a constant's register in place of the
/// constant), the array symbols of registers, and the lexical block (`func.scopes`) each
/// local was bound in (absent: the function's body).
pub struct Vars {
    pub slots: Vec<Option<Val>>,
    pub syms: HashMap<Reg, String>,
    pub scopes: HashMap<usize, usize>,
}

/// Whether the value holds an immediate anywhere.
pub fn has_imm(v: &Val) -> bool {
    match v {
        Val::S(Arg::Imm(_)) | Val::Ptr(Arg::Imm(_), _) => true,
        Val::Agg(xs) => xs.iter().any(has_imm),
        _ => false,
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    /// What the DWARF describes, once the body is lowered.
    pub(super) fn debug_vars(&mut self) -> Vars {
        let mut slots = std::mem::take(&mut self.slots);
        for (id, regs) in self.debug_consts.drain() {
            slots[id] = Some(regs);
        }
        Vars { slots, syms: std::mem::take(&mut self.debug_syms), scopes: std::mem::take(&mut self.debug_local_scope) }
    }

    /// Under `debug`, entering a Rust block other than the body that binds variables opens a
    /// lexical block spanning its statements; returns the scope to restore after it.
    pub(super) fn debug_enter(&mut self, b: &crate::front::hir::Block) -> Option<usize> {
        let outer = self.debug_scope;
        if !self.cx.debug {
            return outer;
        }
        if !self.debug_body_seen {
            self.debug_body_seen = true;
            return outer;
        }
        use crate::front::hir::Stmt;
        if !b.stmts.iter().any(|s| matches!(s, Stmt::Let { .. })) {
            return outer;
        }
        let span_of = |s: &Stmt| match s {
            Stmt::Let { span, .. } => *span,
            Stmt::Expr(e) => e.span,
        };
        let first = b.stmts.first().map(span_of);
        let last = b.tail.as_ref().map(|t| t.span).or_else(|| b.stmts.last().map(span_of));
        let (Some(first), Some(last)) = (first, last) else { return outer };
        let mut files = self.b.func.files.clone();
        let Some(at) = files.loc(first) else { return outer };
        if files.names.len() != self.b.func.files.names.len() {
            return outer;
        }
        let end = last.end();
        let scope = crate::ir::loc::Scope { parent: outer, file: at.file, start: (at.line, at.col), end: (end.line as u32, end.column as u32 + 1) };
        self.b.func.scopes.push(scope);
        self.debug_scope = Some(self.b.func.scopes.len() - 1);
        outer
    }

    /// Under `debug`, notes the lexical block local `id` is bound in.
    pub(super) fn debug_bound(&mut self, id: usize) {
        if let Some(s) = self.debug_scope {
            self.debug_local_scope.insert(id, s);
        }
    }

    /// A fresh name for a function-scope array: `<prefix><n>`, or under `debug`
    /// `<prefix><tag>_<n>` with a tag of the function's source position.
    pub(super) fn array_name(&mut self, prefix: &str) -> String {
        let n = self.b.fresh();
        if !self.cx.debug {
            return format!("{prefix}{n}");
        }
        let span = self.cx.body.locals.first().map_or(self.span, |l| l.span);
        let at = crate::ir::loc::Files::default().loc(span);
        let key = format!("{}:{:?}:{:?}", span.file(), at.map(|l| (l.line, l.col)), self.cx.body.locals.first().map(|l| &l.name));
        // FNV-1a: stable across compilers and runs.
        let tag = key.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193));
        format!("{prefix}{tag:08x}_{n}")
    }

    /// Under `debug`, a register holding the constant `v` bound to local `id`, where the
    /// debugger reads it (see the module's notes).
    pub(super) fn debug_constant(&mut self, id: usize, ty: &crate::front::ty::Ty, v: &Val) {
        if !self.cx.debug || !has_imm(v) {
            return;
        }
        let regs = match self.debug_consts.get(&id) {
            Some(r) => r.clone(),
            None => self.fresh(ty, Some(v)),
        };
        self.move_into(&regs, v, None);
        self.debug_consts.insert(id, regs);
    }

    /// Under `debug`, a mutable local's register copied from one holding an array's address
    /// (`let mut s = shared_array()`) names the same array.
    pub(super) fn debug_copy(&mut self, from: &Val, to: &Val) {
        if let (Val::Ptr(Arg::Reg(a), _), Val::Ptr(Arg::Reg(b), _)) = (from, to) {
            if let Some(name) = self.debug_syms.get(a).cloned() {
                self.debug_syms.insert(*b, name);
            }
        }
    }

    /// Under `debug`, records that `r` holds the address of the array `name`.
    pub(super) fn debug_array(&mut self, r: Reg, name: String) {
        if self.cx.debug {
            self.debug_syms.insert(r, name);
        }
    }
}
