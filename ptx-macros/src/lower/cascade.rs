//! Which lowering errors to report. The lowering goes on after an error (the failed expression
//! leaves a placeholder value), so every rule the body breaks is reported at once. Within one
//! statement only its first error is (`Lowerer::error`: a value refused where it is made is
//! not refused again where it is stored); of the rest, what only follows from an earlier error
//! is dropped here:
//!
//! - an internal error after a user-facing one (a placeholder, say a local bound by a failed
//!   statement, reached a place that expects a real value);
//! - the same message at the same place (an expression lowered twice).
//!
//! A statement using a local that a failed `let` bound has failed too (`use_local`).

use crate::front::hir::{LetPat, LocalId};
use crate::report::Errors;

pub fn drop_consequences(errors: &mut Errors, from: usize) {
    errors.retain_from(from, |kept, e| {
        if kept.is_empty() {
            return true;
        }
        let msg = e.to_string();
        if msg.starts_with("internal:") {
            return false;
        }
        let at = format!("{:?}", e.span());
        !kept.iter().any(|k| k.to_string() == msg && format!("{:?}", k.span()) == at)
    });
}

impl<'a, 'e> super::Lowerer<'a, 'e> {
    /// A `let` whose statement failed: its locals hold placeholders.
    pub(super) fn failed_binding(&mut self, pat: &LetPat) {
        match pat {
            LetPat::Bind(id) => {
                self.failed_locals.insert(*id);
            }
            LetPat::Wild => {}
            LetPat::Fields(fields) => fields.iter().for_each(|(_, p)| self.failed_binding(p)),
        }
    }

    /// A use of a local: where a failed `let` bound it, the statement using it has failed too
    /// (what it would report about the placeholder follows from that error).
    pub(super) fn use_local(&mut self, id: LocalId) {
        if self.failed_locals.contains(&id) {
            self.stmt_failed = true;
        }
    }
}
