//! CUDA arrays and texture/surface objects on the CPU backend: an array is an allocation of
//! the emulator's global memory holding the texels tightly packed (the layout
//! `ptx_cpu::texture` documents), an object an entry of the device's object table.

use super::{CpuBackend, CpuMemory};
use crate::backend::texture::{ArrayDesc, ArrayImpl, MipmapOwner, MipmappedImpl, MipmappedLevels, ObjectImpl, TexResource};
use crate::backend::{DeviceId, MemoryImpl};
use crate::error::{Error, Result};
use ptx_cpu::texture::{Array, Mipmapped, Resource, Sampler, Surface, Texture};
use std::any::Any;
use std::sync::Arc;

pub(super) struct CpuArray {
    backend: Arc<CpuBackend>,
    desc: ArrayDesc,
    addr: u64,
    /// False for a level of a mipmapped array, whose allocation the mipmapped array frees.
    owned: bool,
}

impl CpuArray {
    fn array(&self) -> Array {
        Array { addr: self.addr, format: self.desc.format, geometry: self.desc.geometry, surface_ldst: self.desc.surface_ldst }
    }
}

pub(super) fn alloc_array(backend: &Arc<CpuBackend>, desc: &ArrayDesc) -> Result<Box<dyn ArrayImpl>> {
    desc.format.check()?;
    let bytes = usize::try_from(desc.bytes()).map_err(|_| Error::OutOfMemory { requested: usize::MAX })?;
    let addr = backend.device.alloc(bytes.max(1))?;
    Ok(Box::new(CpuArray { backend: backend.clone(), desc: *desc, addr, owned: true }))
}

/// A mipmapped array's one allocation, holding the levels one after another
/// (`ptx_cpu::texture::Mipmapped`); the levels are (not owning) `CpuArray`s over its parts.
pub(super) struct CpuMipmapAlloc {
    backend: Arc<CpuBackend>,
    desc: ArrayDesc,
    addr: u64,
}

pub(super) type CpuMipmapped = MipmappedLevels<CpuMipmapAlloc, CpuArray>;

impl CpuMipmapped {
    fn mipmapped(&self) -> Mipmapped {
        let o = &self.owner;
        Mipmapped { addr: o.addr, format: o.desc.format, geometry: o.desc.geometry, levels: self.levels.len() as u32 }
    }
}

pub(super) fn alloc_mipmapped(backend: &Arc<CpuBackend>, desc: &ArrayDesc, levels: u32) -> Result<Box<dyn MipmappedImpl>> {
    desc.format.check()?;
    let m = Mipmapped { addr: 0, format: desc.format, geometry: desc.geometry, levels };
    let bytes = usize::try_from(m.bytes()).map_err(|_| Error::OutOfMemory { requested: usize::MAX })?;
    let addr = backend.device.alloc(bytes.max(1))?;
    let m = Mipmapped { addr, ..m };
    let levels = (0..levels)
        .map(|l| {
            let a = m.level(l);
            CpuArray { backend: backend.clone(), desc: ArrayDesc { geometry: a.geometry, ..*desc }, addr: a.addr, owned: false }
        })
        .collect();
    let owner = CpuMipmapAlloc { backend: backend.clone(), desc: *desc, addr };
    Ok(Box::new(CpuMipmapped { levels, owner }))
}

impl MipmapOwner for CpuMipmapAlloc {
    fn device(&self) -> DeviceId {
        self.backend.device_id()
    }
}

impl Drop for CpuMipmapAlloc {
    fn drop(&mut self) {
        let _ = self.backend.device.free(self.addr);
    }
}

impl ArrayImpl for CpuArray {
    fn device(&self) -> DeviceId {
        self.backend.device_id()
    }

    fn desc(&self) -> &ArrayDesc {
        &self.desc
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        Ok(self.backend.device.write(self.addr, bytes)?)
    }

    fn read(&self, out: &mut [u8]) -> Result<()> {
        Ok(self.backend.device.read(self.addr, out)?)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CpuArray {
    fn drop(&mut self) {
        if self.owned {
            let _ = self.backend.device.free(self.addr);
        }
    }
}

/// The address of a CPU-backend allocation of `backend`, or `Err` for another device's.
fn address(backend: &Arc<CpuBackend>, mem: &dyn MemoryImpl) -> Result<u64> {
    match mem.as_any().downcast_ref::<CpuMemory>() {
        Some(m) if Arc::ptr_eq(&m.backend, backend) => Ok(m.addr),
        _ => Err(other_device()),
    }
}

fn cpu_array<'a>(backend: &Arc<CpuBackend>, array: &'a dyn ArrayImpl) -> Result<&'a CpuArray> {
    match array.as_any().downcast_ref::<CpuArray>() {
        Some(a) if Arc::ptr_eq(&a.backend, backend) => Ok(a),
        _ => Err(other_device()),
    }
}

