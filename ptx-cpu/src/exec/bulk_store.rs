//! The sm_90 bulk copy from shared to global memory (`cp.async.bulk.global.shared::cta.bulk_group`)
//! and its groups (`cp.async.bulk.commit_group`, `cp.async.bulk.wait_group[.read] n`).
//!
//! **Read at issue, written at the wait**, as `cp.async` (`async_copy`): the source is
//! checked (memcheck, initcheck) and read when the thread issues the copy; the bytes land in
//! global memory when the thread's `wait_group` covers the copy's group — the latest moment
//! the ISA allows — so a kernel that reads the destination without waiting sees the old
//! contents, and copies no wait covers never land. Misuse faults at the copy: a size or an
//! address that is not a multiple of 16 (`Misaligned`), a source outside the block's shared
//! memory or a destination outside its allocation (`OutOfBounds`).

use super::block::Block;
use super::memops::Kind;
use super::warp::{lanes, Warp};
use crate::error::{Error, FaultKind};
use crate::program::*;

/// One thread's bulk copy in flight.
#[derive(Debug, Clone)]
pub struct PendingBulk {
    pub lane: u8,
    /// The thread's count of committed bulk groups when it was issued.
    pub group: u32,
    /// The global destination address.
    pub dst: u64,
    pub bytes: Vec<u8>,
    pub line: u32,
}

impl<'l> Block<'l> {
    pub fn bulk_op(&mut self, w: &mut Warp, d: usize, exec: u32, inst: &Inst) -> Result<(), Error> {
        match &inst.op {
            Op::BulkStore { dst, src, size } => {
                let (mut db, mut sb, mut n) = ([0u64; 32], [0u64; 32], [0u64; 32]);
                self.fetch(w, d, dst.base, &mut db);
                self.fetch(w, d, src.base, &mut sb);
                self.fetch(w, d, *size, &mut n);
                for l in lanes(exec) {
                    let len = n[l] as u32 as u64;
                    let sa = sb[l].wrapping_add(src.offset as u64);
                    let da = db[l].wrapping_add(dst.offset as u64);
                    for (what, v) in [("size", len), ("source address", sa), ("destination address", da)] {
                        if v % 16 != 0 {
                            let msg = format!("cp.async.bulk.global.shared::cta of {len} bytes from {sa:#x} to {da:#x}: the {what} must be a multiple of 16");
                            return Err(self.fault_at(w, l, FaultKind::Misaligned, Some(if what == "source address" { sa } else { da }), Some(inst.line as usize), msg));
                        }
                    }
                    let sloc = self.resolve(w, l, MemSpace::Shared, sa, len, Kind::Load, inst.line).map_err(|e| *e)?;
                    // The destination is checked now too: the fault belongs to the copy.
                    self.resolve(w, l, MemSpace::Global, da, len, Kind::Store, inst.line).map_err(|e| *e)?;
                    if self.l.sanitize.race || self.l.sanitize.init {
                        self.sanitize_access(w, l, &sloc, len, Kind::Load, inst.line)?;
                    }
                    let bytes = (0..len as usize).map(|k| self.read(w, l, &sloc, k, 1, Order::Weak) as u8).collect();
                    let group = w.bulk_groups[l];
                    w.bulk_copies.push(PendingBulk { lane: l as u8, group, dst: da, bytes, line: inst.line });
                }
            }
            Op::BulkCommit => {
                for l in lanes(exec) {
                    w.bulk_groups[l] += 1;
                }
            }
            Op::BulkWait { n } => {
                let mut done = Vec::new();
                w.bulk_copies.retain(|c| {
                    let l = c.lane as usize;
                    let land = exec & (1 << l) != 0 && c.group + *n < w.bulk_groups[l];
                    if land {
                        done.push(c.clone());
                    }
                    !land
                });
                for c in done {
                    let l = c.lane as usize;
                    let loc = self.resolve(w, l, MemSpace::Global, c.dst, c.bytes.len() as u64, Kind::Store, c.line).map_err(|e| *e)?;
                    if self.l.sanitize.race || self.l.sanitize.init {
                        self.sanitize_access(w, l, &loc, c.bytes.len() as u64, Kind::Store, inst.line)?;
                    }
                    for (k, b) in c.bytes.iter().enumerate() {
                        self.write(w, l, &loc, k, 1, *b as u64, Order::Weak);
                    }
                    self.event();
                }
            }
            _ => {}
        }
        Ok(())
    }
}
