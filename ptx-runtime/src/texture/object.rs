//! Texture and surface objects (`cudaCreateTextureObject`, `cudaCreateSurfaceObject`): made
//! over memory they borrow, destroyed when dropped, handing kernels the typed handle.
//!
//! The handle's type follows from the memory and the read mode: a [`TextureDesc`] over an
//! [`Array2d<u8>`](super::Array2d) gives a `Texture2d<u32>`, the same with
//! `.normalized_float()` a `Texture2d<f32>`; a normalized-float read of `f32`s does not
//! compile. What only shows at run time (linear filtering of integers read as integers, a
//! surface over an array made without surface load/store, memory of another device) is an
//! `Err` before anything is created.

use super::array::{ArrayShape, CudaArray, SurfaceShape};
use super::format::{ReadAs, ReadElement, ReadNormalized, TexelFormat};
use super::pitched::PitchedBuffer;
use super::mipmap::MipmappedArray;
use super::{sealed, Surface1d, Surface1dLayered, Surface2d, Surface2dLayered, Surface3d, SurfaceElem, Texel, Texture1d, Texture1dLayered, Texture2d, Texture2dLayered, Texture3d, TextureCubemap, TextureCubemapLayered};
use crate::arg::{Args, KernelArg};
use crate::backend::texture::{ObjectImpl, TexResource};
use crate::backend::DeviceId;
use crate::buffer::DeviceBuffer;
use crate::error::{Error, Result};
use crate::stream::Stream;
use ptx_cpu::texture::{ChannelKind, ReadMode, Sampler};
pub use ptx_cpu::texture::{AddressMode, FilterMode};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// A typed texture or surface handle (`Texture2d<f32>`, `Surface2d<u8>`, ...).
pub trait ObjectHandle: sealed::Sealed + Copy + fmt::Debug + 'static {
    #[doc(hidden)]
    fn from_object(raw: u64) -> Self;
}

macro_rules! handles {
    ($($name:ident: $bound:ident),*) => {$(
        impl<T: $bound> sealed::Sealed for $name<T> {}
        impl<T: $bound> ObjectHandle for $name<T> {
            fn from_object(raw: u64) -> Self {
                // SAFETY: only called with an object made over memory of `T`s of this
                // geometry, read in the mode that returns `T` (this module's constructors).
                unsafe { $name::from_raw(raw) }
            }
        }
    )*};
}

handles!(Texture1d: Texel, Texture2d: Texel, Texture3d: Texel, Texture1dLayered: Texel, Texture2dLayered: Texel, TextureCubemap: Texel, TextureCubemapLayered: Texel, Surface1d: SurfaceElem, Surface2d: SurfaceElem, Surface3d: SurfaceElem, Surface1dLayered: SurfaceElem, Surface2dLayered: SurfaceElem);

/// How a texture samples (CUDA's `cudaTextureDesc`): address modes, filtering, coordinates,
/// read mode (the type parameter: [`ReadElement`] by default, [`ReadNormalized`] after
/// [`normalized_float`](Self::normalized_float)), sRGB and border colour. The defaults:
/// clamp, point filtering, unnormalized coordinates, element type, no sRGB, border zero.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::texture::{AddressMode, Array2d, FilterMode, Texture2d, TextureDesc};
/// let stream = ptx_runtime::Device::cpu().stream();
/// let image = Array2d::<u8>::from_slice(&stream, (2, 2), &[0, 64, 128, 255])?;
/// let tex = TextureDesc::new()
///     .address_mode(AddressMode::Clamp)
///     .filter(FilterMode::Linear)
///     .normalized_coords(true)
///     .normalized_float()
///     .array(&stream, &image)?;
/// let handle: Texture2d<f32> = tex.handle(); // or pass `&tex` to the kernel
/// # let _ = handle;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TextureDesc<R = ReadElement> {
    sampler: Sampler,
    _read: PhantomData<R>,
}

