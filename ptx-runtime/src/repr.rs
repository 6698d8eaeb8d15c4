//! The ABI traits: how a Rust type is laid out in device memory (§1.1, §1.2) and how it is
//! passed as a parameter (§2.3).
//!
//! Layouts are computed by the rules in [`crate::abi::layout`] and asserted at compile time to
//! equal rustc's `size_of`/`align_of` (and, for derived types, `offset_of!` of every field), so
//! host and device agree on every byte.

use crate::abi::{Layout, ParamAbi, Scalar};

/// A type with a defined layout in device memory.
///
/// Implemented for the scalars, raw pointers to `DeviceRepr` types, arrays, the native vector
/// types and handles; derive it with `#[derive(DeviceRepr)]` on `#[repr(C)]` structs and
/// unions.
///
/// # Safety
/// `LAYOUT` must be the type's true size and alignment, and `write_bytes` must write exactly the
/// bytes of the value's fields at their ABI offsets. The derive guarantees both.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no device layout: it is not `DeviceRepr`",
    label = "not `DeviceRepr`",
    note = "device data must be a scalar, a raw pointer, an array, a native vector (`ptx_runtime::vector`), or a `#[repr(C)]` type with `#[derive(DeviceRepr)]` (PTX Interoperability §1.2)"
)]
pub unsafe trait DeviceRepr: Copy + 'static {
    /// Size and alignment by the guide's rules.
    const LAYOUT: Layout;
    /// How a value of this type is passed as a parameter.
    const PARAM: ParamAbi;
    /// Whether every byte of a value belongs to a field (no padding anywhere), so a slice of
    /// values is fully initialised bytes that can be copied as they are: without staging on the
    /// host ([`DeviceBuffer::copy_from_slice`](crate::DeviceBuffer::copy_from_slice)) and from
    /// and to [`PinnedBuffer`](crate::PinnedBuffer)s. `false` unless the implementation knows;
    /// the scalars, pointers, native vectors, handles, arrays of such and derived structs whose
    /// fields fill them are `true`.
    const NO_PADDING: bool = false;
    /// Writes the value's bytes, little-endian, into `out[..LAYOUT.size]`; padding bytes are
    /// left as they are (zero in a fresh buffer).
    fn write_bytes(&self, out: &mut [u8]);
    /// The `module_path!()` where a `#[derive(DeviceRepr)]` type is defined: its namespace in
    /// the symbols of generic device functions instantiated with it (`""` for the primitives).
    #[doc(hidden)]
    const MODULE_PATH: &'static str = "";

    /// Whether `bytes` (at least `LAYOUT.size` of them, as read back from the device) hold a
    /// value of the type. Reads from device memory check it and return an error otherwise, so
    /// a buffer the device filled with something else (an enum discriminant no variant has, a
    /// `bool` byte other than 0 or 1) never becomes an invalid value on the host. Every bit
    /// pattern is valid by default.
    fn is_valid(bytes: &[u8]) -> bool {
        let _ = bytes;
        true
    }
}

/// A type that can be a kernel or device-function parameter or return value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a kernel or device function",
    label = "not a PTX parameter type",
    note = "parameters are scalars, pointers, references, slices, arrays, native vectors, handles, or `#[repr(C)]` types with `#[derive(DeviceRepr)]` (PTX Interoperability §2.3)"
)]
pub trait ParamType {
    /// The parameter's ABI class.
    const ABI: ParamAbi;
}

macro_rules! scalars {
    ($($t:ty => $s:ident),* $(,)?) => {$(
        unsafe impl DeviceRepr for $t {
            const LAYOUT: Layout = Layout::scalar(Scalar::$s);
            const PARAM: ParamAbi = ParamAbi::Scalar(Scalar::$s);
            const NO_PADDING: bool = true;
            fn write_bytes(&self, out: &mut [u8]) {
                out[..Self::LAYOUT.size].copy_from_slice(&self.to_le_bytes());
            }
        }
        impl ParamType for $t {
            const ABI: ParamAbi = <$t as DeviceRepr>::PARAM;
        }
        const _: () = assert!(core::mem::size_of::<$t>() == <$t as DeviceRepr>::LAYOUT.size
            && core::mem::align_of::<$t>() == <$t as DeviceRepr>::LAYOUT.align);
    )*};
}

