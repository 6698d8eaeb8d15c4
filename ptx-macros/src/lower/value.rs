//! Values during lowering: a scalar in a register or an immediate, a pointer with the state
//! space its address is in, or an aggregate as its fields (structs, arrays, vectors and slices
//! live in registers field by field, as nvcc's scalar replacement leaves them).

use crate::front::ty::{Len, Ty};
use crate::ir::{Arg, Imm, RegClass, StateSpace, Type};
use ptx_abi::Scalar;

/// The state space a pointer's address is in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Space {
    /// A generic address (device functions' pointer parameters, pointers read from memory).
    Generic,
    /// Global memory (kernel pointer and slice parameters, after `cvta.to.global`). `nc`: the
    /// data is never written while the kernel runs, so `ld.global.nc` may read it.
    Global { nc: bool },
    /// Shared memory: a 32-bit address.
    Shared,
    /// This thread's local memory (arrays indexed at run time).
    Local,
    /// The `.param` space: this function's parameters and a call's arguments and result
    /// (only read and written through symbols, never through a pointer value).
    Param,
    /// The `.const` space: a table defined outside the body (see `statics`), read only.
    Const,
}

impl Space {
    /// The state space `ld`/`st` name.
    pub fn state_space(self) -> StateSpace {
        match self {
            Space::Generic => StateSpace::Generic,
            Space::Global { .. } => StateSpace::Global,
            Space::Shared => StateSpace::Shared,
            Space::Local => StateSpace::Local,
            Space::Param => StateSpace::Param,
            Space::Const => StateSpace::Const,
        }
    }