impl TextureDesc<ReadElement> {
    /// Clamp in every dimension, point filtering, unnormalized coordinates, texels read as
    /// stored, no sRGB, a zero border colour.
    pub fn new() -> Self {
        TextureDesc { sampler: Sampler::default(), _read: PhantomData }
    }

    /// Reads 8- and 16-bit integers as floats in [0, 1] (unsigned) or [-1, 1] (signed)
    /// (`cudaReadModeNormalizedFloat`): the texture's handle then reads `f32`.
    pub fn normalized_float(self) -> TextureDesc<ReadNormalized> {
        TextureDesc { sampler: self.sampler, _read: PhantomData }
    }
}

impl Default for TextureDesc<ReadElement> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> TextureDesc<R> {
    /// The address mode of every dimension (`addressMode[0..3]`).
    pub fn address_mode(mut self, mode: AddressMode) -> Self {
        self.sampler.address = [mode; 3];
        self
    }

    /// The address modes of x, y and z.
    pub fn address_modes(mut self, modes: [AddressMode; 3]) -> Self {
        self.sampler.address = modes;
        self
    }

    /// Point or linear (bilinear, trilinear) filtering (`filterMode`).
    pub fn filter(mut self, filter: FilterMode) -> Self {
        self.sampler.filter = filter;
        self
    }

    /// Coordinates in [0, 1) rather than [0, size) (`normalizedCoords`).
    pub fn normalized_coords(mut self, on: bool) -> Self {
        self.sampler.normalized_coords = on;
        self
    }

    /// Decodes 8-bit channels read as normalized floats from sRGB to linear (`sRGB`).
    pub fn srgb(mut self, on: bool) -> Self {
        self.sampler.srgb = on;
        self
    }

    /// What [`AddressMode::Border`] reads outside the texture (`borderColor`).
    pub fn border_color(mut self, rgba: [f32; 4]) -> Self {
        self.sampler.border_color = rgba;
        self
    }

    /// Between mipmap levels: the nearest level (`Point`, the default) or a blend of the two
    /// around the level of detail (`Linear`) (`mipmapFilterMode`).
    pub fn mipmap_filter(mut self, filter: FilterMode) -> Self {
        self.sampler.mipmap_filter = filter;
        self
    }

    /// Added to every level of detail (`mipmapLevelBias`).
    pub fn mipmap_level_bias(mut self, bias: f32) -> Self {
        self.sampler.mipmap_level_bias = bias;
        self
    }

    /// The level of detail's bounds (`minMipmapLevelClamp`, `maxMipmapLevelClamp`); by
    /// default 0 and the last level.
    pub fn mipmap_level_clamp(mut self, min: f32, max: f32) -> Self {
        self.sampler.min_mipmap_level_clamp = min;
        self.sampler.max_mipmap_level_clamp = max;
        self
    }

    /// `maxAnisotropy` (1 to 16 on a GPU; 0, the default, is 1). The CPU backend filters
    /// isotropically whatever it is.
    pub fn max_anisotropy(mut self, n: u32) -> Self {
        self.sampler.max_anisotropy = n;
        self
    }

    /// The CPU device's sampler this describes (the driver's `CUDA_TEXTURE_DESC`).
    pub fn sampler(&self) -> Sampler {
        self.sampler
    }

