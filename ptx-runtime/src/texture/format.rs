//! What an array or buffer holds and what a texture over it returns: the element types a
//! texture can be made over ([`TexelFormat`]) and the two read modes, as types, so that the
//! handle's texel type follows from them and a combination CUDA does not have is a type error.

use super::{sealed, Texel};
use crate::vector::{f16x2, f16x4, f32x2, f32x4, i16x2, i16x4, i32x2, i32x4, i8x2, i8x4, u16x2, u16x4, u32x2, u32x4, u8x2, u8x4};
use crate::DeviceRepr;
use ptx_cpu::texture::{ChannelKind, Format, ReadMode};

/// An element type of a CUDA array, pitched buffer or linear buffer that textures read: one
/// channel of 8, 16 or 32 bits (`u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `f32`, `half::f16`),
/// or two or four of them as the runtime's vector types (`u8x4` is CUDA's `uchar4`, `f32x4`
/// its `float4`, `f16x2` its `half2`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a texel format",
    note = "textures and CUDA arrays hold 1, 2 or 4 channels of `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `f32` or `half::f16` (`u8x4`, `f32x2`, `f32x4`, ... of `ptx_runtime::vector`)"
)]
pub trait TexelFormat: sealed::Sealed + DeviceRepr + Copy + Default + 'static {
    /// CUDA's channel format (`CUarray_format` and one channel).
    const FORMAT: Format;
    /// What an element-type read returns: `u32` for unsigned integers, `i32` for signed ones
    /// (the value widened, as `tex.v4.u32`/`.s32` return it), `f32` for floats (a `half`
    /// is widened); of a 2- or 4-channel format the vector of as many (`u8x4` reads `u32x4`).
    type Element: Texel;
}

/// An 8- or 16-bit integer format, which a texture may read as a normalized float: unsigned
/// to [0, 1], signed to [-1, 1] (`cudaReadModeNormalizedFloat`).
#[diagnostic::on_unimplemented(
    message = "a texture over `{Self}` cannot be read as normalized floats",
    note = "normalized-float reads are for 8- and 16-bit integers (`u8`, `i8`, `u16`, `i16`); read other formats with the default element-type read mode (drop `.normalized_float()`)"
)]
pub trait NormalizedTexel: TexelFormat {
    /// What a normalized-float read returns: `f32`, or `f32x2` / `f32x4` for 2 or 4 channels.
    type Normalized: Texel;
}

macro_rules! formats {
    ($($t:ty: $kind:ident $bits:literal x $ch:literal => $elem:ty $(, $norm:ty)?;)*) => {$(
        impl TexelFormat for $t {
            const FORMAT: Format = Format { kind: ChannelKind::$kind, bits: $bits, channels: $ch };
            type Element = $elem;
        }
        $(impl NormalizedTexel for $t {
            type Normalized = $norm;
        })?
    )*};
}

impl sealed::Sealed for half::f16 {}
impl sealed::Sealed for f16x2 {}
impl sealed::Sealed for f16x4 {}

formats! {
    u8: Unsigned 8 x 1 => u32, f32;
    i8: Signed 8 x 1 => i32, f32;
    u16: Unsigned 16 x 1 => u32, f32;
    i16: Signed 16 x 1 => i32, f32;
    u32: Unsigned 32 x 1 => u32;
    i32: Signed 32 x 1 => i32;
    f32: Float 32 x 1 => f32;
    half::f16: Float 16 x 1 => f32;
    u8x2: Unsigned 8 x 2 => u32x2, f32x2;
    i8x2: Signed 8 x 2 => i32x2, f32x2;
    u16x2: Unsigned 16 x 2 => u32x2, f32x2;
    i16x2: Signed 16 x 2 => i32x2, f32x2;
    u32x2: Unsigned 32 x 2 => u32x2;
    i32x2: Signed 32 x 2 => i32x2;
    f32x2: Float 32 x 2 => f32x2;
    f16x2: Float 16 x 2 => f32x2;
    u8x4: Unsigned 8 x 4 => u32x4, f32x4;
    i8x4: Signed 8 x 4 => i32x4, f32x4;
    u16x4: Unsigned 16 x 4 => u32x4, f32x4;
    i16x4: Signed 16 x 4 => i32x4, f32x4;
    u32x4: Unsigned 32 x 4 => u32x4;
    i32x4: Signed 32 x 4 => i32x4;
    f32x4: Float 32 x 4 => f32x4;
    f16x4: Float 16 x 4 => f32x4;
}

/// The element-type read mode (`cudaReadModeElementType`, the default): texels as stored.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadElement;

/// The normalized-float read mode (`cudaReadModeNormalizedFloat`): 8- and 16-bit integers
/// read as `f32` in [0, 1] or [-1, 1].
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadNormalized;

/// A read mode of texels of type `E`: what a fetch returns (the handle's texel type).
#[diagnostic::on_unimplemented(
    message = "a texture over `{E}` cannot be read in this mode",
    note = "normalized-float reads are for 8- and 16-bit integers (`u8`, `i8`, `u16`, `i16`); read other formats with the default element-type read mode (drop `.normalized_float()`)"
)]
pub trait ReadAs<E: TexelFormat>: sealed::Sealed + Copy {
    type Texel: Texel;
    const MODE: ReadMode;
}

impl sealed::Sealed for ReadElement {}
impl sealed::Sealed for ReadNormalized {}

impl<E: TexelFormat> ReadAs<E> for ReadElement {
    type Texel = E::Element;
    const MODE: ReadMode = ReadMode::ElementType;
}

impl<E: NormalizedTexel> ReadAs<E> for ReadNormalized {
    type Texel = E::Normalized;
    const MODE: ReadMode = ReadMode::NormalizedFloat;
}

/// The bytes of `data`, each element as the ABI lays it out.
pub(crate) fn to_bytes<E: TexelFormat>(data: &[E]) -> Vec<u8> {
    let size = E::LAYOUT.size;
    let mut bytes = vec![0u8; data.len() * size];
    for (v, out) in data.iter().zip(bytes.chunks_exact_mut(size)) {
        v.write_bytes(out);
    }
    bytes
}

/// Elements from their bytes (every bit pattern is a value of a texel format).
pub(crate) fn from_bytes<E: TexelFormat>(bytes: &[u8], out: &mut [E]) {
    let size = E::LAYOUT.size;
    for (slot, b) in out.iter_mut().zip(bytes.chunks_exact(size)) {
        // SAFETY: `b` holds `size` bytes of a plain integer or float type or a vector of them
        // without padding, all of whose bit patterns are values (the trait is sealed to those).
        *slot = unsafe { std::ptr::read_unaligned(b.as_ptr() as *const E) };
    }
}
