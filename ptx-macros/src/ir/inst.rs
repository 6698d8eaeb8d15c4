//! Instructions, operands and virtual registers.
//!
//! Instructions are PTX instructions: the lowering picks the exact instruction as an
//! [`Opcode`] (operation, modifiers, type); the IR knows which operands an instruction defines
//! and which it reads, so the writer can name registers and the optimiser can rewrite them.

use super::Opcode;
use crate::text::Text;
use proc_macro2::TokenStream;

/// A register class: the PTX register type a virtual register is declared with.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum RegClass {
    Pred,
    /// 8- and 16-bit integers, `f16`, `bf16` (PTX has no 8-bit registers).
    B16,
    /// 32-bit integers; shared-memory addresses.
    B32,
    /// 64-bit integers and generic or global addresses.
    B64,
    F32,
    F64,
}

impl RegClass {
    /// Declaration type and name prefix, as nvcc spells them.
    pub fn decl(self) -> (&'static str, &'static str) {
        match self {
            RegClass::Pred => (".pred", "%p"),
            RegClass::B16 => (".b16", "%rs"),
            RegClass::B32 => (".b32", "%r"),
            RegClass::B64 => (".b64", "%rd"),
            RegClass::F32 => (".f32", "%f"),
            RegClass::F64 => (".f64", "%fd"),
        }
    }

    pub const ALL: [RegClass; 6] = [RegClass::Pred, RegClass::B16, RegClass::B32, RegClass::B64, RegClass::F32, RegClass::F64];
}

/// A virtual register. Most are written once (a fresh register per value); a mutable local
/// is one register updated with `mov`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Reg(pub u32);

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// An immediate operand.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Imm {
    Int(i64),
    /// Printed in hexadecimal as PTX's `0fXXXXXXXX`.
    F32(u32),
    /// Printed as `0dXXXXXXXXXXXXXXXX`.
    F64(u64),
}

/// A symbol operand.
#[derive(Clone, Debug)]
pub enum Sym {
    /// This function's parameter `index` (`<symbol>_param_<index>`).
    Param(usize),
    /// `func_retval0`.
    Retval,
    /// A name the lowering chose (`__shared_0`, `param0`, ...).
    Named(String),
    /// A `Piece` expression rustc evaluates (a callee's symbol).
    Piece(TokenStream),
    /// The address of a module-scope variable whose name is a `Piece` (a table defined outside
    /// the body): not a number, so never propagated into arithmetic.
    Address(TokenStream),
}

/// An operand.
#[derive(Clone, Debug)]
pub enum Arg {
    Reg(Reg),
    Imm(Imm),
    Sym(Sym),
    /// `[base+offset]`: base is a register or a symbol.
    Mem { base: Box<Arg>, offset: i64 },
    /// `{a, b, c, d}` for vector loads and stores.
    Vec(Vec<Arg>),
    /// `[t, {x, y}]`: a texture or surface and its coordinates.
    Index(Vec<Arg>),
}

impl Arg {
    pub fn imm(v: i64) -> Arg {
        Arg::Imm(Imm::Int(v))
    }

