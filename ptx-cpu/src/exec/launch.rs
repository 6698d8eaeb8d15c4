//! One launch's configuration, which every block of it reads, and what it produced; `grid`
//! runs it (`coop` a cooperative one).

use crate::heap::DeviceHeap;
use crate::lineinfo::LineInfo;
use crate::sanitize::Sanitizers;
use crate::memory::Table;
use crate::program::Program;
use crate::texture::ObjectTable;
use crate::error::Error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub struct Launch<'a> {
    pub prog: &'a Program,
    pub entry: u32,
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dyn_shared: u32,
    /// Bytes of the block's shared memory: the reserved region, static and dynamic.
    pub shared_size: u32,
    /// Bytes of the reserved region at its start (0 when the kernel does not use one).
    pub reserved_shared: u32,
    /// The entry's shared-memory layout: offset of each shared variable.
    pub shared_offsets: Vec<u32>,
    pub kparams: Vec<u8>,
    pub table: Table,
    pub heap: Option<Arc<DeviceHeap>>,
    /// The device's texture and surface objects (`tex`, `suld`, ... look handles up here).
    pub objects: &'a ObjectTable,
    /// Bytes of local memory (and of parameter frames) each thread may use.
    pub stack_bytes: u32,
    pub deadline: Option<Instant>,
    /// Fault when a barrier completes only because threads exited (see `set_strict_barriers`).
    pub strict_barriers: bool,
    pub workers: u32,
    pub grid_id: u64,
    /// The lowest block that has failed (`u64::MAX`: none). Blocks after it stop; blocks
    /// before it run on, so the error a launch reports is its lowest failing block's whatever
    /// the workers' timing (a cooperative launch stops every block: they wait on each other).
    pub failed: AtomicU64,
    /// Host writes to device memory so far (they may end a loop: see `hang`).
    pub host_writes: &'a AtomicU64,
    /// The module's line information, for the source locations of reports.
    pub lines: &'a LineInfo,
    /// The sanitizers this launch runs.
    pub sanitize: Sanitizers,
    /// A cooperative launch's grid workspace (`%envreg1:2`), else 0 (see `coop`).
    pub grid_workspace: u64,
}

impl Launch<'_> {
    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }

    /// Block `ctaid`'s index (x fastest), the inverse of [`ctaid`](Self::ctaid).
    pub fn index(&self, ctaid: [u32; 3]) -> u64 {
        let [gx, gy, _] = self.grid;
        ctaid[0] as u64 + gx as u64 * (ctaid[1] as u64 + gy as u64 * ctaid[2] as u64)
    }

    /// Whether block `b` stops: a block before it has failed.
    pub fn stopped(&self, b: u64) -> bool {
        b > self.failed.load(Ordering::Relaxed)
    }

    /// Whether any block has failed.
    pub fn any_failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed) != u64::MAX
    }

    /// Block `b`'s coordinates (x fastest).
    pub fn ctaid(&self, b: u64) -> [u32; 3] {
        let [gx, gy, _] = self.grid;
        [(b % gx as u64) as u32, ((b / gx as u64) % gy as u64) as u32, (b / (gx as u64 * gy as u64)) as u32]
    }
}

/// What a launch produced: `printf` output (in block order), the first error, and counts.
pub struct Outcome {
    pub output: Vec<u8>,
    pub error: Option<Error>,
    pub thread_insts: u64,
    pub warp_insts: u64,
}
