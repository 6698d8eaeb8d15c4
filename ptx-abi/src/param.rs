//! §2.3 Parameter passing: how each source-level type is declared in the `.param` state space.
//!
//! | source type            | `.entry` parameter | `.func` parameter / return value |
//! |------------------------|--------------------|----------------------------------|
//! | 8–32-bit integer, bool | `.u8` `.u16` `.u32` by width | `.b32`, extended by signedness (note A) |
//! | 64-bit integer         | `.u64`             | `.b64`                           |
//! | `f32` / `f64`          | `.f32` / `.f64`    | `.b32` / `.b64`                  |
//! | pointer (note B)       | `.u64`             | `.b64`                           |
//! | handle (note E)        | `.u64`             | `.b64`                           |
//! | aggregate, union, vector, slice | `.align A .b8 name[SIZE]` (note D) | same          |
//! | `f16`, `bf16` (note C) | not allowed        | not allowed                      |
//!
//! The guide's table names `.u32`/`.s32`/`.f32` for function parameters; nvcc, the reference
//! producer, declares them `.b32`/`.b64` (as the guide's own chapter-6 listing does), which is
//! the same size and alignment. Kernel (`.entry`) parameters are declared as nvcc declares
//! them: exact width, unsigned or float. Both spellings are checked live against nvcc by the
//! oracle tests.

use crate::layout::{is_valid_aggregate_align, Layout};
use crate::scalar::Scalar;

/// How a value crosses a call boundary.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ParamAbi {
    /// A fundamental type (§1.1).
    Scalar(Scalar),
    /// A 64-bit generic address (note B).
    Pointer,
    /// Struct, union, array, native vector or slice: passed as bytes (note D).
    Aggregate(Layout),
    /// A texture, sampler or surface handle (note E).
    Handle,
}

/// Where a declaration appears.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Site {
    /// A kernel (`.entry`) parameter.
    Entry,
    /// A device function (`.func`) parameter.
    Func,
    /// A device function's return value (`func_retval0`).
    Return,
}

/// The type part of a `.param` declaration.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Decl {
    /// `.param <ty> name`
    Typed(&'static str),
    /// `.param .align <align> .b8 name[<size>]`
    Bytes { align: usize, size: usize },
}

/// An ABI rule a parameter type breaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AbiError {
    /// Note C: 16-bit floats are storage-only.
    HalfFloatParam,
    /// Note D: aggregate alignment outside 1, 2, 4, …, 128.
    AggregateAlign,
    /// An aggregate with no bytes has no `.b8 name[0]` form.
    EmptyAggregate,
}

impl AbiError {
    /// What rule was broken and what to write instead.
    pub const fn message(self) -> &'static str {
        match self {
            AbiError::HalfFloatParam => "16-bit floating-point types are storage-only in the PTX ABI and cannot be parameters or return values (PTX Interoperability §2.3 note C); pass the bits as `u16` (`f16::to_bits`), widen to `f32`, or put the value inside a #[repr(C)] struct",
            AbiError::AggregateAlign => "aggregate alignment must be 1, 2, 4, 8, 16, 32, 64 or 128 bytes to be passed as a parameter (PTX Interoperability §2.3 note D); lower the `repr(align(N))` of this type or of its fields to at most 128",
            AbiError::EmptyAggregate => "a zero-sized aggregate cannot be passed as a parameter: PTX has no zero-length `.b8` array; remove the parameter",
        }
    }
}

impl ParamAbi {
    /// Checks the type against §2.3's notes C and D.
    pub const fn check(self) -> Result<(), AbiError> {
        match self {
            ParamAbi::Scalar(Scalar::F16 | Scalar::BF16) => Err(AbiError::HalfFloatParam),
            ParamAbi::Aggregate(l) if !is_valid_aggregate_align(l.align) => Err(AbiError::AggregateAlign),
            ParamAbi::Aggregate(l) if l.size == 0 => Err(AbiError::EmptyAggregate),
            _ => Ok(()),
        }
    }

    /// Size and alignment of the parameter in the `.param` space.
    pub const fn layout(self, site: Site) -> Layout {
        match self.decl(site) {
            Decl::Bytes { align, size } => Layout { size, align },
            Decl::Typed(t) => {
                let size = match t.as_bytes()[2] {
                    b'8' => 1,
                    b'1' => 2,
                    b'3' => 4,
                    _ => 8,
                };
                Layout { size, align: size }
            }
        }
    }

    /// The declaration's type part, per the table in this module's documentation.
    pub const fn decl(self, site: Site) -> Decl {
        match (self, site) {
            (ParamAbi::Aggregate(l), _) => Decl::Bytes { align: l.align, size: l.size },
            (ParamAbi::Pointer | ParamAbi::Handle, Site::Entry) => Decl::Typed(".u64"),
            (ParamAbi::Pointer | ParamAbi::Handle, _) => Decl::Typed(".b64"),
            (ParamAbi::Scalar(s), Site::Entry) => Decl::Typed(match s {
                Scalar::F32 => ".f32",
                Scalar::F64 => ".f64",
                _ => match s.size() {
                    1 => ".u8",
                    2 => ".u16",
                    4 => ".u32",
                    _ => ".u64",
                },
            }),
            (ParamAbi::Scalar(s), _) => Decl::Typed(if s.size() <= 4 { ".b32" } else { ".b64" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_parameters_are_exact_width() {
        assert_eq!(ParamAbi::Scalar(Scalar::I8).decl(Site::Entry), Decl::Typed(".u8"));
        assert_eq!(ParamAbi::Scalar(Scalar::Bool).decl(Site::Entry), Decl::Typed(".u8"));
        assert_eq!(ParamAbi::Scalar(Scalar::I16).decl(Site::Entry), Decl::Typed(".u16"));
        assert_eq!(ParamAbi::Scalar(Scalar::F32).decl(Site::Entry), Decl::Typed(".f32"));
        assert_eq!(ParamAbi::Pointer.decl(Site::Entry), Decl::Typed(".u64"));
    }

    #[test]
    fn func_parameters_widen_to_32_bits() {
        assert_eq!(ParamAbi::Scalar(Scalar::I8).decl(Site::Func), Decl::Typed(".b32"));
        assert_eq!(ParamAbi::Scalar(Scalar::U16).decl(Site::Return), Decl::Typed(".b32"));
        assert_eq!(ParamAbi::Scalar(Scalar::F64).decl(Site::Func), Decl::Typed(".b64"));
        assert_eq!(ParamAbi::Scalar(Scalar::I8).layout(Site::Func), Layout::new(4, 4));
        assert_eq!(ParamAbi::Scalar(Scalar::I8).layout(Site::Entry), Layout::new(1, 1));
    }

    #[test]
    fn notes_c_and_d_are_enforced() {
        assert_eq!(ParamAbi::Scalar(Scalar::F16).check(), Err(AbiError::HalfFloatParam));
        assert_eq!(ParamAbi::Aggregate(Layout::new(256, 256)).check(), Err(AbiError::AggregateAlign));
        assert_eq!(ParamAbi::Aggregate(Layout::new(128, 128)).check(), Ok(()));
    }
}
