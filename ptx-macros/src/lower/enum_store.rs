//! Storing a data-carrying enum (see `front::enum_data`): the tag, then each variant's fields
//! under a predicate that the tag is that variant (`@%p st ...`), so the fields of the variant
//! held are the only ones written. A tag known at compile time (a value just built) stores that
//! variant's fields alone, with no predicate.
//!
//! `st.param` cannot be predicated: an enum argument or return value is stored so into a
//! `.local` copy first, then copied to the `.param` space in units of its alignment.

use super::value::{int_type, Space, Val};
use super::Lowerer;
use crate::front::ty::{StructDef, Ty};
use crate::ir::{Arg, Cmp, Imm, Mem, Opcode, RegClass, StateSpace, Type};
use proc_macro2::Span;

impl<'a, 'e> Lowerer<'a, 'e> {
    /// An enum as an argument or return value at `base` in the `.param` space.
    pub fn store_enum_param(&mut self, base: &Arg, ty: &Ty, v: &Val, span: Span) {
        let Some(l) = ty.layout() else { return };
        let copy = self.spill(v, ty, span);
        let (t, class, unit) = match l.align {
            1 => (Type::B8, RegClass::B16, 1),
            2 => (Type::B16, RegClass::B16, 2),
            4 => (Type::B32, RegClass::B32, 4),
            _ => (Type::B64, RegClass::B64, 8),
        };
        for o in (0..l.size).step_by(unit) {
            let r = self.b.op1(Opcode::Ld(Mem::plain(StateSpace::Local, t)), class, vec![Arg::mem(copy.clone(), o as i64)]);
            self.b.op0(Opcode::St(Mem::plain(StateSpace::Param, t)), vec![Arg::mem(base.clone(), o as i64), Arg::Reg(r)]);
        }
    }

    pub fn store_enum(&mut self, addr: &Arg, space: Space, offset: i64, def: &StructDef, v: &Val, span: Span) {
        let tag_ty = self.ty(&def.fields[0].ty);
        let tag = v.field(0);
        self.store(addr, space, offset, &tag_ty, &tag, span);
        let Ty::Scalar(s) = tag_ty else { return };
        let tag_arg = tag.arg();
        for k in 0..def.fields.len() - 1 {
            let vty = self.ty(&def.fields[1 + k].ty);
            if matches!(&vty, Ty::Struct(d) if d.fields.is_empty()) {
                continue;
            }
            let fields = v.field(1 + k);
            match &tag_arg {
                Arg::Imm(Imm::Int(t)) => {
                    if *t == def.tag(k) as i64 {
                        self.store(addr, space, offset, &vty, &fields, span);
                    }
                }
                a => {
                    let p = self.b.op1(Opcode::Setp(Cmp::Eq, int_type(s)), RegClass::Pred, vec![a.clone(), Arg::imm(def.tag(k) as i64)]);
                    let mark = self.b.mark();
                    self.store(addr, space, offset, &vty, &fields, span);
                    self.b.guard_from(mark, p);
                }
            }
        }
    }
}
