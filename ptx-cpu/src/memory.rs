//! Device global memory: allocations of 64-bit atomic words.
//!
//! Blocks run in parallel on host threads and race exactly as a GPU kernel's threads may, so
//! every byte of global memory is reached only through `AtomicU64` operations of one size: no
//! access is ever a Rust data race, whatever the kernel does. Accesses narrower than a word
//! are a load (reads) or a compare-exchange loop on the containing word (writes), so
//! neighbouring bytes written by other threads are never lost. A naturally aligned access never
//! spans two words (memcheck rejects misaligned ones before they get here).
//!
//! The allocation table is copy-on-write: a launch takes a snapshot (`Arc`) and looks
//! addresses up without locks; host `alloc`/`free` publish a new table.

use crate::program::Order;
use crate::sanitize::init::InitMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// Device allocations start here, so a null or small integer used as a pointer faults.
pub const HEAP_BASE: u64 = 0x7f00_0000_0000;
/// Allocation granularity and alignment, as `cuMemAlloc` guarantees.
pub const ALLOC_ALIGN: u64 = 256;

#[derive(Debug, Clone, PartialEq)]
pub enum RegionKind {
    /// `alloc` from the host.
    Alloc,
    /// A module's `.global` (or `.const`, read-only) variable.
    Var { name: String, constant: bool },
    /// The device heap `malloc` carves.
    Heap,
}

pub struct Region {
    pub base: u64,
    pub len: u64,
    pub kind: RegionKind,
    words: Box<[AtomicU64]>,
    /// Initcheck's shadow (which bytes were written), for regions that start uninitialised.
    pub init: Option<InitMap>,
}

#[inline(always)]
fn load_ord(o: Order) -> Ordering {
    match o {
        Order::Weak | Order::Relaxed | Order::Release => Ordering::Relaxed,
        Order::Acquire | Order::AcqRel => Ordering::Acquire,
        Order::SeqCst => Ordering::SeqCst,
    }
}

#[inline(always)]
fn store_ord(o: Order) -> Ordering {
    match o {
        Order::Weak | Order::Relaxed | Order::Acquire => Ordering::Relaxed,
        Order::Release | Order::AcqRel => Ordering::Release,
        Order::SeqCst => Ordering::SeqCst,
    }
}

#[inline(always)]
fn rmw_ord(o: Order) -> Ordering {
    match o {
        Order::Weak | Order::Relaxed => Ordering::Relaxed,
        Order::Acquire => Ordering::Acquire,
        Order::Release => Ordering::Release,
        Order::AcqRel => Ordering::AcqRel,
        Order::SeqCst => Ordering::SeqCst,
    }
}

impl Region {
    fn new(base: u64, len: u64, kind: RegionKind, uninit: bool) -> Option<Region> {
        let init = if uninit { Some(InitMap::new(len)?) } else { None };
        let n = usize::try_from(len.div_ceil(8).max(1)).ok()?;
        // Zeroed by the allocator (`calloc`: fresh pages cost nothing until touched), and a
        // failed allocation is `None` rather than an abort.
        let layout = std::alloc::Layout::array::<AtomicU64>(n).ok()?;
        // SAFETY: `layout` has a non-zero size (n >= 1).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut AtomicU64;
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `ptr` is a fresh allocation of `n` AtomicU64 with the global allocator's
        // layout for `[AtomicU64; n]`, and all-zero bytes are a valid AtomicU64.
        let words = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)) };
        Some(Region { base, len, kind, words, init })
    }

    pub fn contains(&self, addr: u64, size: u64) -> bool {
        addr >= self.base && addr.wrapping_sub(self.base).checked_add(size).is_some_and(|end| end <= self.len)
    }

    /// Loads `size` (1, 2, 4, 8) bytes at offset `off`, naturally aligned.
    #[inline(always)]
    pub fn load(&self, off: u64, size: u32, order: Order) -> u64 {
        let w = self.words[(off >> 3) as usize].load(load_ord(order));
        if size == 8 {
            return w;
        }
        (w >> ((off & 7) * 8)) & ((1u64 << (size * 8)) - 1)
    }

    /// Stores `size` (1, 2, 4, 8) bytes at offset `off`, naturally aligned.
    #[inline(always)]
    pub fn store(&self, off: u64, size: u32, value: u64, order: Order) {
        if let Some(m) = &self.init {
            m.mark(off, size as u64);
        }
        let word = &self.words[(off >> 3) as usize];
        if size == 8 {
            word.store(value, store_ord(order));
            return;
        }
        let shift = (off & 7) * 8;
        let m = ((1u64 << (size * 8)) - 1) << shift;
        let v = (value << shift) & m;
        let mut cur = word.load(Ordering::Relaxed);
        loop {
            match word.compare_exchange_weak(cur, (cur & !m) | v, store_ord(order), Ordering::Relaxed) {
                Ok(_) => return,
                Err(x) => cur = x,
            }
        }
    }

    /// Stores a whole aligned word (two adjacent 32-bit lanes at once).
    #[inline(always)]
    pub fn store_word(&self, off: u64, value: u64, order: Order) {
        if let Some(m) = &self.init {
            m.mark(off, 8);
        }
        self.words[(off >> 3) as usize].store(value, store_ord(order));
    }

    /// Atomically replaces the `size`-byte value at `off` by `f(old)` (`None`: leave it, as a
    /// failed compare-and-swap does); returns the old value.
    #[inline(always)]
    pub fn rmw(&self, off: u64, size: u32, order: Order, f: impl Fn(u64) -> Option<u64>) -> u64 {
        if let Some(m) = &self.init {
            m.mark(off, size as u64);
        }
        let word = &self.words[(off >> 3) as usize];
        let shift = if size == 8 { 0 } else { (off & 7) * 8 };
        let m = if size == 8 { u64::MAX } else { ((1u64 << (size * 8)) - 1) << shift };
        let mut cur = word.load(load_ord(order));
        loop {
            let old = (cur & m) >> shift;
            let Some(new) = f(old) else { return old };
            let next = (cur & !m) | ((new << shift) & m);
            match word.compare_exchange_weak(cur, next, rmw_ord(order), Ordering::Relaxed) {
                Ok(_) => return old,
                Err(x) => cur = x,
            }
        }
    }

    pub fn read_bytes(&self, off: u64, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = self.load(off + i as u64, 1, Order::Relaxed) as u8;
        }
    }

    pub fn write_bytes(&self, off: u64, data: &[u8]) {
        let mut i = 0;
        while i < data.len() {
            let o = off + i as u64;
            if o.is_multiple_of(8) && data.len() - i >= 8 {
                let v = u64::from_le_bytes(data[i..i + 8].try_into().unwrap_or([0; 8]));
                self.store_word(o, v, Order::Relaxed);
                i += 8;
            } else {
                self.store(o, 1, data[i] as u64, Order::Relaxed);
                i += 1;
            }
        }
    }
}

