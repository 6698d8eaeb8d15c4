//! CUDA arrays (`cudaArray_t`, the driver's `CUarray`): texel storage that textures read with
//! caching and filtering in 1-D, 2-D, 3-D or layers, and surfaces read and write.
//!
//! On a GPU an array's layout is opaque; on the CPU backend it is an ordinary allocation,
//! rows tightly packed (`ptx_cpu::texture`). Either way the host sees the texels row by row,
//! rows of a slice (or layer) together, slices one after another: `copy_from_slice` and
//! `to_vec` take and give them in that order (`cuMemcpy3D` with a tightly packed host side).

use super::format::{from_bytes, to_bytes, TexelFormat};
use super::{sealed, Surface1d, Surface1dLayered, Surface2d, Surface2dLayered, Surface3d, SurfaceElem, Texel, Texture1d, Texture1dLayered, Texture2d, Texture2dLayered, Texture3d, TextureCubemap, TextureCubemapLayered};
use crate::backend::texture::{ArrayDesc, ArrayImpl};
use crate::error::{Error, Result};
use crate::stream::Stream;
use ptx_cpu::texture::Geometry;
use std::fmt;
use std::marker::PhantomData;

/// The shape of a CUDA array: [`Dim1`], [`Dim2`], [`Dim3`], [`Layered1`], [`Layered2`],
/// [`Cubemap`], [`CubemapLayered`].
pub trait ArrayShape: sealed::Sealed + 'static {
    /// The extent as the constructor takes it: `width`, `(width, height)`,
    /// `(width, height, depth)`, `(width, layers)`, `(width, height, layers)`.
    type Extent: Copy + fmt::Debug;
    /// The texture handle over such an array, reading `T`s.
    type Texture<T: Texel>: super::object::ObjectHandle;
    #[doc(hidden)]
    const DIMS: u32;
    /// The driver's `CUDA_ARRAY3D_LAYERED` flag.
    #[doc(hidden)]
    const LAYERED: bool;
    /// The driver's `CUDA_ARRAY3D_CUBEMAP` flag.
    #[doc(hidden)]
    const CUBEMAP: bool = false;
    #[doc(hidden)]
    fn geometry(extent: Self::Extent) -> Geometry;
}

/// A shape surfaces can be made over (every one).
pub trait SurfaceShape: ArrayShape {
    /// The surface handle over such an array, moving `E`s.
    type Surface<E: SurfaceElem>: super::object::ObjectHandle;
}

/// 1-D: `width` texels.
#[derive(Clone, Copy, Debug)]
pub struct Dim1;
/// 2-D: `(width, height)`.
#[derive(Clone, Copy, Debug)]
pub struct Dim2;
/// 3-D: `(width, height, depth)`.
#[derive(Clone, Copy, Debug)]
pub struct Dim3;
/// Layered 1-D (`cudaArrayLayered`): `(width, layers)`.
#[derive(Clone, Copy, Debug)]
pub struct Layered1;
/// Layered 2-D: `(width, height, layers)`.
#[derive(Clone, Copy, Debug)]
pub struct Layered2;
/// A cube map (`cudaArrayCubemap`): six `width × width` faces, `width`.
#[derive(Clone, Copy, Debug)]
pub struct Cubemap;
/// A layered cube map (`cudaArrayCubemap | cudaArrayLayered`): `(width, cubes)`, six faces a
/// cube.
#[derive(Clone, Copy, Debug)]
pub struct CubemapLayered;

macro_rules! shapes {
    ($($shape:ident, $dims:literal, $layered:literal, $ext:ty, |$e:ident| $geom:expr, $tex:ident $(, $surf:ident)?;)*) => {$(
        impl sealed::Sealed for $shape {}
        impl ArrayShape for $shape {
            type Extent = $ext;
            type Texture<T: Texel> = $tex<T>;
            const DIMS: u32 = $dims;
            const LAYERED: bool = $layered;
            fn geometry($e: $ext) -> Geometry {
                $geom
            }
        }
        $(impl SurfaceShape for $shape {
            type Surface<E: SurfaceElem> = $surf<E>;
        })?
    )*};
}

shapes! {
    Dim1, 1, false, usize, |w| Geometry::Plain { width: w as u64, height: 1, depth: 1 }, Texture1d, Surface1d;
    Dim2, 2, false, (usize, usize), |e| Geometry::Plain { width: e.0 as u64, height: e.1 as u64, depth: 1 }, Texture2d, Surface2d;
    Dim3, 3, false, (usize, usize, usize), |e| Geometry::Plain { width: e.0 as u64, height: e.1 as u64, depth: e.2 as u64 }, Texture3d, Surface3d;
    Layered1, 1, true, (usize, usize), |e| Geometry::Layered { width: e.0 as u64, height: 1, layers: e.1 as u64 }, Texture1dLayered, Surface1dLayered;
    Layered2, 2, true, (usize, usize, usize), |e| Geometry::Layered { width: e.0 as u64, height: e.1 as u64, layers: e.2 as u64 }, Texture2dLayered, Surface2dLayered;
}

impl sealed::Sealed for Cubemap {}
impl ArrayShape for Cubemap {
    type Extent = usize;
    type Texture<T: Texel> = TextureCubemap<T>;
    const DIMS: u32 = 2;
    const LAYERED: bool = false;
    const CUBEMAP: bool = true;
    fn geometry(w: usize) -> Geometry {
        Geometry::Layered { width: w as u64, height: w as u64, layers: 6 }
    }
}

