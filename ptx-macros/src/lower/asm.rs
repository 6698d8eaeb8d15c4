//! `ptx_asm!`: the template with its operands as registers, in its own `{ }` scope.
//! `out` operands get fresh registers that are written back to their places after the
//! instruction; `inout` operands start with the place's value.

use super::value::{class_of, Val};
use super::Lowerer;
use crate::front::hir::{Asm, AsmDir};
use crate::front::ty::Ty;
use crate::ir::{Arg, InstKind};
use proc_macro2::Span;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn asm(&mut self, a: &Asm, span: Span) {
        let mut operands = Vec::new();
        let mut outputs = Vec::new();
        for op in &a.operands {
            let Ty::Scalar(s) = self.ty(&op.ty) else {
                operands.push(Arg::imm(0));
                continue;
            };
            match op.dir {
                AsmDir::In => {
                    let v = self.expr(&op.expr);
                    let arg = if s == ptx_abi::Scalar::Bool { Arg::Reg(self.pred(&v)) } else { v.arg() };
                    operands.push(arg);
                }
                AsmDir::Out | AsmDir::InOut => {
                    let r = self.reg(class_of(s));
                    if op.dir == AsmDir::InOut {
                        let cur = self.expr(&op.expr);
                        self.move_into(&Val::S(Arg::Reg(r)), &cur, None);
                    }
                    operands.push(Arg::Reg(r));
                    outputs.push((r, &op.expr));
                }
            }
        }
        self.b.kind(InstKind::Asm { template: a.template.clone(), operands });
        for (r, place) in outputs {
            self.assign(place, Val::S(Arg::Reg(r)));
        }
        let _ = span;
    }
}
