//! Instruction types (`.u32`, `.f16x2`, `.pred`, …) and their properties.

use crate::exec::{cvt, fp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum T {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
    Pred,
    U16x2,
    S16x2,
}

impl T {
    pub fn parse(s: &str) -> Option<T> {
        Some(match s {
            "b8" => T::B8,
            "b16" => T::B16,
            "b32" => T::B32,
            "b64" => T::B64,
            "b128" => T::B128,
            "u8" => T::U8,
            "u16" => T::U16,
            "u32" => T::U32,
            "u64" => T::U64,
            "s8" => T::S8,
            "s16" => T::S16,
            "s32" => T::S32,
            "s64" => T::S64,
            "f16" => T::F16,
            "f16x2" => T::F16x2,
            "bf16" => T::Bf16,
            "bf16x2" => T::Bf16x2,
            "tf32" => T::Tf32,
            "f32" => T::F32,
            "f64" => T::F64,
            "pred" => T::Pred,
            "u16x2" => T::U16x2,
            "s16x2" => T::S16x2,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        use T::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | Bf16 => 16,
            B32 | U32 | S32 | F16x2 | Bf16x2 | Tf32 | F32 | U16x2 | S16x2 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Bytes in memory (a predicate has none; its register holds 0/1).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn signed(self) -> bool {
        matches!(self, T::S8 | T::S16 | T::S32 | T::S64 | T::S16x2)
    }

    pub fn is_float(self) -> bool {
        matches!(self, T::F16 | T::F16x2 | T::Bf16 | T::Bf16x2 | T::Tf32 | T::F32 | T::F64)
    }

    /// The format bits of `fp`'s `k` for a float type.
    pub fn fp_k(self) -> u32 {
        match self {
            T::F64 => fp::F64,
            T::F16 => fp::F16,
            T::F16x2 => fp::F16 | fp::X2,
            T::Bf16 => fp::BF16,
            T::Bf16x2 => fp::BF16 | fp::X2,
            _ => fp::F32,
        }
    }

    pub fn cvt_ty(self) -> Option<cvt::Ty> {
        Some(match self {
            T::B8 | T::U8 => cvt::Ty::U8,
            T::B16 | T::U16 => cvt::Ty::U16,
            T::B32 | T::U32 => cvt::Ty::U32,
            T::B64 | T::U64 => cvt::Ty::U64,
            T::S8 => cvt::Ty::S8,
            T::S16 => cvt::Ty::S16,
            T::S32 => cvt::Ty::S32,
            T::S64 => cvt::Ty::S64,
            T::F16 => cvt::Ty::F16,
            T::Bf16 => cvt::Ty::Bf16,
            T::F32 => cvt::Ty::F32,
            T::F64 => cvt::Ty::F64,
            T::Tf32 => cvt::Ty::Tf32,
            _ => return None,
        })
    }
}
