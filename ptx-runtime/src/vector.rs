//! Native vector types (PTX Interoperability §1.2).
//!
//! `f32x4` is CUDA's `float4`, `i32x2` is `int2`, `u8x4` is `uchar4`, and so on. A vector of `n`
//! lanes of type `t` is aligned to `alignof(t)` when `n` is odd and to `n * alignof(t)` when `n`
//! is even; each type's alignment is computed by [`Layout::vector`] and checked against the
//! `repr(align)` written here. Vectors exist with 2, 3 and 4 lanes of scalars up to four bytes
//! and with 2 lanes of eight-byte scalars.
//!
//! | CUDA          | here    | size | align |
//! |---------------|---------|------|-------|
//! | `float2`      | `f32x2` | 8    | 8     |
//! | `float3`      | `f32x3` | 12   | 4     |
//! | `float4`      | `f32x4` | 16   | 16    |
//! | `double2`     | `f64x2` | 16   | 16    |
//! | `char4`       | `i8x4`  | 4    | 4     |
//! | `__half2`     | `f16x2` | 4    | 4     |
#![allow(non_camel_case_types)]

use crate::abi::{Layout, ParamAbi, Scalar};
use crate::{DeviceRepr, ParamType};
use half::{bf16, f16};

macro_rules! vectors {
    ($($name:ident($t:ty, $s:ident, $align:literal) { $($lane:ident),+ })*) => {$(
        #[doc = concat!("A native vector of ", stringify!($t), " lanes `", $(stringify!($lane), " "),+ , "`.")]
        #[repr(C, align($align))]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name { $(pub $lane: $t),+ }

        impl $name {
            pub const fn new($($lane: $t),+) -> Self {
                $name { $($lane),+ }
            }
        }

        unsafe impl DeviceRepr for $name {
            const LAYOUT: Layout = Layout::vector(Scalar::$s, [$(stringify!($lane)),+].len());
            const PARAM: ParamAbi = ParamAbi::Aggregate(Self::LAYOUT);
            const NO_PADDING: bool = [$(stringify!($lane)),+].len() * core::mem::size_of::<$t>() == Self::LAYOUT.size;
            fn write_bytes(&self, out: &mut [u8]) {
                let mut at = 0;
                $(
                    self.$lane.write_bytes(&mut out[at..]);
                    at += core::mem::size_of::<$t>();
                )+
                let _ = at;
            }
        }
        impl ParamType for $name {
            const ABI: ParamAbi = <$name as DeviceRepr>::PARAM;
        }
        // The `repr(align)` above must be the guide's rule.
        const _: () = assert!(
            core::mem::size_of::<$name>() == <$name as DeviceRepr>::LAYOUT.size
                && core::mem::align_of::<$name>() == <$name as DeviceRepr>::LAYOUT.align
        );
    )*};
}

vectors! {
    i8x2(i8, I8, 2) { x, y }        i8x3(i8, I8, 1) { x, y, z }        i8x4(i8, I8, 4) { x, y, z, w }
    u8x2(u8, U8, 2) { x, y }        u8x3(u8, U8, 1) { x, y, z }        u8x4(u8, U8, 4) { x, y, z, w }
    i16x2(i16, I16, 4) { x, y }     i16x3(i16, I16, 2) { x, y, z }     i16x4(i16, I16, 8) { x, y, z, w }
    u16x2(u16, U16, 4) { x, y }     u16x3(u16, U16, 2) { x, y, z }     u16x4(u16, U16, 8) { x, y, z, w }
    i32x2(i32, I32, 8) { x, y }     i32x3(i32, I32, 4) { x, y, z }     i32x4(i32, I32, 16) { x, y, z, w }
    u32x2(u32, U32, 8) { x, y }     u32x3(u32, U32, 4) { x, y, z }     u32x4(u32, U32, 16) { x, y, z, w }
    f32x2(f32, F32, 8) { x, y }     f32x3(f32, F32, 4) { x, y, z }     f32x4(f32, F32, 16) { x, y, z, w }
    f16x2(f16, F16, 4) { x, y }     f16x4(f16, F16, 8) { x, y, z, w }
    bf16x2(bf16, BF16, 4) { x, y }  bf16x4(bf16, BF16, 8) { x, y, z, w }
    i64x2(i64, I64, 16) { x, y }    u64x2(u64, U64, 16) { x, y }       f64x2(f64, F64, 16) { x, y }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_vector_layouts() {
        assert_eq!(f32x3::LAYOUT, Layout::new(12, 4));
        assert_eq!(f32x4::LAYOUT, Layout::new(16, 16));
        assert_eq!(f64x2::LAYOUT, Layout::new(16, 16));
        assert_eq!(u8x2::LAYOUT, Layout::new(2, 2));
        let mut b = [0u8; 8];
        f32x2::new(1.0, 2.0).write_bytes(&mut b);
        assert_eq!(&b[4..], &2.0f32.to_le_bytes());
    }
}
