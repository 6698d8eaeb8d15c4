//! Tuples as device-function parameters and return values.
//!
//! Rust gives tuples no defined layout, so a tuple is never device data (no `DeviceRepr`): it
//! cannot be a buffer element, a field or a kernel parameter (the macros reject those at the
//! type). Between two device functions, both compiled by the body compiler, a tuple passes as
//! nvcc passes the equivalent C struct `struct { A _0; B _1; ... }`: a `.param .align A .b8
//! [size]` aggregate with the members at their C offsets (PTX Interoperability §2.3), which is
//! what this ABI class says.

use crate::abi::layout::struct_layout;
use crate::abi::ParamAbi;
use crate::{DeviceRepr, ParamType};

macro_rules! tuples {
    ($(($($t:ident),+)),* $(,)?) => {$(
        impl<$($t: DeviceRepr),+> ParamType for ($($t,)+) {
            const ABI: ParamAbi = ParamAbi::Aggregate(struct_layout(&[$(<$t as DeviceRepr>::LAYOUT),+], 0));
        }
    )*};
}

tuples! {
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::Layout;

    #[test]
    fn a_tuple_passes_as_the_c_struct_of_its_members() {
        assert_eq!(<(u8, f64, u16) as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(24, 8)));
        assert_eq!(<(f32, f32) as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(8, 4)));
        assert_eq!(<(u32,) as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(4, 4)));
    }
}