    /// A texture over a CUDA array: a `Texture1d`, `Texture2d`, `Texture3d`,
    /// `Texture1dLayered` or `Texture2dLayered` after the array's shape.
    pub fn array<'a, E: TexelFormat, S: ArrayShape>(&self, stream: &Stream, array: &'a CudaArray<E, S>) -> Result<TextureObject<'a, S::Texture<R::Texel>>>
    where
        R: ReadAs<E>,
    {
        self.check::<E>()?;
        same_device(stream, array.inner.device(), "array")?;
        TextureObject::create(stream, TexResource::Array(&*array.inner), &self.sampler_for::<E>())
    }

    /// A texture over a mipmapped array (`cudaResourceTypeMipmappedArray`), of the handle
    /// type a texture over its level 0 has. The upper level clamp is at most the last level.
    pub fn mipmapped<'a, E: TexelFormat, S: ArrayShape>(&self, stream: &Stream, array: &'a MipmappedArray<E, S>) -> Result<TextureObject<'a, S::Texture<R::Texel>>>
    where
        R: ReadAs<E>,
    {
        self.check::<E>()?;
        same_device(stream, array.inner.device(), "mipmapped array")?;
        let mut sampler = self.sampler_for::<E>();
        sampler.max_mipmap_level_clamp = sampler.max_mipmap_level_clamp.min((array.levels() - 1) as f32);
        TextureObject::create(stream, TexResource::Mipmapped(&*array.inner), &sampler)
    }

    /// A texture over a linear buffer, read by `tex1d_fetch` (`cudaResourceTypeLinear`;
    /// filtering, address modes and normalized coordinates do not apply to it).
    pub fn linear<'a, E: TexelFormat>(&self, stream: &Stream, buffer: &'a DeviceBuffer<E>) -> Result<TextureObject<'a, Texture1d<R::Texel>>>
    where
        R: ReadAs<E>,
    {
        self.check::<E>()?;
        same_device(stream, buffer.mem.device(), "buffer")?;
        if buffer.is_empty() {
            return Err(Error::InvalidConfig { reason: "a texture over an empty buffer".into() });
        }
        let resource = TexResource::Linear { mem: &*buffer.mem, format: E::FORMAT, width: buffer.len() as u64 };
        TextureObject::create(stream, resource, &self.sampler_for::<E>())
    }

    /// A 2-D texture over a pitched buffer (`cudaResourceTypePitch2D`).
    pub fn pitched<'a, E: TexelFormat>(&self, stream: &Stream, buffer: &'a PitchedBuffer<E>) -> Result<TextureObject<'a, Texture2d<R::Texel>>>
    where
        R: ReadAs<E>,
    {
        self.check::<E>()?;
        same_device(stream, buffer.mem.device(), "pitched buffer")?;
        let resource = TexResource::Pitch2d { mem: &*buffer.mem, format: E::FORMAT, width: buffer.width() as u64, height: buffer.height() as u64, pitch: buffer.pitch() as u64 };
        TextureObject::create(stream, resource, &self.sampler_for::<E>())
    }

    fn sampler_for<E: TexelFormat>(&self) -> Sampler
    where
        R: ReadAs<E>,
    {
        Sampler { read: R::MODE, ..self.sampler }
    }

    /// What CUDA refuses and the types cannot say: filtering texels read as integers.
    fn check<E: TexelFormat>(&self) -> Result<()>
    where
        R: ReadAs<E>,
    {
        let linear = self.sampler.filter == FilterMode::Linear || self.sampler.mipmap_filter == FilterMode::Linear;
        if linear && R::MODE == ReadMode::ElementType && E::FORMAT.kind != ChannelKind::Float {
            return Err(Error::InvalidConfig {
                reason: format!(
                    "linear filtering of `{}` texels read as integers: CUDA filters only textures that return floats (within a level and between mipmap levels); read them with `.normalized_float()` (8- and 16-bit integers) or use `FilterMode::Point`",
                    std::any::type_name::<E>()
                ),
            });
        }
        Ok(())
    }
}

fn same_device(stream: &Stream, device: DeviceId, what: &str) -> Result<()> {
    if device == stream.inner.device().id() {
        Ok(())
    } else {
        Err(Error::InvalidBuffer { reason: format!("a texture or surface object over a {what} of another device than the stream's") })
    }
}

/// A texture object (`cudaTextureObject_t`) over memory it borrows for `'a`; destroyed when
/// dropped (`cudaDestroyTextureObject`). Pass `&texture` (or [`handle`](Self::handle)) for a
/// kernel parameter of type `H`.
pub struct TextureObject<'a, H: ObjectHandle> {
    object: Box<dyn ObjectImpl>,
    alive: Arc<()>,
    _borrow: PhantomData<(&'a (), H)>,
}

