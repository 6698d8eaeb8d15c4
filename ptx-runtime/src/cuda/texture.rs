//! CUDA arrays (`cuArray3DCreate`, `cuMemcpy3DAsync`, `cuArrayDestroy`), mipmapped arrays
//! (`cuMipmappedArrayCreate`, `cuMipmappedArrayGetLevel`, `cuMipmappedArrayDestroy`) and texture and
//! surface objects (`cuTexObjectCreate`, `cuSurfObjectCreate` and their `Destroy`) through
//! cudarc's raw driver bindings, mirroring the CPU backend's `backend/cpu/texture.rs`: the
//! same descriptors, translated field for field into the driver's structs.
//!
//! Arrays are not tracked by cudarc's events: their copies are ordered on the stream that
//! made them, and dropping an array or an object first waits for the context's work.

use super::memory::CudaMemory;
use super::{driver_error, CudaDevice};
use crate::backend::texture::{ArrayDesc, ArrayImpl, MipmapOwner, MipmappedImpl, MipmappedLevels, ObjectImpl, TexResource};
use crate::backend::{DeviceId, DeviceImpl, MemoryImpl};
use crate::error::{Error, Result};
use cudarc::driver::{sys, CudaContext, CudaStream, DevicePtr};
use ptx_cpu::texture::{AddressMode, ChannelKind, FilterMode, Format, Geometry, ReadMode, Sampler};
use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

pub(super) struct CudaArray {
    device: DeviceId,
    stream: Arc<CudaStream>,
    desc: ArrayDesc,
    array: sys::CUarray,
    /// False for a level of a mipmapped array, which the mipmapped array frees.
    owned: bool,
}

// SAFETY: a CUarray is a driver handle usable from any thread with its context current.
unsafe impl Send for CudaArray {}
unsafe impl Sync for CudaArray {}

fn array_format(f: Format) -> Result<sys::CUarray_format> {
    use sys::CUarray_format as F;
    f.check()?;
    Ok(match (f.kind, f.bits) {
        (ChannelKind::Unsigned, 8) => F::CU_AD_FORMAT_UNSIGNED_INT8,
        (ChannelKind::Unsigned, 16) => F::CU_AD_FORMAT_UNSIGNED_INT16,
        (ChannelKind::Unsigned, _) => F::CU_AD_FORMAT_UNSIGNED_INT32,
        (ChannelKind::Signed, 8) => F::CU_AD_FORMAT_SIGNED_INT8,
        (ChannelKind::Signed, 16) => F::CU_AD_FORMAT_SIGNED_INT16,
        (ChannelKind::Signed, _) => F::CU_AD_FORMAT_SIGNED_INT32,
        (ChannelKind::Float, 16) => F::CU_AD_FORMAT_HALF,
        (ChannelKind::Float, _) => F::CU_AD_FORMAT_FLOAT,
    })
}

fn usize_of(v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::OutOfMemory { requested: usize::MAX })
}

/// The driver's descriptor of an array (or a mipmapped array's level 0).
fn array3d(desc: &ArrayDesc) -> Result<sys::CUDA_ARRAY3D_DESCRIPTOR> {
    let (w, h, d) = desc.extent();
    let mut flags = if desc.layered { sys::CUDA_ARRAY3D_LAYERED } else { 0 };
    if desc.surface_ldst {
        flags |= sys::CUDA_ARRAY3D_SURFACE_LDST;
    }
    if desc.cubemap {
        flags |= sys::CUDA_ARRAY3D_CUBEMAP;
    }
    let stacked = matches!(desc.geometry, Geometry::Layered { .. });
    // The driver's convention: 0 for the dimensions an array does not have.
    Ok(sys::CUDA_ARRAY3D_DESCRIPTOR {
        Width: usize_of(w)?,
        Height: if desc.dims >= 2 { usize_of(h)? } else { 0 },
        Depth: if stacked || desc.dims == 3 { usize_of(d)? } else { 0 },
        Format: array_format(desc.format)?,
        NumChannels: desc.format.channels,
        Flags: flags,
    })
}

