//! Logic, shifts, bit fields, permutes, selection and address-space conversions.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use crate::exec::int;
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn bits(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let a = &i.args;
        match m.base {
            "and" | "or" | "xor" | "not" | "cnot" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let f: AluFn = match m.base {
                    "and" => int::and,
                    "or" => int::or,
                    "xor" => int::xor,
                    "not" => int::not,
                    _ => int::cnot,
                };
                // `and.pred p, !q, r` is not PTX; predicates are plain 0/1 registers here.
                self.alu(f, t.bits(), i, t, t)
            }
            "lop3" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 5)?;
                let Operand::Int(lut) = a[4] else { return self.error("lop3: immLut must be a constant") };
                Ok(Op::Alu {
                    f: int::lop3,
                    k: lut as u32 & 0xff,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], t)?,
                    c: self.src(&a[3], t)?,
                })
            }
            "shl" | "shr" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 3)?;
                let k = t.bits() | if t.signed() && m.base == "shr" { int::SIGNED } else { 0 };
                Ok(Op::Alu {
                    f: if m.base == "shl" { int::shl } else { int::shr },
                    k,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], T::U32)?,
                    c: Src::None,
                })
            }
            "shf" => {
                let right = m.take("r");
                m.take("l");
                let clamp = m.take("clamp");
                m.take("wrap");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let k = if right { int::ALT } else { 0 } | if clamp { int::SAT } else { 0 };
                self.alu(int::shf, k, i, t, T::B32)
            }
            "popc" | "clz" | "brev" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let f: AluFn = match m.base {
                    "popc" => int::popc,
                    "clz" => int::clz,
                    _ => int::brev,
                };
                self.alu(f, t.bits(), i, t, t)
            }
            "bfind" => {
                let sa = m.take("shiftamt");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::bfind, t.bits() | if t.signed() { int::SIGNED } else { 0 } | if sa { int::ALT } else { 0 }, i, t, t)
            }
            "fns" => {
                m.take("b32");
                self.args(i, 4)?;
                Ok(Op::Alu {
                    f: int::fns,
                    k: 0,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], T::B32)?,
                    b: self.src(&a[2], T::U32)?,
                    c: self.src(&a[3], T::S32)?,
                })
            }
            "bfe" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 4)?;
                Ok(Op::Alu {
                    f: int::bfe,
                    k: t.bits() | if t.signed() { int::SIGNED } else { 0 },
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], T::U32)?,
                    c: self.src(&a[3], T::U32)?,
                })
            }
            "bfi" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 5)?;
                Ok(Op::Alu4 {
                    f: int::bfi,
                    k: t.bits(),
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], t)?,
                    b: self.src(&a[2], t)?,
                    c: self.src(&a[3], T::U32)?,
                    e: self.src(&a[4], T::U32)?,
                })
            }
            "prmt" => {
                let mode = match m.take_any(&["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]) {
                    None => 0,
                    Some("f4e") => 1,
                    Some("b4e") => 2,
                    Some("rc8") => 3,
                    Some("ecl") => 4,
                    Some("ecr") => 5,
                    _ => 6,
                };
                m.take("b32");
                self.alu(int::prmt, mode, i, T::B32, T::B32)
            }
            "sad" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::sad, t.bits() | if t.signed() { int::SIGNED } else { 0 }, i, t, t)
            }
            "dp4a" | "dp2a" => {
                let hi = m.take("hi");
                m.take("lo");
                let ts = m.types();
                if ts.len() != 2 {
                    return unsupported(&i.opcode);
                }
                let k = ts[0].signed() as u32
                    | (ts[1].signed() as u32) << 1
                    | if m.base == "dp2a" { int::X2 } else { 0 }
                    | if hi { int::ALT } else { 0 };
                self.alu(int::dp, k, i, T::B32, T::B32)
            }
            "bmsk" | "szext" => {
                let clamp = m.take("clamp");
                m.take("wrap");
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                let k = if clamp { int::SAT } else { 0 } | if t.signed() { int::SIGNED } else { 0 };
                self.alu(if m.base == "bmsk" { int::bmsk } else { int::szext }, k, i, t, T::U32)
            }
            "selp" => {
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 4)?;
                let (c, neg) = self.pred_src(&a[3])?;
                if neg {
                    return self.error("selp: the predicate cannot be negated");
                }
                Ok(Op::Alu { f: int::selp, k: 0, d: self.dst(&a[0])?, d2: NOREG, a: self.src(&a[1], t)?, b: self.src(&a[2], t)?, c })
            }
            "slct" => {
                let ftz = m.take("ftz");
                let ts = m.types();
                if ts.len() != 2 {
                    return unsupported(&i.opcode);
                }
                self.args(i, 4)?;
                let k = if ts[1] == T::F32 { int::ALT } else { 0 } | if ftz { int::SAT } else { 0 };
                Ok(Op::Alu {
                    f: int::slct,
                    k,
                    d: self.dst(&a[0])?,
                    d2: NOREG,
                    a: self.src(&a[1], ts[0])?,
                    b: self.src(&a[2], ts[0])?,
                    c: self.src(&a[3], ts[1])?,
                })
            }
            "cvta" => {
                let to = m.take("to");
                let w = match m.space() {
                    Some(MemSpace::Global) | Some(MemSpace::Const) => 0,
                    Some(MemSpace::Shared) => 1,
                    Some(MemSpace::Local) => 2,
                    Some(MemSpace::KernelParam) => 3,
                    _ => return unsupported(&i.opcode),
                };
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.alu(int::cvta, w | if to { 4 } else { 0 } | t.bits() << 8, i, t, t)
            }
            "isspacep" => {
                let w = match m.space() {
                    Some(MemSpace::Global) => 0,
                    Some(MemSpace::Shared) => 1,
                    Some(MemSpace::Local) => 2,
                    Some(MemSpace::KernelParam) => 3,
                    _ => return unsupported(&i.opcode),
                };
                self.alu(int::isspacep, w, i, T::Pred, T::U64)
            }
            _ => unsupported(&i.opcode),
        }
    }
}
