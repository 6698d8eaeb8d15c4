//! `Option<T>` and `Result<T, E>` as device-function parameters and return values.
//!
//! Between device functions (never in device memory or a kernel's signature: the macros reject
//! those), the body compiler passes a value as the C struct `{ u32 tag; struct { variant 0's
//! members } v0; struct { variant 1's members } v1; }`: the tag is Rust's discriminant (`None`
//! and `Ok` 0, `Some` and `Err` 1). This is its ABI class; the macro asserts that it agrees.

use crate::abi::layout::struct_layout;
use crate::abi::{Layout, ParamAbi, Scalar};
use crate::{DeviceRepr, ParamType};

/// A type that can be held by an `Option` or `Result` passed between device functions: device
/// data, `()` (or `TryFromIntError`, which holds nothing), or a tuple of device data.
pub trait SumMember {
    /// Its layout as the one member of a variant's struct.
    const MEMBER: Layout;
}

impl<T: DeviceRepr> SumMember for T {
    const MEMBER: Layout = struct_layout(&[T::LAYOUT], 0);
}

impl SumMember for () {
    const MEMBER: Layout = Layout::new(0, 1);
}

/// The error of the integers' `try_from`: no data (`()` on the device).
impl SumMember for core::num::TryFromIntError {
    const MEMBER: Layout = Layout::new(0, 1);
}

macro_rules! tuple_members {
    ($(($($t:ident),+)),* $(,)?) => {$(
        impl<$($t: DeviceRepr),+> SumMember for ($($t,)+) {
            const MEMBER: Layout = struct_layout(&[struct_layout(&[$(<$t as DeviceRepr>::LAYOUT),+], 0)], 0);
        }
    )*};
}

tuple_members! { (A, B), (A, B, C), (A, B, C, D) }

const TAG: Layout = Layout::scalar(Scalar::U32);
const NOTHING: Layout = Layout::new(0, 1);

impl<T: SumMember> ParamType for Option<T> {
    const ABI: ParamAbi = ParamAbi::Aggregate(struct_layout(&[TAG, NOTHING, T::MEMBER], 0));
}

impl<T: SumMember, E: SumMember> ParamType for Result<T, E> {
    const ABI: ParamAbi = ParamAbi::Aggregate(struct_layout(&[TAG, T::MEMBER, E::MEMBER], 0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_passes_as_its_tag_and_members() {
        assert_eq!(<Option<f32> as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(8, 4)));
        assert_eq!(<Option<f64> as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(16, 8)));
        assert_eq!(<Result<u8, ()> as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(8, 4)));
        assert_eq!(<Result<u64, u16> as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(24, 8)));
        assert_eq!(<Option<(u8, u16)> as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(8, 4)));
    }
}
