//! Texture and surface objects on the CPU device (CUDA's `cuTexObjectCreate` /
//! `cuSurfObjectCreate`, PTX Interoperability §1.4).
//!
//! A kernel sees an object as a 64-bit handle (`.u64` parameter); `tex`, `tld4`, `suld` and
//! `sust` look the handle up in its device's [`ObjectTable`]. The descriptors here are the
//! CUDA driver's, field for field, so the runtime's CUDA and CPU backends build both from one
//! description: a resource (what memory holds the texels and how it is laid out) and, for a
//! texture, how it is sampled.
//!
//! A CUDA array has an opaque layout on a GPU; on the CPU device it is an ordinary allocation
//! holding the texels row by row, tightly packed (`width * elem_bytes` per row, rows of a
//! slice together, slices or layers one after another).

pub mod cube;
pub mod mipmap;
pub mod sample;
pub mod surface;

pub use mipmap::{Lod, Mipmapped};

use crate::{CpuDevice, Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// How the bits of one channel are read: CUDA's `cudaChannelFormatKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    Signed,
    Unsigned,
    /// IEEE binary32, or binary16 when the channel is 16 bits wide (`__half` texels).
    Float,
}

/// The format of one texel: `channels` (1, 2 or 4) channels of `bits` (8, 16 or 32) bits of
/// one kind (CUDA's `cudaChannelFormatDesc` / the driver's `CUarray_format` and channel count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    pub kind: ChannelKind,
    pub bits: u32,
    pub channels: u32,
}

impl Format {
    /// Bytes of one texel.
    pub fn bytes(&self) -> u64 {
        u64::from(self.bits / 8) * u64::from(self.channels)
    }

    /// `Err` for a format CUDA does not have (8-bit floats, 3 channels...).
    pub fn check(&self) -> Result<()> {
        let ok_bits = match self.kind {
            ChannelKind::Float => matches!(self.bits, 16 | 32),
            _ => matches!(self.bits, 8 | 16 | 32),
        };
        if ok_bits && matches!(self.channels, 1 | 2 | 4) {
            Ok(())
        } else {
            Err(Error::InvalidConfig { reason: format!("texel format {self:?}: channels must be 1, 2 or 4 of 8, 16 or 32 bits (floats 16 or 32)") })
        }
    }
}

/// Where the texels are (CUDA's `CUDA_RESOURCE_DESC`). Addresses are device addresses of
/// this device's global memory; sizes are in texels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resource {
    /// `CU_RESOURCE_TYPE_LINEAR`: `width` texels from `addr` (read by `tex1Dfetch`).
    Linear { addr: u64, format: Format, width: u64 },
    /// `CU_RESOURCE_TYPE_PITCH2D`: `height` rows of `width` texels, `pitch` bytes apart.
    Pitch2d { addr: u64, format: Format, width: u64, height: u64, pitch: u64 },
    /// `CU_RESOURCE_TYPE_ARRAY`: a CUDA array (see the module docs for its layout here).
    Array(Array),
    /// `CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`: a mipmapped array (its levels one after another).
    Mipmapped(Mipmapped),
}

/// A CUDA array on the CPU device: its allocation, format and extent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Array {
    pub addr: u64,
    pub format: Format,
    pub geometry: Geometry,
    /// Created with `CUDA_ARRAY3D_SURFACE_LDST` (`cudaArraySurfaceLoadStore`): surfaces may
    /// be made over it.
    pub surface_ldst: bool,
}

/// The shape of a CUDA array. `height` is 1 for 1-D arrays and `depth` 1 for 2-D ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// 1-, 2- or 3-D.
    Plain { width: u64, height: u64, depth: u64 },
    /// 1-D or 2-D layered (`CUDA_ARRAY3D_LAYERED`): `layers` images of `width × height`.
    Layered { width: u64, height: u64, layers: u64 },
}

impl Array {
    /// Bytes the array's allocation holds.
    pub fn bytes(&self) -> u64 {
        let texels = match self.geometry {
            Geometry::Plain { width, height, depth } => width * height * depth,
            Geometry::Layered { width, height, layers } => width * height * layers,
        };
        texels * self.format.bytes()
    }
}