scalars! {
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => U64,
    f32 => F32, f64 => F64, half::f16 => F16, half::bf16 => BF16,
}

unsafe impl DeviceRepr for bool {
    const LAYOUT: Layout = Layout::scalar(Scalar::Bool);
    const PARAM: ParamAbi = ParamAbi::Scalar(Scalar::Bool);
    const NO_PADDING: bool = true;
    fn write_bytes(&self, out: &mut [u8]) {
        out[0] = *self as u8;
    }
    fn is_valid(bytes: &[u8]) -> bool {
        bytes[0] <= 1
    }
}
impl ParamType for bool {
    const ABI: ParamAbi = ParamAbi::Scalar(Scalar::Bool);
}

macro_rules! pointers {
    ($($p:ty),*) => {$(
        unsafe impl<T: DeviceRepr> DeviceRepr for $p {
            const LAYOUT: Layout = Layout::POINTER;
            const PARAM: ParamAbi = ParamAbi::Pointer;
            const NO_PADDING: bool = true;
            fn write_bytes(&self, out: &mut [u8]) {
                out[..8].copy_from_slice(&(*self as usize as u64).to_le_bytes());
            }
        }
        impl<T: DeviceRepr> ParamType for $p {
            const ABI: ParamAbi = ParamAbi::Pointer;
        }
    )*};
}
pointers!(*const T, *mut T);

// References are generic addresses too (note B); slices are `{ T *ptr; size_t len; }`.
impl<T: DeviceRepr> ParamType for &T {
    const ABI: ParamAbi = ParamAbi::Pointer;
}
impl<T: DeviceRepr> ParamType for &mut T {
    const ABI: ParamAbi = ParamAbi::Pointer;
}
impl<T: DeviceRepr> ParamType for &[T] {
    const ABI: ParamAbi = ParamAbi::Aggregate(Layout::SLICE);
}
impl<T: DeviceRepr> ParamType for &mut [T] {
    const ABI: ParamAbi = ParamAbi::Aggregate(Layout::SLICE);
}

unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {
    const LAYOUT: Layout = Layout::array(T::LAYOUT, N);
    const PARAM: ParamAbi = ParamAbi::Aggregate(Self::LAYOUT);
    // Elements follow each other without gaps (a size is a multiple of its alignment).
    const NO_PADDING: bool = T::NO_PADDING;
    fn write_bytes(&self, out: &mut [u8]) {
        for (i, e) in self.iter().enumerate() {
            e.write_bytes(&mut out[i * T::LAYOUT.size..]);
        }
    }
    fn is_valid(bytes: &[u8]) -> bool {
        (0..N).all(|i| T::is_valid(&bytes[i * T::LAYOUT.size..]))
    }
}
impl<T: DeviceRepr, const N: usize> ParamType for [T; N] {
    const ABI: ParamAbi = <[T; N] as DeviceRepr>::PARAM;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes<T: DeviceRepr>(v: T) -> Vec<u8> {
        let mut out = vec![0; T::LAYOUT.size];
        v.write_bytes(&mut out);
        out
    }

    #[test]
    fn scalars_write_little_endian() {
        assert_eq!(bytes(0x0102_0304u32), [4, 3, 2, 1]);
        assert_eq!(bytes(-1i16), [0xff, 0xff]);
        assert_eq!(bytes(true), [1]);
        assert_eq!(bytes([1u16, 2]), [1, 0, 2, 0]);
        assert_eq!(bytes(1.0f32), 1.0f32.to_le_bytes());
    }

    #[test]
    fn parameter_classes() {
        assert_eq!(<&[f32] as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(16, 8)));
        assert_eq!(<*mut u8 as ParamType>::ABI, ParamAbi::Pointer);
        assert_eq!(<[f64; 3] as ParamType>::ABI, ParamAbi::Aggregate(Layout::new(24, 8)));
        assert!(<half::f16 as ParamType>::ABI.check().is_err());
    }
}
