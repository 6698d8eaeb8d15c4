//! `.loc` directives: each instruction's Rust location, written where it changes (as nvcc
//! `-lineinfo` does). The file number is a `Piece::FileRef`: the function's own number, which
//! the module renumbers into its `.file` table (`ptx_abi::lineinfo`).

use crate::ir::loc::Loc;
use crate::text::Text;

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
        t.file_ref(file);
        t.str(&format!(" {} {}\n", l.line, l.col));
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::loc::Loc;
    use crate::ir::{Arg, Builder, Opcode, RegClass, Term, Type};

    /// The text with each file number written as `F<n>`.
    fn plain(t: &crate::text::Text) -> String {
        t.pieces()
            .into_iter()
            .map(|p| {
                let call: syn::ExprCall = syn::parse2(p).expect("a piece");
                let arg = call.args.first().expect("one argument");
                match arg {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => format!("F{}", n.base10_digits()),
                    other => panic!("unexpected piece {}", quote::quote!(#other)),
                }
            })
            .collect()
    }

    #[test]
    fn a_loc_where_the_location_changes_and_before_terminators() {
        let mut b = Builder::new();
        let at = |file, line, col| Some(Loc { file, line, col });
        b.loc = at(1, 3, 5);
        let r = b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::imm(1)]);
        let s = b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::Reg(r)]);
        b.loc = at(2, 9, 1);
        b.op0(Opcode::BarSync, vec![Arg::Reg(s)]);
        // A loop: the back edge at the loop's line.
        let head = b.new_block();
        b.jump_to(head);
        b.loc = at(1, 4, 2);
        b.terminate(Term::Jump(head));
        let func = b.finish();
        let (text, refs) = super::super::body_with_locs(&func);
        let t = plain(&text);
        assert_eq!(refs, 3, "{t}");
        assert_eq!(t.matches(".loc\tF1 3 5\n").count(), 1, "one .loc for two instructions at one place: {t}");
        let bar = t.find("bar.sync").unwrap();
        assert!(t[..bar].ends_with("\t.loc\tF2 9 1\n\t"), "{t}");
        let back = t.find("bra.uni").unwrap();
        assert!(t[..back].ends_with("\t.loc\tF1 4 2\n\t"), "{t}");
    }

    #[test]
    fn spans_outside_a_compiler_have_no_location() {
        // The macros' unit tests parse strings: fallback spans, which name no file.
        let e: syn::Expr = syn::parse_str("a + b").unwrap();
        let mut files = crate::ir::loc::Files::default();
        assert_eq!(files.loc(syn::spanned::Spanned::span(&e)), None);
        assert!(files.names.is_empty());
    }
}
