//! What the macros' expansions refer to. Not a public API: names here change freely.

pub use ptx_abi::bitfield::{bit_layout, member_bit, Member as BitMember};
pub use ptx_abi::layout::{align_to, field_offset, struct_layout, union_layout, Layout, StructLayout};
pub use ptx_abi::tagged::{tagged_field_offset, tagged_layout, TagStyle};
pub use ptx_abi::param::{ParamAbi, Site};
pub use ptx_abi::Scalar;
pub use ptx_abi::ptx_text;
pub use ptx_abi::const_test;
pub use ptx_abi::target::{Isa, Target};
pub use ptx_abi::lineinfo::FileRef;
pub use ptx_abi::text::{as_str, file_refs, render_array, render_len, FnNode, Piece};
pub use ptx_abi::template::TemplateArg;

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

/// The device compiler's later rounds (see `ptx-macros`' `link` module).
pub use ptx_macros::__compile as compile;
/// A user trait's default methods for one impl (see `ptx-macros`' `expand::trait_def`).
pub use ptx_macros::__trait_defaults as trait_defaults;
/// Marks a `ptx_runtime::device` function with its device-API replay.
pub use ptx_macros::__device_api as device_api;

/// One link of a fetch chain: appends a replay's description to what was found and invokes
/// the next replay, or the compiler when none is left.
#[doc(hidden)]
#[macro_export]
macro_rules! __ptx_fetch_next {
    ({$($info:tt)*} ([$($req:tt)*]) { ([$($req2:tt)*] [$($path2:tt)*]) $($more:tt)* } [$($fin:tt)*] {$($state:tt)*} {$($found:tt)*}) => {
        $($path2)*! { @ptx_fetch ([$($req2)*]) { $($more)* } [$($fin)*] {$($state)*} {$($found)* ([$($req)*] {$($info)*})} }
    };
    ({$($info:tt)*} ([$($req:tt)*]) { } [$($fin:tt)*] {$($state:tt)*} {$($found:tt)*}) => {
        $($fin)*! { {$($state)*} {$($found)* ([$($req)*] {$($info)*})} }
    };
}
pub use crate::__ptx_fetch_next as fetch_next;

/// The marker an impl for one instance of a generic type (`impl Pair<f32>`) names its methods
/// by under the type's name: the caller then fetches the instance's (see `ptx-macros`'
/// `expand::instance_impl`).
#[doc(hidden)]
#[macro_export]
macro_rules! __ptx_per_instance {
    (@ptx_fetch $($rest:tt)*) => {
        $crate::__private::fetch_next! { {@per_instance} $($rest)* }
    };
}
pub use crate::__ptx_per_instance as per_instance;

/// Compile-time check that the layout the device compiler computed for a struct is rustc's.
pub const fn assert_layout(layout: Layout, size: usize, align: usize) {
    if layout.size != size || layout.align != align {
        panic!("the device compiler's layout of this struct differs from its `DeviceRepr` layout: a struct nested in another must be nameable by the same path where a kernel uses it (import it), so the compiler reads the right definition");
    }
}

/// Compile-time check that the device compiler's ABI class for a parameter is rustc's.
pub const fn assert_abi(rustc: ParamAbi, ours: ParamAbi) {
    let same = match (rustc, ours) {
        (ParamAbi::Scalar(a), ParamAbi::Scalar(b)) => a as u8 == b as u8,
        (ParamAbi::Pointer, ParamAbi::Pointer) | (ParamAbi::Handle, ParamAbi::Handle) => true,
        (ParamAbi::Aggregate(a), ParamAbi::Aggregate(b)) => a.size == b.size && a.align == b.align,
        _ => false,
    };
    if !same {
        panic!("the device compiler read this parameter's type differently from rustc (a name shadowing a primitive or vector type?); name the type as `ptx_runtime` defines it");
    }
}

/// The type the device compiler gave a constant from outside the body when nothing in the body
/// fixed it: Rust's fallback (`i32`, `f64`), which rustc, knowing the constant, may not share
/// (`for _ in 0..REPS` with `REPS: usize`). The expansion checks the guess here, so a wrong one
/// is a compile error instead of arithmetic in the wrong type.
#[diagnostic::on_unimplemented(
    message = "the device compiler cannot tell the type of this constant: nothing in the body fixes it, so it took Rust's default `{T}`, but the constant's type is `{Self}`",
    label = "write `NAME as {Self}` here, or give the value it meets a type (`let x: {Self} = ...`)"
)]
pub trait GuessedType<T> {}
impl<T> GuessedType<T> for T {}

/// Type-checks `GuessedType` (never called).
pub fn guessed_type<T, C: GuessedType<T>>(_: &C) {}