fn other_device() -> Error {
    Error::InvalidBuffer { reason: "a texture or surface object over memory of another device than the stream's".into() }
}

pub(super) fn create_texture(backend: &Arc<CpuBackend>, resource: TexResource<'_>, sampler: &Sampler) -> Result<Box<dyn ObjectImpl>> {
    let resource = match resource {
        TexResource::Linear { mem, format, width } => Resource::Linear { addr: address(backend, mem)?, format, width },
        TexResource::Pitch2d { mem, format, width, height, pitch } => Resource::Pitch2d { addr: address(backend, mem)?, format, width, height, pitch },
        TexResource::Array(a) => Resource::Array(cpu_array(backend, a)?.array()),
        TexResource::Mipmapped(m) => match m.as_any().downcast_ref::<CpuMipmapped>() {
            Some(m) if Arc::ptr_eq(&m.owner.backend, backend) => Resource::Mipmapped(m.mipmapped()),
            _ => return Err(other_device()),
        },
    };
    let handle = backend.device.create_texture(Texture { resource, sampler: *sampler })?;
    Ok(Box::new(CpuObject { backend: backend.clone(), handle, surface: false }))
}

pub(super) fn create_surface(backend: &Arc<CpuBackend>, array: &dyn ArrayImpl) -> Result<Box<dyn ObjectImpl>> {
    let handle = backend.device.create_surface(Surface { array: cpu_array(backend, array)?.array() })?;
    Ok(Box::new(CpuObject { backend: backend.clone(), handle, surface: true }))
}

/// A texture or surface object in the device's object table.
struct CpuObject {
    backend: Arc<CpuBackend>,
    handle: u64,
    surface: bool,
}

impl ObjectImpl for CpuObject {
    fn device(&self) -> DeviceId {
        self.backend.device_id()
    }

    fn handle(&self) -> u64 {
        self.handle
    }
}

impl Drop for CpuObject {
    fn drop(&mut self) {
        let _ = if self.surface { self.backend.device.destroy_surface(self.handle) } else { self.backend.device.destroy_texture(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::CpuBackend;
    use crate::texture::{surface, Array2d, TextureDesc};
    use crate::Device;

    /// Dropping a texture or surface object destroys it in the device's object table (the
    /// table refuses to destroy it a second time), and dropping an array frees its allocation.
    #[test]
    fn drop_destroys_objects_and_frees_arrays() {
        let device = Device::new_cpu();
        let backend = device.inner.as_any().downcast_ref::<CpuBackend>().unwrap();
        let stream = device.stream();
        let array = Array2d::<f32>::new_surface_ldst(&stream, (4, 4)).unwrap();
        let (t, s) = (TextureDesc::new().array(&stream, &array).unwrap(), surface(&stream, &array).unwrap());
        let (th, sh) = (t.handle().raw(), s.handle().raw());
        let kept = TextureDesc::new().array(&stream, &array).unwrap();
        drop((t, s));
        assert!(backend.device.destroy_texture(th).is_err(), "the texture was destroyed on drop");
        assert!(backend.device.destroy_surface(sh).is_err(), "the surface was destroyed on drop");
        // A live one is still in the table (destroying it here makes its own drop a no-op).
        backend.device.destroy_texture(kept.handle().raw()).unwrap();
        let addr = array.inner.as_any().downcast_ref::<super::CpuArray>().unwrap().addr;
        drop(kept);
        drop(array);
        assert!(backend.device.free(addr).is_err(), "the array's allocation was freed on drop");
    }

    /// A mipmapped array frees its one allocation when dropped (its levels, which do not own
    /// their parts, free nothing), and a texture over it is destroyed on drop.
    #[test]
    fn mipmapped_arrays_free_their_levels_once() {
        use crate::texture::{Dim2, MipmappedArray};
        let device = Device::new_cpu();
        let backend = device.inner.as_any().downcast_ref::<CpuBackend>().unwrap();
        let stream = device.stream();
        let m = MipmappedArray::<f32, Dim2>::with_all_levels(&stream, (8, 8)).unwrap();
        let t = TextureDesc::new().mipmapped(&stream, &m).unwrap();
        let th = t.handle().raw();
        drop(t);
        assert!(backend.device.destroy_texture(th).is_err(), "the texture was destroyed on drop");
        let addr = m.inner.as_any().downcast_ref::<super::CpuMipmapped>().unwrap().owner.addr;
        drop(m);
        assert!(backend.device.free(addr).is_err(), "the allocation was freed on drop");
    }
}