pub(super) fn alloc_array(device: &CudaDevice, stream: &Arc<CudaStream>, desc: &ArrayDesc) -> Result<Box<dyn ArrayImpl>> {
    let cu = array3d(desc)?;
    stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
    let mut array: sys::CUarray = std::ptr::null_mut();
    // SAFETY: `cu` is a complete descriptor; the handle is written on success.
    unsafe { sys::cuArray3DCreate_v2(&mut array, &cu) }.result().map_err(|e| driver_error("cuArray3DCreate", e))?;
    Ok(Box::new(CudaArray { device: device.id(), stream: stream.clone(), desc: *desc, array, owned: true }))
}

/// A mipmapped array's driver handle; its levels are arrays the driver owns, freed with it.
pub(super) struct CudaMipmapHandle {
    device: DeviceId,
    stream: Arc<CudaStream>,
    handle: sys::CUmipmappedArray,
}

// SAFETY: a CUmipmappedArray is a driver handle usable from any thread with its context current.
unsafe impl Send for CudaMipmapHandle {}
unsafe impl Sync for CudaMipmapHandle {}

pub(super) type CudaMipmapped = MipmappedLevels<CudaMipmapHandle, CudaArray>;

pub(super) fn alloc_mipmapped(device: &CudaDevice, stream: &Arc<CudaStream>, desc: &ArrayDesc, levels: u32) -> Result<Box<dyn MipmappedImpl>> {
    let cu = array3d(desc)?;
    stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
    let mut handle: sys::CUmipmappedArray = std::ptr::null_mut();
    // SAFETY: `cu` is a complete descriptor; the handle is written on success.
    unsafe { sys::cuMipmappedArrayCreate(&mut handle, &cu, levels) }.result().map_err(|e| driver_error("cuMipmappedArrayCreate", e))?;
    let owner = CudaMipmapHandle { device: device.id(), stream: stream.clone(), handle };
    let mut m = CudaMipmapped { levels: Vec::new(), owner };
    for l in 0..levels {
        let mut array: sys::CUarray = std::ptr::null_mut();
        // SAFETY: a live mipmapped array of `levels` levels; the level's handle is written on
        // success and stays the mipmapped array's.
        unsafe { sys::cuMipmappedArrayGetLevel(&mut array, handle, l) }.result().map_err(|e| driver_error("cuMipmappedArrayGetLevel", e))?;
        let geometry = ptx_cpu::texture::mipmap::level_geometry(desc.geometry, l);
        m.levels.push(CudaArray { device: device.id(), stream: stream.clone(), desc: ArrayDesc { geometry, ..*desc }, array, owned: false });
    }
    Ok(Box::new(m))
}

impl MipmapOwner for CudaMipmapHandle {
    fn device(&self) -> DeviceId {
        self.device
    }
}

impl Drop for CudaMipmapHandle {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        if ctx.bind_to_thread().is_ok() {
            let _ = ctx.synchronize();
            // SAFETY: ours, and no queued work uses it any more; its levels go with it.
            let _ = unsafe { sys::cuMipmappedArrayDestroy(self.handle) };
        }
    }
}

