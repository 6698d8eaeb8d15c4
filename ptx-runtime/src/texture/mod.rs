//! Typed texture and surface objects for kernels (CUDA's `cudaTextureObject_t` and
//! `cudaSurfaceObject_t`, PTX Interoperability §1.4).
//!
//! A kernel names what it reads: a `Texture2d<f32>` is a 2-D texture whose fetches return
//! `f32` (an 8- or 16-bit texture read in normalized-float mode is a `Texture2d<f32>` too); it
//! cannot be passed where a `Texture2d<i32>`, a 3-D texture or a surface is expected. In PTX
//! every one is the same 64-bit handle (`.u64` in a kernel's parameters, `.b64` in a device
//! function's, §2.3 note E), as the untyped [`crate::handle`] types are.
//!
//! The reads and writes are in [`crate::device`] (`tex2d`, `surf2d_read`, ...; see
//! `docs/textures.md` for the CUDA names and the PTX they lower to).

mod array;
mod format;
mod mipmap;
mod object;
mod pitched;

pub use array::{Array1d, Array1dLayered, Array2d, Array2dLayered, Array3d, ArrayCubemap, ArrayCubemapLayered, ArrayShape, CudaArray, Cubemap, CubemapLayered, Dim1, Dim2, Dim3, Layered1, Layered2, SurfaceShape};
pub use mipmap::MipmappedArray;
pub use format::{NormalizedTexel, ReadAs, ReadElement, ReadNormalized, TexelFormat};
pub use object::{surface, AddressMode, FilterMode, ObjectHandle, SurfaceObject, TextureDesc, TextureObject};
pub use pitched::{PitchedBuffer, PITCH_ALIGN};

use crate::abi::{Layout, ParamAbi, Scalar};
use crate::{DeviceRepr, ParamType};
use std::marker::PhantomData;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// What a texture fetch returns (`tex.v4.f32`, `.s32`, `.u32`): `f32`, `i32`, `u32`, or the
/// first 2 or all 4 of the lanes as a vector (`f32x2`, `f32x4`, ...: CUDA's `tex2D<float4>`)
/// for a 2- or 4-channel texture.
pub trait Texel: sealed::Sealed + Copy + Default + 'static {
    /// What a gather returns: the four texels' component (`f32x4`, `i32x4`, `u32x4`).
    type V4: Copy;
}

/// What a surface access moves (`suld.b`/`sust.b` of 8, 16, 32 or 64 bits), or a vector of 2
/// or 4 of them of at most 16 bytes (`suld.b.v4.b8` for a `u8x4`, `.v4.b32` for an `f32x4`).
pub trait SurfaceElem: sealed::Sealed + Copy + Default + 'static {}

macro_rules! elems {
    ($($t:ty: $($tr:ident),*;)*) => {$(
        impl sealed::Sealed for $t {}
        $(impl $tr for $t {})*
    )*};
}

impl Texel for f32 {
    type V4 = crate::vector::f32x4;
}
impl Texel for i32 {
    type V4 = crate::vector::i32x4;
}
impl Texel for u32 {
    type V4 = crate::vector::u32x4;
}

macro_rules! vector_texels {
    ($($t:ident => $v4:ident;)*) => {$(
        impl Texel for crate::vector::$t {
            type V4 = crate::vector::$v4;
        }
    )*};
}

vector_texels! {
    f32x2 => f32x4;
    f32x4 => f32x4;
    i32x2 => i32x4;
    i32x4 => i32x4;
    u32x2 => u32x4;
    u32x4 => u32x4;
}

elems! {
    f32: SurfaceElem;
    i32: SurfaceElem;
    u32: SurfaceElem;
    i8: SurfaceElem;
    u8: SurfaceElem;
    i16: SurfaceElem;
    u16: SurfaceElem;
    i64: SurfaceElem;
    u64: SurfaceElem;
    f64: SurfaceElem;
    crate::vector::u8x2: SurfaceElem;
    crate::vector::u8x4: SurfaceElem;
    crate::vector::i8x2: SurfaceElem;
    crate::vector::i8x4: SurfaceElem;
    crate::vector::u16x2: SurfaceElem;
    crate::vector::u16x4: SurfaceElem;
    crate::vector::i16x2: SurfaceElem;
    crate::vector::i16x4: SurfaceElem;
    crate::vector::u32x2: SurfaceElem;
    crate::vector::u32x4: SurfaceElem;
    crate::vector::i32x2: SurfaceElem;
    crate::vector::i32x4: SurfaceElem;
    crate::vector::f32x2: SurfaceElem;
    crate::vector::f32x4: SurfaceElem;
    crate::vector::u64x2: SurfaceElem;
    crate::vector::i64x2: SurfaceElem;
    crate::vector::f64x2: SurfaceElem;
}

