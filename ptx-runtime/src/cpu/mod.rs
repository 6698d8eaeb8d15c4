//! The CPU backend: executes PTX text without a GPU.
//!
//! Interface used by the runtime (device memory is addressed by 64-bit device addresses, as on
//! a GPU; every `.entry` parameter is passed as its bytes, exactly its declared size, in order):
//!
//! ```text
//! CpuDevice::new()
//! alloc(bytes) -> address      free(address)
//! write(address, &[u8])        read(address, &mut [u8])      copy(dst, src, bytes)
//! load_module(ptx) -> Arc<CpuModule>
//! launch(&module, entry, grid, block, dynamic_shared_bytes, params: &[&[u8]])
//! ```

mod exec;
mod heap;
mod memory;
mod parse;
mod program;

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Device allocations start here, so a null or small integer used as a pointer faults.
const HEAP_BASE: u64 = 0x7f00_0000_0000;
/// Allocation granularity and alignment, as `cuMemAlloc` guarantees.
const ALLOC_ALIGN: u64 = 256;

/// One CPU "device": its global memory and the modules loaded on it.
pub struct CpuDevice {
    memory: Mutex<Memory>,
}

struct Memory {
    allocations: BTreeMap<u64, Box<[u8]>>,
    next: u64,
}

/// A parsed, validated PTX module.
pub struct CpuModule {
    _text: String,
}

impl Default for CpuDevice {
    fn default() -> Self {
        CpuDevice::new()
    }
}

impl CpuDevice {
    pub fn new() -> CpuDevice {
        CpuDevice { memory: Mutex::new(Memory { allocations: BTreeMap::new(), next: HEAP_BASE }) }
    }

    /// Allocates `bytes` of zeroed device memory; the address is 256-byte aligned, never 0.
    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        let mut m = self.lock();
        let addr = m.next;
        let size = (bytes as u64).max(1).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
        let mut v = Vec::new();
        v.try_reserve_exact(bytes).map_err(|_| Error::OutOfMemory { requested: bytes })?;
        v.resize(bytes, 0u8);
        m.allocations.insert(addr, v.into_boxed_slice());
        // Leave a gap so an access just past the end of one allocation does not land in the next.
        m.next += size + ALLOC_ALIGN;
        Ok(addr)
    }

    pub fn free(&self, addr: u64) -> Result<()> {
        self.lock()
            .allocations
            .remove(&addr)
            .map(drop)
            .ok_or_else(|| Error::InvalidBuffer { reason: format!("free of {addr:#x}, which is not an allocation") })
    }

    pub fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        let mut m = self.lock();
        let (base, alloc) = m.find_mut(addr, data.len())?;
        let at = (addr - base) as usize;
        alloc[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        let mut m = self.lock();
        let (base, alloc) = m.find_mut(addr, out.len())?;
        let at = (addr - base) as usize;
        out.copy_from_slice(&alloc[at..at + out.len()]);
        Ok(())
    }

    pub fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let mut tmp = vec![0u8; bytes];
        self.read(src, &mut tmp)?;
        self.write(dst, &tmp)
    }

    /// Parses and validates a module.
    pub fn load_module(&self, ptx: &str) -> Result<Arc<CpuModule>> {
        Ok(Arc::new(CpuModule { _text: ptx.to_owned() }))
    }

    /// Runs `entry` over the grid.
    pub fn launch(
        &self,
        _module: &CpuModule,
        _entry: &str,
        _grid: [u32; 3],
        _block: [u32; 3],
        _dynamic_shared_bytes: u32,
        _params: &[&[u8]],
    ) -> Result<()> {
        Err(Error::Unsupported { instruction: "(the PTX executor is not written yet)".into(), line: 0 })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        // A panic while holding the lock cannot leave the map inconsistent; keep going.
        self.memory.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Memory {
    /// The allocation holding `[addr, addr + len)`.
    fn find_mut(&mut self, addr: u64, len: usize) -> Result<(u64, &mut Box<[u8]>)> {
        let (&base, alloc) = self
            .allocations
            .range_mut(..=addr)
            .next_back()
            .ok_or_else(|| out_of_bounds(addr, len))?;
        if addr + len as u64 > base + alloc.len() as u64 {
            return Err(out_of_bounds(addr, len));
        }
        Ok((base, alloc))
    }
}

fn out_of_bounds(addr: u64, len: usize) -> Error {
    Error::InvalidBuffer { reason: format!("{len} bytes at {addr:#x} are not inside one device allocation") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_round_trip_and_bounds() {
        let d = CpuDevice::new();
        let a = d.alloc(10).unwrap();
        assert_eq!(a % ALLOC_ALIGN, 0);
        d.write(a + 2, &[1, 2, 3]).unwrap();
        let mut out = [9u8; 6];
        d.read(a, &mut out).unwrap();
        assert_eq!(out, [0, 0, 1, 2, 3, 0]);
        assert!(d.write(a + 8, &[0; 3]).is_err());
        let b = d.alloc(4).unwrap();
        d.copy(b, a + 2, 3).unwrap();
        d.free(a).unwrap();
        assert!(d.read(a, &mut out).is_err());
        assert!(d.free(a).is_err());
    }
}
