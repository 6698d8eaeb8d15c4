//! Mipmapped arrays (`cudaMipmappedArray_t`, the driver's `CUmipmappedArray`): a CUDA array and
//! its smaller levels, which `tex*_lod` and `tex*_grad` choose between.
//!
//! Level `l` has the extent of level 0 halved `l` times in width, height and depth (rounded
//! down, never below 1; layers and a cube map's faces kept), as `cudaMallocMipmappedArray`
//! makes them. Each level is uploaded and read back as a CUDA array is (texels row by row).

use super::array::ArrayShape;
use super::format::{from_bytes, to_bytes, TexelFormat};
use crate::backend::texture::{ArrayDesc, MipmappedImpl};
use crate::error::{Error, Result};
use crate::stream::Stream;
use ptx_cpu::texture::mipmap::max_levels;
use std::fmt;
use std::marker::PhantomData;

/// A mipmapped array of `E` texels of shape `S` (1-, 2-, 3-D, layered or cube map), freed with
/// its levels when dropped (`cuMipmappedArrayDestroy`). Textures over it
/// ([`TextureDesc::mipmapped`](super::TextureDesc::mipmapped)) borrow it.
///
/// ```
/// # fn main() -> ptx_runtime::Result<()> {
/// use ptx_runtime::texture::{Dim2, MipmappedArray};
/// let stream = ptx_runtime::Device::cpu().stream();
/// let mut m = MipmappedArray::<f32, Dim2>::with_all_levels(&stream, (8, 4))?;
/// assert_eq!(m.levels(), 4);
/// assert_eq!(m.level_extent(1)?, (4, 2, 1));
/// m.copy_level_from_slice(3, &[7.0])?;
/// assert_eq!(m.level_to_vec(3)?, [7.0]);
/// # Ok(())
/// # }
/// ```
pub struct MipmappedArray<E: TexelFormat, S: ArrayShape> {
    pub(crate) inner: Box<dyn MipmappedImpl>,
    extent: S::Extent,
    _elem: PhantomData<fn() -> E>,
}

impl<E: TexelFormat, S: ArrayShape> MipmappedArray<E, S> {
    /// A mipmapped array of `levels` levels, level 0 of `extent` (`cudaMallocMipmappedArray`).
    /// `Err` for a zero dimension or more levels than halving allows (down to 1 × 1 × 1).
    /// Contents are unspecified until written (zeros on the CPU backend).
    pub fn new(stream: &Stream, extent: S::Extent, levels: u32) -> Result<Self> {
        let desc = ArrayDesc { format: E::FORMAT, geometry: S::geometry(extent), dims: S::DIMS, surface_ldst: false, cubemap: S::CUBEMAP, layered: S::LAYERED };
        let (w, h, d) = desc.extent();
        if w == 0 || h == 0 || d == 0 {
            return Err(Error::InvalidConfig { reason: format!("a mipmapped array of extent {extent:?}: every dimension (and the layer count) must be at least 1") });
        }
        let most = max_levels(desc.geometry);
        if levels == 0 || levels > most {
            return Err(Error::InvalidConfig { reason: format!("{levels} mipmap levels for an array of extent {extent:?}: between 1 and {most} (halving down to 1)") });
        }
        let inner = stream.inner.alloc_mipmapped(&desc, levels)?;
        Ok(MipmappedArray { inner, extent, _elem: PhantomData })
    }

    /// Every level down to 1 × 1 × 1: `1 + floor(log2(largest dimension))` of them.
    pub fn with_all_levels(stream: &Stream, extent: S::Extent) -> Result<Self> {
        let levels = max_levels(S::geometry(extent));
        Self::new(stream, extent, levels)
    }

    /// Level 0's extent, as it was made.
    pub fn extent(&self) -> S::Extent {
        self.extent
    }

    /// How many levels it has.
    pub fn levels(&self) -> u32 {
        self.inner.levels()
    }

    /// Level `level`'s `(width, height, depth or layers)`; `Err` past the last level.
    pub fn level_extent(&self, level: u32) -> Result<(usize, usize, usize)> {
        self.check_level(level)?;
        let (w, h, d) = self.inner.level(level).desc().extent();
        Ok((w as usize, h as usize, d as usize))
    }

    /// Texels of level `level`.
    pub fn level_len(&self, level: u32) -> Result<usize> {
        let (w, h, d) = self.level_extent(level)?;
        Ok(w * h * d)
    }

    /// Copies `data` (exactly [`level_len`](Self::level_len) texels, row by row) into level
    /// `level`.
    pub fn copy_level_from_slice(&mut self, level: u32, data: &[E]) -> Result<()> {
        self.check_len(level, "copy_level_from_slice", data.len())?;
        self.inner.level_mut(level).write(&to_bytes(data))
    }

    /// Level `level`'s contents, row by row, after the work queued before on its stream.
    pub fn level_to_vec(&self, level: u32) -> Result<Vec<E>> {
        let n = self.level_len(level)?;
        let mut bytes = vec![0u8; n * E::LAYOUT.size];
        self.inner.level(level).read(&mut bytes)?;
        let mut out = vec![E::default(); n];
        from_bytes(&bytes, &mut out);
        Ok(out)
    }

    fn check_level(&self, level: u32) -> Result<()> {
        if level < self.levels() {
            Ok(())
        } else {
            Err(Error::InvalidConfig { reason: format!("mipmap level {level} of an array of {} levels", self.levels()) })
        }
    }

    fn check_len(&self, level: u32, what: &str, got: usize) -> Result<()> {
        let want = self.level_len(level)?;
        if got != want {
            return Err(Error::InvalidBuffer { reason: format!("{what}: level {level} holds {want} texels, the host slice {got}") });
        }
        Ok(())
    }
}

impl<E: TexelFormat, S: ArrayShape> fmt::Debug for MipmappedArray<E, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MipmappedArray<{}, {}>{:?} ({} levels)", std::any::type_name::<E>(), std::any::type_name::<S>().rsplit("::").next().unwrap_or(""), self.extent, self.levels())
    }
}
