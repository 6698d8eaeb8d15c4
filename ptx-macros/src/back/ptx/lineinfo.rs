//! `.loc` directives: each instruction's Rust location, written where it changes (as nvcc
//! `-lineinfo` does). The file number is a `Piece::FileRef`: the function's own number, which
//! the module renumbers into its `.file` table (`ptx_abi::lineinfo`).

use crate::ir::loc::Loc;
use crate::text::Text;
use quote::quote;

/// Writes `.loc` directives into a body, each only where the location changes.
#[derive(Default)]
pub struct LocWriter {
    last: Option<Loc>,
    /// How many file numbers were written (the `N` of `ptx_abi::text::file_refs`).
    pub refs: usize,
}

impl LocWriter {
    /// `\t.loc\t<file> <line> <column>` before an instruction at `loc`, unless the previous
    /// one says the same. An instruction without a location stays under the previous one.
    pub fn at(&mut self, t: &mut Text, loc: Option<Loc>) {
        let Some(l) = loc else { return };
        if self.last == Some(l) {
            return;
        }
        self.last = Some(l);
        self.refs += 1;
        let file = l.file;
        t.str("\t.loc\t");
        t.piece(quote!(::ptx_runtime::__private::Piece::FileRef(#file)));
        t.str(&format!(" {} {}\n", l.line, l.col));
    }
}
