//! Local arrays whose length is a constant defined outside the body (`[0u32; BINS]`).
//!
//! The macro never sees `BINS`'s value (rustc evaluates it), so such an array cannot be held
//! in registers element by element: it always lives in `.local` memory, declared with a size
//! rustc computes (`.local .align A .b8 __local_N[<BINS * size>]`, an assembly piece), and is
//! filled by a loop whose trip count is the same constant. Its elements are read and written
//! through that address, checked against the constant length.

use super::value::{Space, Val};
use super::Lowerer;
use crate::front::hir::Expr;
use crate::ir::{Arg, Arith, Cmp, Mode, Opcode, RegClass, Term, Type};
use proc_macro2::{Span, TokenStream};
use quote::quote;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// `let a = [x; N]` with `N` an outside constant: the array's `.local` address, filled.
    pub fn const_len_array(&mut self, elem: &Expr, len: &TokenStream, span: Span) -> Val {
        let ety = self.ty(&elem.ty);
        let Some(l) = ety.layout() else {
            return self.error(span, format!("`{ety}` has no device layout"));
        };
        let v = self.expr(elem);
        if matches!(v, Val::Never) {
            return Val::Never;
        }
        let v = self.stabilize(v);
        let name = format!("__local_{}", self.b.fresh());
        let size = l.size as u64;
        let mut t = crate::text::Text::new();
        t.str(&format!(".local .align {} .b8 {name}[", l.align));
        t.piece(quote!(::ptx_runtime::__private::Piece::Dec(if (#len) as u64 * #size == 0 { 1 } else { (#len) as u64 * #size })));
        t.str("];");
        self.b.decl(t);
        let base = Arg::Reg(self.b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![Arg::named(name)]));
        // for (p = base, end = base + N * size; p < end; p += size) *p = v;
        let n = self.len_arg(&crate::front::ty::Len::Const(len.clone()));
        let bytes = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S64), RegClass::B64, vec![n, Arg::imm(size as i64)]);
        let end = self.b.op1(Opcode::arith(Arith::Add, Type::U64), RegClass::B64, vec![base.clone(), Arg::Reg(bytes)]);
        let p = self.reg(RegClass::B64);
        self.b.op_into(Opcode::Mov(Type::U64), p, vec![base.clone()]);
        let (head, body, exit) = (self.b.new_block(), self.b.new_block(), self.b.new_block());
        self.b.jump_to(head);
        let done = self.b.op1(Opcode::Setp(Cmp::Ge, Type::U64), RegClass::Pred, vec![Arg::Reg(p), Arg::Reg(end)]);
        self.b.terminate(Term::Branch { pred: done, negate: false, if_true: exit, if_false: body });
        self.b.switch_to(body);
        self.store(&Arg::Reg(p), Space::Local, 0, &ety, &v, span);
        self.b.op_into(Opcode::arith(Arith::Add, Type::U64), p, vec![Arg::Reg(p), Arg::imm(size as i64)]);
        self.b.jump_to(head);
        self.b.switch_to(exit);
        Val::Ptr(base, Space::Local)
    }

}