/// CUDA's `cudaTextureAddressMode`: what a coordinate outside the texture reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    Wrap,
    #[default]
    Clamp,
    Mirror,
    Border,
}

/// CUDA's `cudaTextureFilterMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FilterMode {
    #[default]
    Point,
    Linear,
}

/// CUDA's `cudaTextureReadMode`: texels as stored, or 8/16-bit integers as floats in [0, 1]
/// (unsigned) or [-1, 1] (signed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ReadMode {
    #[default]
    ElementType,
    NormalizedFloat,
}

/// How a texture is sampled (CUDA's `CUDA_TEXTURE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// Per dimension (x, y, z).
    pub address: [AddressMode; 3],
    pub filter: FilterMode,
    pub read: ReadMode,
    /// Coordinates in [0, 1) instead of [0, size).
    pub normalized_coords: bool,
    /// `CU_TRSF_SRGB`: 8-bit channels decoded from sRGB when read as normalized floats.
    pub srgb: bool,
    /// The value read outside the texture in `Border` mode (CUDA's `borderColor`).
    pub border_color: [f32; 4],
    /// Between two mipmap levels: the nearest one, or a blend of both (`mipmapFilterMode`).
    pub mipmap_filter: FilterMode,
    /// Added to every level of detail (`mipmapLevelBias`).
    pub mipmap_level_bias: f32,
    /// The level of detail's bounds (`minMipmapLevelClamp`, `maxMipmapLevelClamp`).
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    /// `maxAnisotropy`: passed to the driver; the CPU device filters isotropically.
    pub max_anisotropy: u32,
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler {
            address: [AddressMode::Clamp; 3],
            filter: FilterMode::Point,
            read: ReadMode::ElementType,
            normalized_coords: false,
            srgb: false,
            border_color: [0.0; 4],
            mipmap_filter: FilterMode::Point,
            mipmap_level_bias: 0.0,
            min_mipmap_level_clamp: 0.0,
            // No upper clamp but the last level.
            max_mipmap_level_clamp: f32::MAX,
            max_anisotropy: 0,
        }
    }
}

/// A texture object: a resource and its sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Texture {
    pub resource: Resource,
    pub sampler: Sampler,
}

/// A surface object: always over a CUDA array made with `surface_ldst`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface {
    pub array: Array,
}

/// One device's live texture and surface objects, by handle. Handles come from one counter,
/// so a surface handle given to `tex` (or the reverse) is found in neither table and reported.
#[derive(Default)]
pub struct ObjectTable {
    next: AtomicU64,
    textures: Mutex<HashMap<u64, Texture>>,
    surfaces: Mutex<HashMap<u64, Surface>>,
}

impl ObjectTable {
    fn handle(&self) -> u64 {
        // CUDA's handles are small nonzero integers; 0 is never a valid object.
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The texture behind `handle`, as a launch sees it.
    pub fn texture(&self, handle: u64) -> Option<Texture> {
        self.textures.lock().unwrap_or_else(|e| e.into_inner()).get(&handle).copied()
    }

    /// The surface behind `handle`.
    pub fn surface(&self, handle: u64) -> Option<Surface> {
        self.surfaces.lock().unwrap_or_else(|e| e.into_inner()).get(&handle).copied()
    }
}

impl CpuDevice {
    /// Creates a texture object (`cuTexObjectCreate`) and returns its handle, the value a
    /// kernel's texture parameter carries. `Err(InvalidConfig)` for a format CUDA does not
    /// have or a resource outside this device's allocations.
    pub fn create_texture(&self, texture: Texture) -> Result<u64> {
        let (addr, bytes, format) = match texture.resource {
            Resource::Linear { addr, format, width } => (addr, width * format.bytes(), format),
            Resource::Pitch2d { addr, format, width, height, pitch } => {
                if pitch < width * format.bytes() {
                    return Err(Error::InvalidConfig { reason: format!("pitch {pitch} is less than a row of {width} texels") });
                }
                (addr, pitch * height.saturating_sub(1) + width * format.bytes(), format)
            }
            Resource::Array(a) => (a.addr, a.bytes(), a.format),
            Resource::Mipmapped(m) => {
                if m.levels == 0 || m.levels > mipmap::max_levels(m.geometry) {
                    return Err(Error::InvalidConfig { reason: format!("{} mipmap levels for an array of {:?}: between 1 and {}", m.levels, m.geometry, mipmap::max_levels(m.geometry)) });
                }
                (m.addr, m.bytes(), m.format)
            }
        };
        format.check()?;
        self.check_range(addr, bytes)?;
        let h = self.objects.handle();
        self.objects.textures.lock().unwrap_or_else(|e| e.into_inner()).insert(h, texture);
        Ok(h)
    }