impl CudaArray {
    /// A host ⇄ array copy of the whole array; `host` holds `desc.bytes()` bytes.
    fn copy(&self, host: *mut c_void, to_array: bool) -> Result<()> {
        let (w, h, d) = self.desc.extent();
        let row = usize_of(w * self.desc.format.bytes())?;
        let mut c = memcpy3d(sys::CUmemorytype::CU_MEMORYTYPE_HOST);
        if to_array {
            c.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
            c.srcHost = host;
            c.srcPitch = row;
            c.srcHeight = usize_of(h)?;
            c.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_ARRAY;
            c.dstArray = self.array;
        } else {
            c.srcMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_ARRAY;
            c.srcArray = self.array;
            c.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
            c.dstHost = host;
            c.dstPitch = row;
            c.dstHeight = usize_of(h)?;
        }
        c.WidthInBytes = row;
        c.Height = usize_of(h)?;
        c.Depth = usize_of(d)?;
        self.stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
        // SAFETY: the host range holds the whole array (checked by the caller) and outlives
        // the copy: we wait for the stream before returning.
        unsafe { sys::cuMemcpy3DAsync_v2(&c, self.stream.cu_stream()) }.result().map_err(|e| driver_error("cuMemcpy3DAsync", e))?;
        self.stream.synchronize().map_err(|e| driver_error("cuStreamSynchronize", e))
    }
}

impl ArrayImpl for CudaArray {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn desc(&self) -> &ArrayDesc {
        &self.desc
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.copy(bytes.as_ptr() as *mut c_void, true)
    }

    fn read(&self, out: &mut [u8]) -> Result<()> {
        self.copy(out.as_mut_ptr() as *mut c_void, false)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaArray {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        let ctx = self.stream.context();
        if ctx.bind_to_thread().is_ok() {
            let _ = ctx.synchronize();
            // SAFETY: the array is ours, and no queued work uses it any more.
            let _ = unsafe { sys::cuArrayDestroy(self.array) };
        }
    }
}

/// A `CUDA_MEMCPY3D` with every field zero (CUDA's "unused") but the two memory types, which
/// have no zero variant: `mem::zeroed` of the whole struct is undefined behaviour, and Rust
/// aborts on it (an H200 run of `texture_resize` did).
fn memcpy3d(ty: sys::CUmemorytype) -> sys::CUDA_MEMCPY3D {
    let mut c = std::mem::MaybeUninit::<sys::CUDA_MEMCPY3D>::zeroed();
    let p = c.as_mut_ptr();
    // SAFETY: every field but the two enums is an integer or a pointer, valid as zero; the
    // enums are written before the value is read.
    unsafe {
        std::ptr::addr_of_mut!((*p).srcMemoryType).write(ty);
        std::ptr::addr_of_mut!((*p).dstMemoryType).write(ty);
        c.assume_init()
    }
}

fn cuda_memory(mem: &dyn MemoryImpl) -> Result<&CudaMemory> {
    mem.as_any().downcast_ref::<CudaMemory>().ok_or_else(other_device)
}

fn cuda_array(array: &dyn ArrayImpl) -> Result<&CudaArray> {
    array.as_any().downcast_ref::<CudaArray>().ok_or_else(other_device)
}

fn other_device() -> Error {
    Error::InvalidBuffer { reason: "a texture or surface object over CPU backend memory with a CUDA stream".into() }
}

fn resource_desc(resource: &TexResource<'_>, stream: &Arc<CudaStream>) -> Result<sys::CUDA_RESOURCE_DESC> {
    // SAFETY: plain data; zero is "no flags, reserved" (and `CU_RESOURCE_TYPE_ARRAY`).
    let mut r: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
    match *resource {
        TexResource::Linear { mem, format, width } => {
            let (ptr, _sync) = cuda_memory(mem)?.slice.device_ptr(stream);
            r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
            r.res.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
                devPtr: ptr,
                format: array_format(format)?,
                numChannels: format.channels,
                sizeInBytes: usize_of(width * format.bytes())?,
            };
        }
        TexResource::Pitch2d { mem, format, width, height, pitch } => {
            let (ptr, _sync) = cuda_memory(mem)?.slice.device_ptr(stream);
            r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
            r.res.pitch2D = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
                devPtr: ptr,
                format: array_format(format)?,
                numChannels: format.channels,
                width: usize_of(width)?,
                height: usize_of(height)?,
                pitchInBytes: usize_of(pitch)?,
            };
        }
        TexResource::Array(a) => {
            r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
            r.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: cuda_array(a)?.array };
        }
        TexResource::Mipmapped(m) => {
            let m = m.as_any().downcast_ref::<CudaMipmapped>().ok_or_else(other_device)?;
            r.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
            r.res.mipmap = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_2 { hMipmappedArray: m.owner.handle };
        }
    }
    Ok(r)
}

