//! CUDA arrays, texture objects and surface objects behind the runtime's interface.
//!
//! Both backends build them from one description, the CPU device's descriptors
//! (`ptx_cpu::texture`), which are the CUDA driver's field for field: a [`Format`] and a
//! [`Geometry`] for an array, a [`TexResource`] and a [`Sampler`] for a texture.

use super::{DeviceId, MemoryImpl};
use crate::error::Result;
use ptx_cpu::texture::{Format, Geometry};
use std::any::Any;

/// What a CUDA array holds: `cuArray3DCreate`'s descriptor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ArrayDesc {
    pub format: Format,
    pub geometry: Geometry,
    /// 1, 2 or 3: a 1-D array (or layered 1-D) has height 1 and a 2-D one depth 1 in
    /// `geometry`, which alone cannot tell a 2-D array one row high from a 1-D array.
    pub dims: u32,
    /// `CUDA_ARRAY3D_SURFACE_LDST`: surfaces may be made over it.
    pub surface_ldst: bool,
    /// `CUDA_ARRAY3D_CUBEMAP`: the layers of `geometry` (`width × width`, 6 per cube) are a
    /// cube map's faces.
    pub cubemap: bool,
    /// `CUDA_ARRAY3D_LAYERED`: a layered array or a layered cube map (`geometry` is
    /// `Layered` for those and for a plain cube map, whose faces are its layers).
    pub layered: bool,
}

impl ArrayDesc {
    /// `(width, height, depth or layers)`.
    pub fn extent(&self) -> (u64, u64, u64) {
        match self.geometry {
            Geometry::Plain { width, height, depth } => (width, height, depth),
            Geometry::Layered { width, height, layers } => (width, height, layers),
        }
    }

    /// Bytes of the array's texels, tightly packed.
    pub fn bytes(&self) -> u64 {
        let (w, h, d) = self.extent();
        w * h * d * self.format.bytes()
    }
}

/// A CUDA array: freed when dropped.
pub(crate) trait ArrayImpl: Send + Sync {
    fn device(&self) -> DeviceId;
    fn desc(&self) -> &ArrayDesc;
    /// Copies the whole array from `bytes` (`desc().bytes()` of them: texels row by row,
    /// tightly packed, rows of a slice or layer together, slices one after another).
    fn write(&mut self, bytes: &[u8]) -> Result<()>;
    /// Copies the whole array into `out`, laid out as [`write`](Self::write) takes it, after
    /// the work queued before.
    fn read(&self, out: &mut [u8]) -> Result<()>;
    /// The backend's own array object.
    fn as_any(&self) -> &dyn Any;
}

/// Where a texture's texels are (`CUDA_RESOURCE_DESC`); sizes in texels.
pub(crate) enum TexResource<'a> {
    /// `CU_RESOURCE_TYPE_LINEAR`.
    Linear { mem: &'a dyn MemoryImpl, format: Format, width: u64 },
    /// `CU_RESOURCE_TYPE_PITCH2D`: `pitch` bytes from row to row.
    Pitch2d { mem: &'a dyn MemoryImpl, format: Format, width: u64, height: u64, pitch: u64 },
    /// `CU_RESOURCE_TYPE_ARRAY`.
    Array(&'a dyn ArrayImpl),
    /// `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`.
    Mipmapped(&'a dyn MipmappedImpl),
}

/// A mipmapped array (`cuMipmappedArrayCreate`): freed, with its levels, when dropped.
pub(crate) trait MipmappedImpl: Send + Sync {
    fn device(&self) -> DeviceId;
    fn levels(&self) -> u32;
    /// Level `level` (`cuMipmappedArrayGetLevel`), an array owned by the mipmapped array.
    fn level(&self, level: u32) -> &dyn ArrayImpl;
    fn level_mut(&mut self, level: u32) -> &mut dyn ArrayImpl;
    /// The backend's own object.
    fn as_any(&self) -> &dyn Any;
}

/// A mipmapped array as both backends hold it: the backend's allocation `owner`, which frees
/// the levels when dropped, and the levels, arrays over its parts that free nothing. The
/// backends differ only in the owner (and the array type); the accessors are these.
pub(crate) struct MipmappedLevels<O, A> {
    /// Declared first, so the levels go before the allocation they point into.
    pub levels: Vec<A>,
    pub owner: O,
}

/// A backend's mipmapped allocation: what [`MipmappedLevels`] needs of it.
pub(crate) trait MipmapOwner: Send + Sync + 'static {
    fn device(&self) -> DeviceId;
}

impl<O: MipmapOwner, A: ArrayImpl + 'static> MipmappedImpl for MipmappedLevels<O, A> {
    fn device(&self) -> DeviceId {
        self.owner.device()
    }

    fn levels(&self) -> u32 {
        self.levels.len() as u32
    }

    fn level(&self, level: u32) -> &dyn ArrayImpl {
        &self.levels[level as usize]
    }

    fn level_mut(&mut self, level: u32) -> &mut dyn ArrayImpl {
        &mut self.levels[level as usize]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A texture or surface object: destroyed when dropped.
pub(crate) trait ObjectImpl: Send + Sync {
    fn device(&self) -> DeviceId;
    /// The 64-bit handle a kernel's parameter carries.
    fn handle(&self) -> u64;
}
