//! The device heap behind `malloc`/`free` (guide §3): one global-memory region, first-fit with
//! coalescing, 16-byte aligned blocks. Memcheck consults the live-block map, so an access to
//! freed or never-allocated heap memory faults like any out-of-bounds access.

use crate::memory::{GlobalMemory, Region, RegionKind};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

/// CUDA's default `cudaLimitMallocHeapSize`.
pub const DEFAULT_HEAP_SIZE: u64 = 8 << 20;
const ALIGN: u64 = 16;

/// Who allocated a heap block: the launch, the thread and the `malloc` call's PTX line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Origin {
    pub grid: u64,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub line: u32,
}

pub struct DeviceHeap {
    pub region: Arc<Region>,
    /// Free ranges: offset → size.
    free: Mutex<BTreeMap<u64, u64>>,
    /// Live blocks: offset → (requested size, who allocated it).
    live: RwLock<BTreeMap<u64, (u64, Origin)>>,
}

#[derive(Debug, PartialEq)]
pub enum FreeError {
    NotAllocated,
}

impl DeviceHeap {
    pub fn new(memory: &GlobalMemory, size: u64) -> Option<DeviceHeap> {
        let region = memory.alloc(size, RegionKind::Heap)?;
        let mut free = BTreeMap::new();
        free.insert(0, size / ALIGN * ALIGN);
        Some(DeviceHeap { region, free: Mutex::new(free), live: RwLock::new(BTreeMap::new()) })
    }

    /// A device address, or 0 when the heap has no room (as CUDA's `malloc` returns NULL).
    pub fn malloc(&self, size: u64, origin: Origin) -> u64 {
        // `size` comes from device code: a request past the address space is NULL, not a panic.
        let Some(need) = size.max(1).div_ceil(ALIGN).checked_mul(ALIGN) else { return 0 };
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let Some((&off, &len)) = free.iter().find(|(_, &len)| len >= need) else { return 0 };
        free.remove(&off);
        if len > need {
            free.insert(off + need, len - need);
        }
        self.live.write().unwrap_or_else(|e| e.into_inner()).insert(off, (size, origin));
        if let Some(m) = &self.region.init {
            m.clear(off, size);
        }
        self.region.base + off
    }

    pub fn free(&self, addr: u64) -> Result<(), FreeError> {
        let off = addr.wrapping_sub(self.region.base);
        let (size, _) = self.live.write().unwrap_or_else(|e| e.into_inner()).remove(&off).ok_or(FreeError::NotAllocated)?;
        let mut len = size.max(1).div_ceil(ALIGN) * ALIGN;
        let mut start = off;
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((&next, &nlen)) = free.range(start + len..).next() {
            if next == start + len {
                free.remove(&next);
                len += nlen;
            }
        }
        if let Some((&prev, &plen)) = free.range(..start).next_back() {
            if prev + plen == start {
                free.remove(&prev);
                start = prev;
                len += plen;
            }
        }
        free.insert(start, len);
        Ok(())
    }

    /// Is `[addr, addr + size)` inside one live block?
    pub fn is_live(&self, addr: u64, size: u64) -> bool {
        let off = addr.wrapping_sub(self.region.base);
        let live = self.live.read().unwrap_or_else(|e| e.into_inner());
        live.range(..=off).next_back().is_some_and(|(&b, &(len, _))| off.checked_add(size).is_some_and(|end| end <= b + len))
    }

    pub fn live_blocks(&self) -> usize {
        self.live.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The live blocks launch `grid` allocated: (address, size, origin), by address.
    pub fn live_from(&self, grid: u64) -> Vec<(u64, u64, Origin)> {
        let live = self.live.read().unwrap_or_else(|e| e.into_inner());
        live.iter().filter(|(_, (_, o))| o.grid == grid).map(|(&off, &(size, o))| (self.region.base + off, size, o)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malloc_free_coalesce() {
        let m = GlobalMemory::new();
        let h = DeviceHeap::new(&m, 256).unwrap();
        let a = h.malloc(100, Origin::default());
        let b = h.malloc(100, Origin::default());
        assert!(a != 0 && b != 0 && a.is_multiple_of(16));
        assert_eq!(h.malloc(100, Origin::default()), 0, "no room for a third");
        assert!(h.is_live(a + 99, 1) && !h.is_live(a + 100, 1));
        h.free(a).unwrap();
        assert_eq!(h.free(a), Err(FreeError::NotAllocated));
        h.free(b).unwrap();
        assert_eq!(h.malloc(256, Origin::default()), h.region.base, "freed blocks coalesce");
        assert_eq!(h.malloc(u64::MAX, Origin::default()), 0, "a request past the address space is NULL");
        assert!(!h.is_live(h.region.base, u64::MAX));
        assert!(DeviceHeap::new(&m, u64::MAX).is_none(), "a heap past the address space is refused");
    }
}