    /// Creates a surface object over a CUDA array made with `surface_ldst` (`cuSurfObjectCreate`).
    pub fn create_surface(&self, surface: Surface) -> Result<u64> {
        if !surface.array.surface_ldst {
            return Err(Error::InvalidConfig { reason: "a surface needs an array created with surface load/store (cudaArraySurfaceLoadStore)".into() });
        }
        surface.array.format.check()?;
        self.check_range(surface.array.addr, surface.array.bytes())?;
        let h = self.objects.handle();
        self.objects.surfaces.lock().unwrap_or_else(|e| e.into_inner()).insert(h, surface);
        Ok(h)
    }

    /// Destroys a texture object (`cuTexObjectDestroy`); `Err` for an unknown handle.
    pub fn destroy_texture(&self, handle: u64) -> Result<()> {
        match self.objects.textures.lock().unwrap_or_else(|e| e.into_inner()).remove(&handle) {
            Some(_) => Ok(()),
            None => Err(Error::InvalidConfig { reason: format!("{handle:#x} is not a live texture object") }),
        }
    }

    /// Destroys a surface object (`cuSurfObjectDestroy`); `Err` for an unknown handle.
    pub fn destroy_surface(&self, handle: u64) -> Result<()> {
        match self.objects.surfaces.lock().unwrap_or_else(|e| e.into_inner()).remove(&handle) {
            Some(_) => Ok(()),
            None => Err(Error::InvalidConfig { reason: format!("{handle:#x} is not a live surface object") }),
        }
    }

    /// `Err` unless `bytes` from `addr` lie in one live allocation of this device.
    fn check_range(&self, addr: u64, bytes: u64) -> Result<()> {
        let table = self.memory.snapshot();
        match crate::memory::find(&table, addr, bytes.max(1)) {
            Some(_) => Ok(()),
            None => Err(Error::InvalidConfig { reason: format!("{bytes} bytes at {addr:#x} are not inside one allocation of this device") }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32x1() -> Format {
        Format { kind: ChannelKind::Float, bits: 32, channels: 1 }
    }

    #[test]
    fn objects_are_checked_and_destroyed_once() {
        let dev = CpuDevice::new();
        let addr = dev.alloc(64).unwrap();
        let lin = Resource::Linear { addr, format: f32x1(), width: 16 };
        let t = dev.create_texture(Texture { resource: lin, sampler: Sampler::default() }).unwrap();
        assert_ne!(t, 0);
        // 17 texels overrun the 64-byte allocation; an 8-bit float is not a CUDA format.
        assert!(dev.create_texture(Texture { resource: Resource::Linear { addr, format: f32x1(), width: 17 }, sampler: Sampler::default() }).is_err());
        let half8 = Format { kind: ChannelKind::Float, bits: 8, channels: 1 };
        assert!(dev.create_texture(Texture { resource: Resource::Linear { addr, format: half8, width: 4 }, sampler: Sampler::default() }).is_err());
        let array = Array { addr, format: f32x1(), geometry: Geometry::Plain { width: 4, height: 4, depth: 1 }, surface_ldst: false };
        assert!(dev.create_surface(Surface { array }).is_err(), "surfaces need surface_ldst");
        let s = dev.create_surface(Surface { array: Array { surface_ldst: true, ..array } }).unwrap();
        assert_ne!(s, t);
        assert!(dev.destroy_surface(t).is_err(), "a texture handle is not a surface");
        dev.destroy_texture(t).unwrap();
        assert!(dev.destroy_texture(t).is_err());
        dev.destroy_surface(s).unwrap();
    }
}