    /// The value of a float immediate (an `f32`'s widened exactly).
    pub fn float_imm(&self) -> Option<f64> {
        match self {
            Arg::Imm(Imm::F32(bits)) => Some(f32::from_bits(*bits) as f64),
            Arg::Imm(Imm::F64(bits)) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    pub fn mem(base: Arg, offset: i64) -> Arg {
        Arg::Mem { base: Box::new(base), offset }
    }

    pub fn named(s: impl Into<String>) -> Arg {
        Arg::Sym(Sym::Named(s.into()))
    }

    /// Every register this operand mentions.
    pub fn regs(&self, out: &mut Vec<Reg>) {
        match self {
            Arg::Reg(r) => out.push(*r),
            Arg::Mem { base, .. } => base.regs(out),
            Arg::Vec(v) | Arg::Index(v) => v.iter().for_each(|a| a.regs(out)),
            Arg::Imm(_) | Arg::Sym(_) => {}
        }
    }

}

/// One instruction, optionally predicated (`@%p` / `@!%p`).
#[derive(Clone, Debug)]
pub struct Inst {
    pub guard: Option<(Reg, bool)>,
    pub kind: InstKind,
    /// The Rust source it was lowered from (see [`super::loc`]).
    pub loc: Option<super::loc::Loc>,
}

#[derive(Clone, Debug)]
pub enum InstKind {
    /// `opcode a, b, c;` where the first `defs` operands are written.
    Op { opcode: Opcode, defs: usize, args: Vec<Arg> },
    /// A declaration inside the function or a call scope (`.param .b32 param0;`).
    Decl(String),
    /// `.param .b32 name;`: a call's scalar argument or result.
    ParamDecl { ty: super::Type, name: String },
    /// `{` or `}` around a call sequence.
    ScopeOpen,
    ScopeClose,
    /// `call.uni (retval0), target, (param0, ...);`
    Call { ret: Option<String>, target: Sym, params: Vec<String> },
    /// Text with pieces, written as it is (aggregate copies between `.param` locations).
    Raw(Text),
    /// Inline PTX from `ptx_asm!`: the template with `{n}` replaced by the operands, inside its
    /// own `{ }` scope.
    Asm { template: String, operands: Vec<Arg> },
}

impl Inst {
    pub fn op(opcode: Opcode, defs: usize, args: Vec<Arg>) -> Inst {
        Inst { guard: None, kind: InstKind::Op { opcode, defs, args }, loc: None }
    }

    /// This instruction at `loc`: a pass that creates an instruction in place of another gives
    /// it that one's location.
    pub fn at(mut self, loc: Option<super::loc::Loc>) -> Inst {
        self.loc = loc;
        self
    }

    /// Registers written by this instruction.
    pub fn defs(&self) -> Vec<Reg> {
        let mut out = Vec::new();
        match &self.kind {
            InstKind::Op { defs, args, .. } => args.iter().take(*defs).for_each(|a| a.regs(&mut out)),
            // Inline assembly: conservatively, every register operand may be written.
            InstKind::Asm { operands, .. } => operands.iter().for_each(|a| a.regs(&mut out)),
            _ => {}
        }
        out
    }

    /// Registers read by this instruction (the guard included).
    pub fn uses(&self) -> Vec<Reg> {
        let mut out = Vec::new();
        if let Some((g, _)) = self.guard {
            out.push(g);
        }
        match &self.kind {
            InstKind::Op { defs, args, .. } => {
                for (i, a) in args.iter().enumerate() {
                    if i >= *defs {
                        a.regs(&mut out);
                    } else if let Arg::Mem { base, .. } = a {
                        base.regs(&mut out);
                    }
                }
            }
            InstKind::Asm { operands, .. } => operands.iter().for_each(|a| a.regs(&mut out)),
            _ => {}
        }
        out
    }
}

impl Inst {
    /// Writes of the registers `map` names made writes of the registers it maps them to (a
    /// vector's elements too: `mov.b64 {lo, hi}, x`; a store's address is read, not written).
    pub fn rename_defs(&mut self, map: &super::fast_hash::HashMap<Reg, Reg>) {
        fn written(a: &mut Arg, map: &super::fast_hash::HashMap<Reg, Reg>) {
            match a {
                Arg::Reg(r) => {
                    if let Some(n) = map.get(r) {
                        *r = *n;
                    }
                }
                Arg::Vec(v) => v.iter_mut().for_each(|a| written(a, map)),
                _ => {}
            }
        }
        if let InstKind::Op { defs, args, .. } = &mut self.kind {
            args.iter_mut().take(*defs).for_each(|a| written(a, map));
        }
    }

    /// Reads of the registers `map` names made reads of the registers it maps them to (the
    /// guard, the read operands, and the bases of written memory operands).
    pub fn rename_uses(&mut self, map: &super::fast_hash::HashMap<Reg, Reg>) {
        fn arg(a: &mut Arg, map: &super::fast_hash::HashMap<Reg, Reg>) {
            match a {
                Arg::Reg(r) => {
                    if let Some(n) = map.get(r) {
                        *r = *n;
                    }
                }
                Arg::Mem { base, .. } => arg(base, map),
                Arg::Vec(v) | Arg::Index(v) => v.iter_mut().for_each(|a| arg(a, map)),
                Arg::Imm(_) | Arg::Sym(_) => {}
            }
        }
        if let Some((g, _)) = &mut self.guard {
            if let Some(n) = map.get(g) {
                *g = *n;
            }
        }
        match &mut self.kind {
            InstKind::Op { defs, args, .. } => {
                for (i, a) in args.iter_mut().enumerate() {
                    if i >= *defs || matches!(a, Arg::Mem { .. }) {
                        arg(a, map);
                    }
                }
            }
            InstKind::Asm { operands, .. } => operands.iter_mut().for_each(|a| arg(a, map)),
            _ => {}
        }
    }
}

/// How a block ends.
#[derive(Clone, Debug)]
pub enum Term {
    /// Not yet terminated (only while building).
    Open,
    Ret,
    Jump(BlockId),
    /// `@pred bra if_true` (or `@!pred` when `negate`), else continue at `if_false`.
    Branch { pred: Reg, negate: bool, if_true: BlockId, if_false: BlockId },
    /// `trap;`: a failed run-time check (see `lower::panic`).
    Trap,
}

impl Term {
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Term::Jump(b) => vec![*b],
            Term::Branch { if_true, if_false, .. } => vec![*if_true, *if_false],
            _ => vec![],
        }
    }
}
