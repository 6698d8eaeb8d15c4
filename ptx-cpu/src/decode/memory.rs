//! Loads, stores and atomics: the state space named or implied by the address.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use super::Sym;
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn memory(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let _a = &i.args;
        match m.base {
            "ld" | "ldu" => self.ld(i, m),
            "st" => self.st(i, m),
            "atom" | "red" => self.atom(i, m),
            "prefetch" | "prefetchu" | "pmevent" => {
                m.space();
                m.take_any(&["L1", "L2", "tensormap"]);
                Ok(Op::Nop)
            }
            _ => unsupported(&i.opcode),
        }
    }

    /// The space an access names, refined by the symbol its address starts from.
    pub(super) fn access_space(&self, named: Option<MemSpace>, sym: Option<Sym>) -> R<MemSpace> {
        Ok(match (named, sym) {
            (Some(MemSpace::KernelParam), Some(Sym::FParam(..))) => MemSpace::FrameParam,
            (Some(s), _) => s,
            (None, Some(Sym::Shared(_))) | (None, Some(Sym::Local(_))) | (None, Some(Sym::FParam(..))) | (None, Some(Sym::KParam(_))) => {
                return self.error("a generic access cannot start from a shared, local or parameter variable's name here");
            }
            (None, _) => MemSpace::Generic,
        })
    }

    pub(super) fn ld(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let order = m.order(Order::Weak);
        let space = m.space();
        let vec = m.vec();
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        if t.bits() > 64 {
            return unsupported(format!("{} (128-bit access)", i.opcode));
        }
        if i.args.len() < 2 {
            return self.error("ld: expected a destination and an address");
        }
        let mut ds = [NOREG; 8];
        match &i.args[0] {
            Operand::Vector(v) => {
                if v.len() != vec as usize {
                    return self.error("ld: vector size does not match the destination");
                }
                for (k, x) in v.iter().enumerate() {
                    ds[k] = self.dst(x)?;
                }
            }
            x => ds[0] = self.dst(x)?,
        }
        let (addr, sym) = self.addr(&i.args[1])?;
        let space = self.access_space(space, sym)?;
        let dbits = ds.iter().find(|&&r| r != NOREG).map_or(64, |&r| self.dst_bits(r));
        Ok(Op::Ld { space, size: t.bytes() as u8, sext: t.signed(), vec, ds, dbits: dbits as u8, addr, order })
    }

    pub(super) fn st(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let order = m.order(Order::Weak);
        let space = m.space();
        let vec = m.vec();
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        if t.bits() > 64 {
            return unsupported(format!("{} (128-bit access)", i.opcode));
        }
        self.args(i, 2)?;
        let (addr, sym) = self.addr(&i.args[0])?;
        let space = self.access_space(space, sym)?;
        if space == MemSpace::KernelParam || space == MemSpace::Const {
            return self.error("st: kernel parameters and constant memory are read-only");
        }
        let mut srcs = [Src::None; 8];
        match &i.args[1] {
            Operand::Vector(v) => {
                if v.len() != vec as usize {
                    return self.error("st: vector size does not match the source");
                }
                for (k, x) in v.iter().enumerate() {
                    srcs[k] = self.src(x, t)?;
                }
            }
            x => srcs[0] = self.src(x, t)?,
        }
        Ok(Op::St { space, size: t.bytes() as u8, vec, srcs, addr, order })
    }

    pub(super) fn atom(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let red = m.base == "red";
        let order = m.order(Order::Relaxed);
        let space = m.space();
        let op = match m.take_any(&["and", "or", "xor", "exch", "cas", "add", "inc", "dec", "min", "max"]) {
            Some("and") => AtomOp::And,
            Some("or") => AtomOp::Or,
            Some("xor") => AtomOp::Xor,
            Some("exch") => AtomOp::Exch,
            Some("cas") => AtomOp::Cas,
            Some("add") => AtomOp::Add,
            Some("inc") => AtomOp::Inc,
            Some("dec") => AtomOp::Dec,
            Some("min") => AtomOp::Min,
            Some("max") => AtomOp::Max,
            _ => return unsupported(&i.opcode),
        };
        if m.take_any(&["v2", "v4", "v8"]).is_some() {
            return unsupported(format!("{} (vector atomics)", i.opcode));
        }
        let Some(t) = m.ty() else { return unsupported(&i.opcode) };
        let ty = match t {
            T::B16 | T::U16 | T::S16 => AtomTy::B16,
            T::B32 | T::U32 => AtomTy::U32,
            T::S32 => AtomTy::S32,
            T::B64 | T::U64 => AtomTy::U64,
            T::S64 => AtomTy::S64,
            T::F32 => AtomTy::F32,
            T::F64 => AtomTy::F64,
            T::F16 => AtomTy::F16,
            T::Bf16 => AtomTy::Bf16,
            T::F16x2 => AtomTy::F16x2,
            T::Bf16x2 => AtomTy::Bf16x2,
            _ => return unsupported(&i.opcode),
        };
        let a = &i.args;
        let (d, rest) = if red { (NOREG, &a[..]) } else { (self.dst(&a[0])?, &a[1.min(a.len())..]) };
        let need = if op == AtomOp::Cas { 3 } else { 2 };
        if rest.len() != need {
            return self.error(format!("`{}`: wrong number of operands", i.opcode));
        }
        let (addr, sym) = self.addr(&rest[0])?;
        let space = self.access_space(space, sym)?;
        if !matches!(space, MemSpace::Global | MemSpace::Shared | MemSpace::Generic) {
            return self.error("atomics work on global or shared memory only");
        }
        let b = self.src(&rest[1], t)?;
        let c = if op == AtomOp::Cas { self.src(&rest[2], t)? } else { Src::None };
        Ok(Op::Atom { space, op, ty, d, addr, b, c, order, ftz: ty == AtomTy::F32 })
    }
}