    /// Register class of an address in this space.
    pub fn class(self) -> RegClass {
        match self {
            Space::Shared => RegClass::B32,
            _ => RegClass::B64,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Val {
    Unit,
    /// A scalar (integer, float, `bool` as a predicate, handle): a register or an immediate.
    S(Arg),
    /// A pointer: its address and the space the address is in.
    Ptr(Arg, Space),
    /// Fields of a struct, elements of an array, lanes of a vector; a slice is `[ptr, len]`.
    Agg(Vec<Val>),
    /// A parameter of a type the compiler has not described, passed along whole: parameter
    /// `index`, copied with its rustc-evaluated layout.
    Opaque(usize),
    /// The value of an expression that does not finish (`return`, `break`, a `loop` without
    /// `break`).
    Never,
}

impl Val {
    pub fn arg(&self) -> Arg {
        match self {
            Val::S(a) | Val::Ptr(a, _) => a.clone(),
            _ => Arg::imm(0),
        }
    }

    pub fn field(&self, i: usize) -> Val {
        match self {
            Val::Agg(v) => v.get(i).cloned().unwrap_or(Val::Unit),
            _ => Val::Unit,
        }
    }

    /// Every register in the value.
    pub fn regs(&self, out: &mut Vec<crate::ir::Reg>) {
        match self {
            Val::S(a) | Val::Ptr(a, _) => a.regs(out),
            Val::Agg(v) => v.iter().for_each(|x| x.regs(out)),
            _ => {}
        }
    }
}

/// The register class a scalar lives in. 8-bit integers use 16-bit registers (PTX has no
/// 8-bit registers), `bool` a predicate.
pub fn class_of(s: Scalar) -> RegClass {
    match s {
        Scalar::Bool => RegClass::Pred,
        Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::BF16 => RegClass::B16,
        Scalar::I32 | Scalar::U32 => RegClass::B32,
        Scalar::I64 | Scalar::U64 => RegClass::B64,
        Scalar::F32 => RegClass::F32,
        Scalar::F64 => RegClass::F64,
    }
}

/// Instruction type for arithmetic on a scalar: `.s32`, `.u16` (8-bit types compute in 16
/// bits), `.f32`.
pub fn int_type(s: Scalar) -> Type {
    match s {
        Scalar::I8 | Scalar::I16 => Type::S16,
        Scalar::U8 | Scalar::U16 | Scalar::Bool => Type::U16,
        Scalar::I32 => Type::S32,
        Scalar::U32 => Type::U32,
        Scalar::I64 => Type::S64,
        Scalar::U64 => Type::U64,
        Scalar::F32 => Type::F32,
        Scalar::F64 => Type::F64,
        Scalar::F16 | Scalar::BF16 => Type::B16,
    }
}

/// Bit type of the register a scalar lives in: `.b16`, `.b32`, `.b64`.
pub fn reg_bits(s: Scalar) -> Type {
    match class_of(s) {
        RegClass::B16 => Type::B16,
        RegClass::B32 | RegClass::F32 => Type::B32,
        RegClass::B64 | RegClass::F64 => Type::B64,
        RegClass::Pred => Type::Pred,
    }
}

/// Width of the register a scalar lives in, in bits.
pub fn reg_width(s: Scalar) -> u32 {
    match class_of(s) {
        RegClass::B16 => 16,
        RegClass::B32 | RegClass::F32 => 32,
        RegClass::B64 | RegClass::F64 => 64,
        RegClass::Pred => 1,
    }
}

/// Memory access type for a scalar: `.u8`, `.s8`, `.f32`, ... (`bool` is a byte).
pub fn mem_type(s: Scalar) -> Type {
    match s {
        Scalar::Bool | Scalar::U8 => Type::U8,
        Scalar::F16 | Scalar::BF16 => Type::B16,
        Scalar::I8 => Type::S8,
        Scalar::I16 => Type::S16,
        Scalar::U16 => Type::U16,
        Scalar::I32 => Type::S32,
        Scalar::U32 => Type::U32,
        Scalar::I64 => Type::S64,
        Scalar::U64 => Type::U64,
        Scalar::F32 => Type::F32,
        Scalar::F64 => Type::F64,
    }
}

/// An immediate for an integer literal of type `s` (wrapped to the type's width).
pub fn int_imm(v: u128, s: Scalar) -> Arg {
    let bits = s.bits() as u32;
    let masked = if bits >= 128 { v } else { v & ((1u128 << bits) - 1) };
    let value = if s.is_signed() && bits < 128 && masked >> (bits - 1) & 1 == 1 {
        masked as i128 - (1i128 << bits)
    } else {
        masked as i128
    };
    Arg::Imm(Imm::Int(value as i64))
}

/// The leaves of a type in memory: (offset, scalar) pairs, pointers as `U64`. `None` when the
/// type has no layout the macro knows.
pub fn leaves(ty: &Ty, base: u64, out: &mut Vec<(u64, Leaf)>) -> Option<()> {
    match ty {
        Ty::Scalar(s) => out.push((base, Leaf::Scalar(*s))),
        Ty::Ptr { .. } => out.push((base, Leaf::Ptr)),
        Ty::Handle(_) => out.push((base, Leaf::Scalar(Scalar::U64))),
        Ty::Slice { .. } => {
            out.push((base, Leaf::Ptr));
            out.push((base + 8, Leaf::Scalar(Scalar::U64)));
        }
        Ty::Vector { elem, lanes } => {
            for i in 0..*lanes as u64 {
                out.push((base + i * elem.size() as u64, Leaf::Scalar(*elem)));
            }
        }
        Ty::Array { elem, len: Len::Known(n) } => {
            let size = elem.layout()?.size as u64;
            for i in 0..*n {
                leaves(elem, base + i * size, out)?;
            }
        }
        Ty::Struct(def) if def.kind == crate::front::ty::StructKind::Union => return None,
        Ty::Struct(def) => {
            for f in &def.fields {
                leaves(&f.ty, base + f.offset, out)?;
            }
        }
        Ty::Tuple(ts) => {
            let offsets = crate::front::ty::tuple_offsets(ts)?;
            for (t, o) in ts.iter().zip(offsets) {
                leaves(t, base + o, out)?;
            }
        }
        Ty::Unit => {}
        _ => return None,
    }
    Some(())
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf {
    Scalar(Scalar),
    Ptr,
}