fn texture_desc(s: &Sampler) -> sys::CUDA_TEXTURE_DESC {
    use sys::CUaddress_mode as A;
    let mode = |m: AddressMode| match m {
        AddressMode::Wrap => A::CU_TR_ADDRESS_MODE_WRAP,
        AddressMode::Clamp => A::CU_TR_ADDRESS_MODE_CLAMP,
        AddressMode::Mirror => A::CU_TR_ADDRESS_MODE_MIRROR,
        AddressMode::Border => A::CU_TR_ADDRESS_MODE_BORDER,
    };
    // SAFETY: plain data; zero is "no mipmaps, no anisotropy" (its enums' zero variants are
    // WRAP and POINT).
    let mut t: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
    t.addressMode = s.address.map(mode);
    t.filterMode = match s.filter {
        FilterMode::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
    };
    let mut flags = 0;
    if s.read == ReadMode::ElementType {
        flags |= sys::CU_TRSF_READ_AS_INTEGER;
    }
    if s.normalized_coords {
        flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
    }
    if s.srgb {
        flags |= sys::CU_TRSF_SRGB;
    }
    t.flags = flags;
    t.borderColor = s.border_color;
    t.mipmapFilterMode = match s.mipmap_filter {
        FilterMode::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
    };
    t.mipmapLevelBias = s.mipmap_level_bias;
    t.minMipmapLevelClamp = s.min_mipmap_level_clamp;
    t.maxMipmapLevelClamp = s.max_mipmap_level_clamp;
    t.maxAnisotropy = s.max_anisotropy;
    t
}

pub(super) fn create_texture(device: &CudaDevice, stream: &Arc<CudaStream>, resource: TexResource<'_>, sampler: &Sampler) -> Result<Box<dyn ObjectImpl>> {
    let res = resource_desc(&resource, stream)?;
    let tex = texture_desc(sampler);
    stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
    let mut handle: sys::CUtexObject = 0;
    // SAFETY: complete descriptors of live memory of this context; no view descriptor.
    unsafe { sys::cuTexObjectCreate(&mut handle, &res, &tex, std::ptr::null()) }.result().map_err(|e| driver_error("cuTexObjectCreate", e))?;
    Ok(Box::new(CudaObject { device: device.id(), ctx: stream.context().clone(), handle, surface: false }))
}

pub(super) fn create_surface(device: &CudaDevice, stream: &Arc<CudaStream>, array: &dyn ArrayImpl) -> Result<Box<dyn ObjectImpl>> {
    let res = resource_desc(&TexResource::Array(array), stream)?;
    stream.context().bind_to_thread().map_err(|e| driver_error("cuCtxSetCurrent", e))?;
    let mut handle: sys::CUsurfObject = 0;
    // SAFETY: a complete array resource of this context.
    unsafe { sys::cuSurfObjectCreate(&mut handle, &res) }.result().map_err(|e| driver_error("cuSurfObjectCreate", e))?;
    Ok(Box::new(CudaObject { device: device.id(), ctx: stream.context().clone(), handle, surface: true }))
}

struct CudaObject {
    device: DeviceId,
    ctx: Arc<CudaContext>,
    handle: u64,
    surface: bool,
}

impl ObjectImpl for CudaObject {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn handle(&self) -> u64 {
        self.handle
    }
}

impl Drop for CudaObject {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            let _ = self.ctx.synchronize();
            // SAFETY: the object is ours, and no queued work uses it any more.
            let _ = unsafe { if self.surface { sys::cuSurfObjectDestroy(self.handle) } else { sys::cuTexObjectDestroy(self.handle) } };
        }
    }
}