/// What `suld`/`sust` do with an out-of-range coordinate (CUDA's `cudaBoundaryMode*`):
/// stop the kernel (`.trap`), clamp it to the edge (`.clamp`), or read zero / drop the write
/// (`.zero`). In a kernel it is written as a constant (`Boundary::Trap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Boundary {
    Trap,
    Clamp,
    Zero,
}

/// `Boundary` named as a type in a kernel or device function (`mode: Boundary`): the device
/// compiler asks every type it does not know for its description by invoking a macro of the
/// type's name (what `#[derive(DeviceRepr)]` generates). This is `Boundary`'s, in the macro
/// namespace beside the enum (imported with it), and answers with the rule: the boundary mode
/// is part of the instruction, a constant at each call. A user type of that name has its own.
#[doc(hidden)]
#[macro_export]
macro_rules! __ptx_boundary_is_a_constant {
    (@ptx_fetch $($rest:tt)*) => {
        $crate::__private::fetch_next! {
            {@refused "`Boundary` is not a type device code can hold: a surface's boundary mode is part of the instruction (`sust.b.2d.b32.trap`), so write it as a constant at each call: `Boundary::Trap`, `Boundary::Clamp` or `Boundary::Zero` (to choose at run time, branch on a flag and call with each constant)"}
            $($rest)*
        }
    };
}
#[doc(hidden)]
pub use crate::__ptx_boundary_is_a_constant as Boundary;

macro_rules! typed_handles {
    ($($(#[$doc:meta])* $name:ident: $bound:ident;)*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        pub struct $name<T> {
            raw: u64,
            _elem: PhantomData<fn() -> T>,
        }

        impl<T> $name<T> {
            /// The handle of a texture or surface object the CUDA driver (or the CPU backend)
            /// created.
            ///
            /// # Safety
            /// `raw` must be an object of this geometry whose elements read as `T`; a kernel
            /// reading it otherwise gets meaningless values or faults.
            pub const unsafe fn from_raw(raw: u64) -> Self {
                $name { raw, _elem: PhantomData }
            }

            /// The 64-bit handle.
            pub const fn raw(self) -> u64 {
                self.raw
            }
        }

        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T> PartialEq for $name<T> {
            fn eq(&self, other: &Self) -> bool {
                self.raw == other.raw
            }
        }
        impl<T> Eq for $name<T> {}
        impl<T> std::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!(stringify!($name), "<{}>({:#x})"), std::any::type_name::<T>(), self.raw)
            }
        }

        unsafe impl<T: $bound> DeviceRepr for $name<T> {
            const LAYOUT: Layout = Layout::scalar(Scalar::U64);
            const PARAM: ParamAbi = ParamAbi::Handle;
            const NO_PADDING: bool = true;
            fn write_bytes(&self, out: &mut [u8]) {
                self.raw.write_bytes(out)
            }
        }
        impl<T: $bound> ParamType for $name<T> {
            const ABI: ParamAbi = ParamAbi::Handle;
        }
    )*};
}

typed_handles! {
    /// A 1-D texture: `tex1d_fetch` (an element index, CUDA `tex1Dfetch`) and `tex1d`.
    Texture1d: Texel;
    /// A 2-D texture: `tex2d`, `tex2d_lod`, `tex2d_grad`, `tex2d_gather`.
    Texture2d: Texel;
    /// A 3-D texture: `tex3d`, `tex3d_lod`.
    Texture3d: Texel;
    /// A layered 1-D texture: `tex1d_layered`.
    Texture1dLayered: Texel;
    /// A layered 2-D texture: `tex2d_layered`, `tex2d_layered_gather`.
    Texture2dLayered: Texel;
    /// A cube map: `tex_cubemap`, `tex_cubemap_lod`, `tex_cubemap_grad` (CUDA's `texCubemap`).
    TextureCubemap: Texel;
    /// A layered cube map: `tex_cubemap_layered`, `tex_cubemap_layered_lod`.
    TextureCubemapLayered: Texel;
    /// A 1-D surface: `surf1d_read`, `surf1d_write`.
    Surface1d: SurfaceElem;
    /// A 2-D surface: `surf2d_read`, `surf2d_write`.
    Surface2d: SurfaceElem;
    /// A 3-D surface: `surf3d_read`, `surf3d_write`.
    Surface3d: SurfaceElem;
    /// A layered 1-D surface: `surf1d_layered_read`, `surf1d_layered_write`.
    Surface1dLayered: SurfaceElem;
    /// A layered 2-D surface: `surf2d_layered_read`, `surf2d_layered_write`.
    Surface2dLayered: SurfaceElem;
}