/// A sorted snapshot of the allocation table.
pub type Table = Arc<Vec<Arc<Region>>>;

/// The region containing `[addr, addr + size)`, if one does.
#[inline]
pub fn find(table: &[Arc<Region>], addr: u64, size: u64) -> Option<&Arc<Region>> {
    let i = table.partition_point(|r| r.base <= addr);
    let r = table.get(i.checked_sub(1)?)?;
    r.contains(addr, size).then_some(r)
}

/// The region whose range `[base, base + len)` holds `addr`, or the nearest one below it (for
/// fault messages).
pub fn nearest(table: &[Arc<Region>], addr: u64) -> Option<&Arc<Region>> {
    let i = table.partition_point(|r| r.base <= addr);
    table.get(i.checked_sub(1)?)
}

pub struct GlobalMemory {
    table: RwLock<Table>,
    next: Mutex<u64>,
    /// Host writes so far: a running kernel's loop may be waiting for one (`exec::hang`).
    pub host_writes: AtomicU64,
}

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory { table: RwLock::new(Arc::new(Vec::new())), next: Mutex::new(HEAP_BASE), host_writes: AtomicU64::new(0) }
    }

    pub fn snapshot(&self) -> Table {
        self.table.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Allocates a zeroed region; `None` when the host is out of memory or the request does
    /// not fit the device address space. The device heap starts uninitialised for initcheck.
    pub fn alloc(&self, bytes: u64, kind: RegionKind) -> Option<Arc<Region>> {
        let uninit = kind == RegionKind::Heap;
        self.alloc_with(bytes, kind, uninit)
    }

    /// [`alloc`](Self::alloc), with `uninit`: its bytes count as never written (initcheck)
    /// until something writes them (they read as zeros all the same).
    pub fn alloc_with(&self, bytes: u64, kind: RegionKind, uninit: bool) -> Option<Arc<Region>> {
        // Sizes come from users (host allocations, `set_heap_size`, module variables): checked.
        let size = bytes.max(1).div_ceil(ALLOC_ALIGN).checked_mul(ALLOC_ALIGN)?;
        let r = Region::new(0, bytes, kind, uninit)?;
        let base = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let b = *next;
            // A gap after each allocation: an access just past its end faults instead of
            // landing in the next one.
            *next = b.checked_add(size)?.checked_add(ALLOC_ALIGN)?;
            b
        };
        let r = Arc::new(Region { base, ..r });
        let mut t = self.table.write().unwrap_or_else(|e| e.into_inner());
        let mut v: Vec<Arc<Region>> = (**t).clone();
        let at = v.partition_point(|x| x.base < base);
        v.insert(at, r.clone());
        *t = Arc::new(v);
        Some(r)
    }

    /// Removes the region based at `base`, if one is.
    pub fn free(&self, base: u64) -> Option<Arc<Region>> {
        let mut t = self.table.write().unwrap_or_else(|e| e.into_inner());
        let i = t.iter().position(|r| r.base == base)?;
        let mut v: Vec<Arc<Region>> = (**t).clone();
        let r = v.remove(i);
        *t = Arc::new(v);
        Some(r)
    }
}
