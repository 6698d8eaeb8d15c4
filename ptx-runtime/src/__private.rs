//! What the macros' expansions refer to. Not a public API: names here change freely.

pub use ptx_abi::layout::{align_to, field_offset, struct_layout, union_layout, Layout, StructLayout};
pub use ptx_abi::param::{ParamAbi, Site};
pub use ptx_abi::ptx_text;
pub use ptx_abi::target::{Isa, Target};
pub use ptx_abi::text::{FnNode, Piece};

pub use crate::{DeviceRepr, ParamType};

/// Compile-time check of a parameter type against §2.3 (notes C and D). The macros place a call
/// in a `const` spanned at the parameter's type, so a violation hidden behind a type alias is
/// still reported there.
pub const fn check_param(abi: ParamAbi) {
    if let Err(e) = abi.check() {
        panic!("{}", e.message());
    }
}

/// Compile-time check that an aggregate's alignment is one note D allows.
pub const fn check_aggregate_align(layout: Layout) {
    if !ptx_abi::layout::is_valid_aggregate_align(layout.align) {
        panic!("{}", ptx_abi::param::AbiError::AggregateAlign.message());
    }
}
