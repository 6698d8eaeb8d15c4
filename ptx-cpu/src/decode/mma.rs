//! `mma.sync.aligned` (warp-level matrix multiply-accumulate): the shapes and types the
//! backend executes, with their fragments' register counts.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn mma(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        if !(m.take("sync") && m.take("aligned")) {
            return unsupported(format!("{} (mma without .sync.aligned)", i.opcode));
        }
        let shape = m.take_any(&["m16n8k16", "m16n8k8", "m16n8k32"]);
        if !(m.take("row") && m.take("col")) {
            return unsupported(format!("{} (only the .row.col layouts)", i.opcode));
        }
        let satfinite = m.take("satfinite");
        let t = m.types();
        let kind = match (shape, t.as_slice()) {
            (Some("m16n8k16"), [T::F32, T::F16, T::F16, T::F32]) => MmaKind::F16,
            (Some("m16n8k16"), [T::F32, T::Bf16, T::Bf16, T::F32]) => MmaKind::Bf16,
            (Some("m16n8k8"), [T::F32, T::Tf32, T::Tf32, T::F32]) => MmaKind::Tf32,
            (Some("m16n8k32"), [T::S32, a @ (T::S8 | T::U8), b @ (T::S8 | T::U8), T::S32]) => {
                MmaKind::I8 { a_signed: *a == T::S8, b_signed: *b == T::S8, satfinite }
            }
            _ => return unsupported(format!("{} (shape and types not executed by the CPU backend)", i.opcode)),
        };
        if satfinite && !matches!(kind, MmaKind::I8 { .. }) {
            return unsupported(&i.opcode);
        }
        self.args(i, 4)?;
        let acc = if matches!(kind, MmaKind::I8 { .. }) { T::S32 } else { T::F32 };
        let d = self.vector(&i.args[0], 4)?;
        let a = self.vector(&i.args[1], 4)?;
        let b = self.vector(&i.args[2], 2)?;
        let c = self.vector(&i.args[3], 4)?;
        let mut dr = [NOREG; 4];
        for (k, x) in d.iter().enumerate() {
            dr[k] = self.dst(x)?;
        }
        let srcs = |v: &[Operand], t: T| -> R<Vec<Src>> { v.iter().map(|x| self.src(x, t)).collect() };
        let (a, b, c) = (srcs(a, T::B32)?, srcs(b, T::B32)?, srcs(c, acc)?);
        Ok(Op::Mma { kind, d: dr, a: [a[0], a[1], a[2], a[3]], b: [b[0], b[1]], c: [c[0], c[1], c[2], c[3]] })
    }

    /// The parts of a `{…}` operand that must have `n` of them.
    fn vector<'o>(&self, op: &'o Operand, n: usize) -> R<&'o [Operand]> {
        match op {
            Operand::Vector(v) if v.len() == n => Ok(v),
            _ => self.error(format!("mma: expected a vector of {n} registers, found {op:?}")),
        }
    }
}
