//! `ldmatrix` / `stmatrix` (`.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16`): the warp
//! loads or stores one, two or four 8 × 8 matrices of 16-bit elements in shared memory.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn matrix(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let store = m.base == "stmatrix";
        if !(m.take("sync") && m.take("aligned") && m.take("m8n8")) {
            return unsupported(format!("{} (only .sync.aligned.m8n8)", i.opcode));
        }
        let num = match m.take_any(&["x1", "x2", "x4"]) {
            Some("x1") => 1,
            Some("x2") => 2,
            Some("x4") => 4,
            _ => return unsupported(format!("{} (expected .x1, .x2 or .x4)", i.opcode)),
        };
        let trans = m.take("trans");
        if m.space() != Some(MemSpace::Shared) || m.ty() != Some(T::B16) {
            return unsupported(format!("{} (only .shared .b16)", i.opcode));
        }
        self.args(i, 2)?;
        let (regs, at) = if store { (&i.args[1], &i.args[0]) } else { (&i.args[0], &i.args[1]) };
        let (addr, sym) = self.addr(at)?;
        if self.access_space(Some(MemSpace::Shared), sym)? != MemSpace::Shared {
            return self.error(format!("{}: the address must be in shared memory", i.opcode));
        }
        let regs: &[Operand] = match regs {
            Operand::Vector(v) if v.len() == num as usize => v,
            r if num == 1 && !matches!(r, Operand::Vector(_)) => std::slice::from_ref(r),
            _ => return self.error(format!("{}: expected {num} registers", i.opcode)),
        };
        if store {
            let mut srcs = [Src::None; 4];
            for (k, r) in regs.iter().enumerate() {
                srcs[k] = self.src(r, T::B32)?;
            }
            Ok(Op::StMatrix { num, trans, srcs, addr })
        } else {
            let mut ds = [NOREG; 4];
            for (k, r) in regs.iter().enumerate() {
                ds[k] = self.dst(r)?;
            }
            Ok(Op::LdMatrix { num, trans, ds, addr })
        }
    }
}
