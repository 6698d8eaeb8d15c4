//! Embedded cubins: machine code assembled at build time beside a kernel's PTX, so the first
//! launch on a matching GPU loads it instead of JIT-compiling the PTX (docs/cubins.md).
//!
//! A build script assembles the kernels it names ([`Builder`], `build.rs`) and writes a table
//! of [`CubinTable`]s; the program hands the table to [`register`] once. On the CUDA backend a
//! module is then loaded from the cubin that [`select`] picks for the device's compute
//! capability, and from the PTX otherwise. A cubin is only used for the exact PTX text it was
//! assembled from (its hash and length are in the table), so a stale table is ignored, never
//! wrong. The CPU backend always runs the PTX.

mod build;
mod select;

pub use build::{find_ptxas, parse_archs, table_source, Assembled, Builder, ARCHS_ENV, REQUIRE_ENV};
pub use select::{select, Arch};

use crate::kernel::Kernel;
use std::sync::Mutex;

/// One assembled image: `ptxas -arch=<arch>`'s output for a kernel's module.
#[derive(Debug, Clone, Copy)]
pub struct Cubin {
    pub arch: Arch,
    pub image: &'static [u8],
}

/// A kernel's embedded cubins: the entry they serve, the PTX they were assembled from (by its
/// FNV-1a hash and length), and one image per architecture.
#[derive(Debug, Clone, Copy)]
pub struct CubinTable {
    pub entry: &'static str,
    pub ptx_hash: u64,
    pub ptx_len: usize,
    pub cubins: &'static [Cubin],
}

impl CubinTable {
    /// Whether this table was assembled from `kernel`'s PTX.
    pub fn serves(&self, kernel: &Kernel) -> bool {
        self.entry == kernel.entry && self.ptx_len == kernel.ptx.len() && self.ptx_hash == ptx_hash(kernel.ptx)
    }
}

/// FNV-1a over the PTX text: what a table records of the module it was assembled from.
pub const fn ptx_hash(ptx: &str) -> u64 {
    let bytes = ptx.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

static TABLES: Mutex<Vec<&'static [CubinTable]>> = Mutex::new(Vec::new());

/// Makes embedded cubins available to every later module load (`include_cubins!` writes the
/// table; call this once, before the first launch). Registering a table twice is harmless.
pub fn register(tables: &'static [CubinTable]) {
    let mut all = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|t| std::ptr::eq(*t, tables)) {
        all.push(tables);
    }
}

/// The registered table assembled from `kernel`'s PTX, if any.
pub fn lookup(kernel: &Kernel) -> Option<CubinTable> {
    let all = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    all.iter().flat_map(|t| t.iter()).find(|t| t.serves(kernel)).copied()
}

/// The cubin to load for `kernel` on a device of compute capability `cc`, or `None` to
/// JIT-compile the PTX.
pub fn image_for(kernel: &Kernel, cc: (u32, u32)) -> Option<Cubin> {
    let table = lookup(kernel)?;
    select(table.cubins, cc).copied()
}

/// The table `Builder::write` generated in the build script's `OUT_DIR`: a
/// `&'static [CubinTable]` expression, to pass to [`register`].
#[macro_export]
macro_rules! include_cubins {
    () => {
        include!(concat!(env!("OUT_DIR"), "/ptx_cubins.rs"))
    };
}