impl sealed::Sealed for CubemapLayered {}
impl ArrayShape for CubemapLayered {
    type Extent = (usize, usize);
    type Texture<T: Texel> = TextureCubemapLayered<T>;
    const DIMS: u32 = 2;
    const LAYERED: bool = true;
    const CUBEMAP: bool = true;
    fn geometry((w, cubes): (usize, usize)) -> Geometry {
        Geometry::Layered { width: w as u64, height: w as u64, layers: 6 * cubes as u64 }
    }
}

/// A CUDA array of `E` texels of shape `S`, freed when dropped (`cuArrayDestroy`). Texture
/// and surface objects over it borrow it, so it outlives them.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::texture::Array2d;
/// let stream = ptx_runtime::Device::cpu().stream();
/// let mut image = Array2d::<u8>::new(&stream, (4, 2))?;
/// image.copy_from_slice(&[0, 1, 2, 3, 4, 5, 6, 7])?;
/// assert_eq!(image.to_vec()?, [0, 1, 2, 3, 4, 5, 6, 7]);
/// # Ok(())
/// # }
/// ```
pub struct CudaArray<E: TexelFormat, S: ArrayShape> {
    pub(crate) inner: Box<dyn ArrayImpl>,
    extent: S::Extent,
    _elem: PhantomData<fn() -> E>,
}

/// A 1-D CUDA array.
pub type Array1d<E> = CudaArray<E, Dim1>;
/// A 2-D CUDA array.
pub type Array2d<E> = CudaArray<E, Dim2>;
/// A 3-D CUDA array.
pub type Array3d<E> = CudaArray<E, Dim3>;
/// A layered 1-D CUDA array.
pub type Array1dLayered<E> = CudaArray<E, Layered1>;
/// A layered 2-D CUDA array.
pub type Array2dLayered<E> = CudaArray<E, Layered2>;
/// A cube map: faces +x, −x, +y, −y, +z, −z one after another (see `ptx_cpu::texture::cube`).
pub type ArrayCubemap<E> = CudaArray<E, Cubemap>;
/// A layered cube map: the cubes one after another, six faces each.
pub type ArrayCubemapLayered<E> = CudaArray<E, CubemapLayered>;

impl<E: TexelFormat, S: ArrayShape> CudaArray<E, S> {
    /// An array of `extent` for textures (`cudaMalloc3DArray`, no flags). Its contents are
    /// unspecified until written (zeros on the CPU backend).
    pub fn new(stream: &Stream, extent: S::Extent) -> Result<Self> {
        Self::alloc(stream, extent, false)
    }

    /// An array that surfaces can also be made over (`cudaArraySurfaceLoadStore`).
    pub fn new_surface_ldst(stream: &Stream, extent: S::Extent) -> Result<Self>
    where
        S: SurfaceShape,
    {
        Self::alloc(stream, extent, true)
    }

    /// An array of `extent` holding `data` (row by row, see the module docs).
    pub fn from_slice(stream: &Stream, extent: S::Extent, data: &[E]) -> Result<Self> {
        let mut a = Self::new(stream, extent)?;
        a.copy_from_slice(data)?;
        Ok(a)
    }

    fn alloc(stream: &Stream, extent: S::Extent, surface_ldst: bool) -> Result<Self> {
        let desc = ArrayDesc { format: E::FORMAT, geometry: S::geometry(extent), dims: S::DIMS, surface_ldst, cubemap: S::CUBEMAP, layered: S::LAYERED };
        let (w, h, d) = desc.extent();
        if w == 0 || h == 0 || d == 0 {
            return Err(Error::InvalidConfig { reason: format!("a CUDA array of extent {extent:?}: every dimension (and the layer count) must be at least 1") });
        }
        let inner = stream.inner.alloc_array(&desc)?;
        Ok(CudaArray { inner, extent, _elem: PhantomData })
    }

    /// The extent it was made with.
    pub fn extent(&self) -> S::Extent {
        self.extent
    }

    /// Texels in all (width × height × depth or layers).
    pub fn len(&self) -> usize {
        let (w, h, d) = self.inner.desc().extent();
        (w * h * d) as usize
    }

    /// Never: every dimension is at least 1.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether surfaces may be made over it.
    pub fn surface_ldst(&self) -> bool {
        self.inner.desc().surface_ldst
    }

    /// Copies `data` (exactly [`len`](Self::len) texels, row by row) into the array.
    pub fn copy_from_slice(&mut self, data: &[E]) -> Result<()> {
        self.check_len("copy_from_slice", data.len())?;
        self.inner.write(&to_bytes(data))
    }

    /// Copies the array into `out` (exactly [`len`](Self::len) texels), after the work
    /// queued before on its stream.
    pub fn copy_to_slice(&self, out: &mut [E]) -> Result<()> {
        self.check_len("copy_to_slice", out.len())?;
        let mut bytes = vec![0u8; self.len() * E::LAYOUT.size];
        self.inner.read(&mut bytes)?;
        from_bytes(&bytes, out);
        Ok(())
    }

    /// The contents, row by row.
    pub fn to_vec(&self) -> Result<Vec<E>> {
        let mut out = vec![E::default(); self.len()];
        self.copy_to_slice(&mut out)?;
        Ok(out)
    }

    fn check_len(&self, what: &str, got: usize) -> Result<()> {
        if got != self.len() {
            return Err(Error::InvalidBuffer { reason: format!("{what}: the array holds {} texels ({:?}), the host slice {got}", self.len(), self.extent) });
        }
        Ok(())
    }
}

impl<E: TexelFormat, S: ArrayShape> fmt::Debug for CudaArray<E, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CudaArray<{}, {}>{:?}", std::any::type_name::<E>(), std::any::type_name::<S>().rsplit("::").next().unwrap_or(""), self.extent)
    }
}
