//! §1.1 Fundamental types: the scalar types, their sizes and alignments, and how Rust's
//! primitive types map onto them.

/// A PTX fundamental type that a Rust primitive maps to.
///
/// Size and alignment are equal for every fundamental type (§1.1 table).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Scalar {
    /// Rust `bool`: one byte holding 0 or 1, like C's `bool`.
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// IEEE binary16; storage only in the ABI (§2.3 note C).
    F16,
    /// bfloat16; storage only, like `F16`.
    BF16,
    F32,
    F64,
}

/// Rust spelling → PTX scalar. `isize`/`usize` are 64-bit because `.address_size` is 64.
pub const RUST_NAMES: [(&str, Scalar); 15] = [
    ("bool", Scalar::Bool),
    ("i8", Scalar::I8),
    ("i16", Scalar::I16),
    ("i32", Scalar::I32),
    ("i64", Scalar::I64),
    ("isize", Scalar::I64),
    ("u8", Scalar::U8),
    ("u16", Scalar::U16),
    ("u32", Scalar::U32),
    ("u64", Scalar::U64),
    ("usize", Scalar::U64),
    ("f16", Scalar::F16),
    ("bf16", Scalar::BF16),
    ("f32", Scalar::F32),
    ("f64", Scalar::F64),
];

impl Scalar {
    /// Looks up a Rust primitive (or `half`'s `f16`/`bf16`) by its last path segment.
    pub fn from_rust_name(name: &str) -> Option<Scalar> {
        RUST_NAMES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// Size in bytes (§1.1).
    pub const fn size(self) -> usize {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::BF16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }

    /// Alignment in bytes: equal to the size for every fundamental type (§1.1).
    pub const fn align(self) -> usize {
        self.size()
    }

    pub const fn bits(self) -> usize {
        self.size() * 8
    }

    pub const fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }

    pub const fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::BF16 | Scalar::F32 | Scalar::F64)
    }

    /// Integers and `bool`: the types note A widens when they are narrower than 32 bits.
    pub const fn is_integral(self) -> bool {
        !self.is_float()
    }

    /// The typed PTX spelling used for loads and stores of this scalar in memory.
    pub const fn ptx_type(self) -> &'static str {
        match self {
            Scalar::Bool | Scalar::U8 => ".u8",
            Scalar::I8 => ".s8",
            Scalar::I16 => ".s16",
            Scalar::U16 => ".u16",
            Scalar::I32 => ".s32",
            Scalar::U32 => ".u32",
            Scalar::I64 => ".s64",
            Scalar::U64 => ".u64",
            Scalar::F16 => ".f16",
            Scalar::BF16 => ".bf16",
            Scalar::F32 => ".f32",
            Scalar::F64 => ".f64",
        }
    }

    /// The untyped bit-size spelling (`.b8` … `.b64`).
    pub const fn bit_type(self) -> &'static str {
        bit_type(self.size())
    }

    /// Note A: an integral value narrower than 32 bits travels as a 32-bit value, sign-extended
    /// when signed and zero-extended when unsigned. Returns the type it travels as.
    pub const fn widened(self) -> Scalar {
        match self {
            Scalar::I8 | Scalar::I16 => Scalar::I32,
            Scalar::Bool | Scalar::U8 | Scalar::U16 => Scalar::U32,
            other => other,
        }
    }
}

/// `.b8`, `.b16`, `.b32` or `.b64` for a size in bytes.
pub const fn bit_type(size: usize) -> &'static str {
    match size {
        1 => ".b8",
        2 => ".b16",
        4 => ".b32",
        8 => ".b64",
        _ => panic!("no PTX bit type of this size"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_equals_alignment_for_every_fundamental_type() {
        for (_, s) in RUST_NAMES {
            assert_eq!(s.size(), s.align());
            assert!(s.ptx_type().len() >= 3);
        }
    }

    #[test]
    fn note_a_widens_by_signedness() {
        assert_eq!(Scalar::I8.widened(), Scalar::I32);
        assert_eq!(Scalar::I16.widened(), Scalar::I32);
        assert_eq!(Scalar::U8.widened(), Scalar::U32);
        assert_eq!(Scalar::Bool.widened(), Scalar::U32);
        assert_eq!(Scalar::I64.widened(), Scalar::I64);
        assert_eq!(Scalar::F32.widened(), Scalar::F32);
    }

    #[test]
    fn pointer_sized_integers_are_64_bit() {
        assert_eq!(Scalar::from_rust_name("usize"), Some(Scalar::U64));
        assert_eq!(Scalar::from_rust_name("isize"), Some(Scalar::I64));
        assert_eq!(Scalar::from_rust_name("char"), None);
    }
}