/// A surface object (`cudaSurfaceObject_t`) over a CUDA array made with
/// [`new_surface_ldst`](CudaArray::new_surface_ldst), borrowed for `'a`; destroyed when
/// dropped. Pass `&surface` (or [`handle`](Self::handle)) for a parameter of type `H`.
pub struct SurfaceObject<'a, H: ObjectHandle> {
    object: Box<dyn ObjectImpl>,
    alive: Arc<()>,
    _borrow: PhantomData<(&'a (), H)>,
}

impl<'a, H: ObjectHandle> TextureObject<'a, H> {
    fn create(stream: &Stream, resource: TexResource<'_>, sampler: &Sampler) -> Result<Self> {
        let object = stream.inner.create_texture(resource, sampler)?;
        Ok(TextureObject { object, alive: Arc::new(()), _borrow: PhantomData })
    }

    /// The typed handle a kernel reads the texture through. It is valid while `self` lives.
    pub fn handle(&self) -> H {
        H::from_object(self.object.handle())
    }
}

impl<'a, H: ObjectHandle> SurfaceObject<'a, H> {
    /// A surface over `array`, which must have been made with
    /// [`new_surface_ldst`](CudaArray::new_surface_ldst).
    pub fn new<E, S>(stream: &Stream, array: &'a CudaArray<E, S>) -> Result<SurfaceObject<'a, S::Surface<E>>>
    where
        E: TexelFormat + SurfaceElem,
        S: SurfaceShape,
    {
        same_device(stream, array.inner.device(), "array")?;
        if !array.surface_ldst() {
            return Err(Error::InvalidConfig { reason: "a surface over a CUDA array made without surface load/store: make the array with `CudaArray::new_surface_ldst` (cudaArraySurfaceLoadStore)".into() });
        }
        let object = stream.inner.create_surface(&*array.inner)?;
        Ok(SurfaceObject { object, alive: Arc::new(()), _borrow: PhantomData })
    }

    /// The typed handle a kernel reads and writes the surface through, valid while `self` lives.
    pub fn handle(&self) -> H {
        H::from_object(self.object.handle())
    }
}

/// A surface over `array` (made with [`CudaArray::new_surface_ldst`]): `Surface1d<E>`,
/// `Surface2d<E>`, `Surface3d<E>`, `Surface1dLayered<E>` or `Surface2dLayered<E>` after its
/// shape.
pub fn surface<'a, E, S>(stream: &Stream, array: &'a CudaArray<E, S>) -> Result<SurfaceObject<'a, S::Surface<E>>>
where
    E: TexelFormat + SurfaceElem,
    S: SurfaceShape,
{
    SurfaceObject::<S::Surface<E>>::new(stream, array)
}

macro_rules! object_common {
    ($($ty:ident),*) => {$(
        impl<H: ObjectHandle> fmt::Debug for $ty<'_, H> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($ty), "({:?})"), self.handle())
            }
        }

        /// The object's handle, after checking it belongs to the launch's device; the launch
        /// borrows the object, so it cannot be destroyed before the launch is enqueued. (The
        /// lifetime is `'z` so that rustc's sorted lists of `KernelArg` impls in other
        /// diagnostics keep showing the buffer impls first.)
        impl<'z, H: ObjectHandle> KernelArg<H> for &'z $ty<'_, H> {
            fn push<'a>(self, args: &mut Args<'a>) -> Result<()>
            where
                Self: 'a,
            {
                if self.object.device() != args.stream.inner.device().id() {
                    return Err(Error::InvalidBuffer { reason: concat!("a ", stringify!($ty), " of another device than the launch's stream").into() });
                }
                args.uses.push(self.alive.clone());
                args.push_bytes(self.object.handle().to_le_bytes().to_vec());
                Ok(())
            }
        }
    )*};
}

object_common!(TextureObject, SurfaceObject);
