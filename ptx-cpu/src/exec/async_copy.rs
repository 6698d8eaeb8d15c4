//! Asynchronous copies and mbarriers.
//!
//! **`cp.async`: read at issue, written at the wait.** Each copy is checked (memcheck) on both
//! sides and its source read when the thread issues it; the bytes land in shared memory when
//! the thread's `cp.async.wait_group` / `wait_all` covers its group — the latest moment the
//! ISA allows. So a kernel that forgets the wait (or waits for the wrong group) reads stale
//! shared memory here, as it may on a GPU, instead of happening to work; copies no wait
//! covers never land. Initcheck and racecheck see the shared-memory write at the wait.
//!
//! **`cp.async.bulk`** (global to shared, completing on an mbarrier) is performed at issue,
//! then completes its bytes on the barrier: the consumer waits on the barrier's phase, which
//! cannot complete before the bytes are there, so the order is one the ISA allows.
//!
//! **mbarrier** operations are read-modify-writes of the 64-bit object, with the phase rules
//! of `ptx_abi::mbarrier` (shared with the host run of Rust bodies).

use super::block::Block;
use super::memops::{Kind, Loc};
use super::step::blend;
use super::warp::{lanes, Warp};
use crate::error::{Error, FaultKind};
use crate::program::*;
use ptx_abi::mbarrier as mb;

/// One thread's copy in flight.
#[derive(Debug, Clone, Copy)]
pub struct PendingCopy {
    pub lane: u8,
    /// The group: the thread's count of committed groups when it was issued.
    pub group: u32,
    /// Offset in the block's shared memory.
    pub dst: u32,
    pub len: u8,
    pub bytes: [u8; 16],
}

impl<'l> Block<'l> {
    pub fn async_op(&mut self, w: &mut Warp, d: usize, exec: u32, inst: &Inst) -> Result<(), Error> {
        match &inst.op {
            Op::CpAsync { size, dst, src, src_size } => {
                let (mut db, mut sb, mut n) = ([0u64; 32], [0u64; 32], [0u64; 32]);
                self.fetch(w, d, dst.base, &mut db);
                self.fetch(w, d, src.base, &mut sb);
                self.fetch(w, d, *src_size, &mut n);
                let size = *size as usize;
                for l in lanes(exec) {
                    let read = (n[l] as usize).min(size);
                    let sa = sb[l].wrapping_add(src.offset as u64);
                    let da = db[l].wrapping_add(dst.offset as u64);
                    let sloc = self.resolve(w, l, MemSpace::Global, sa, size as u64, Kind::Load, inst.line).map_err(|e| *e)?;
                    let dloc = self.resolve(w, l, MemSpace::Shared, da, size as u64, Kind::Store, inst.line).map_err(|e| *e)?;
                    let Loc::Shared(off) = dloc else { return Err(Error::Unsupported { instruction: "cp.async to memory other than shared".into(), line: inst.line as usize }) };
                    if self.l.sanitize.race || self.l.sanitize.init {
                        self.sanitize_access(w, l, &sloc, read as u64, Kind::Load, inst.line)?;
                    }
                    let mut bytes = [0u8; 16];
                    for (k, b) in bytes.iter_mut().enumerate().take(read) {
                        *b = self.read(w, l, &sloc, k, 1, Order::Weak) as u8;
                    }
                    let group = w.async_groups[l];
                    w.async_copies.push(PendingCopy { lane: l as u8, group, dst: off as u32, len: size as u8, bytes });
                }
            }
            Op::CpAsyncCommit => {
                for l in lanes(exec) {
                    w.async_groups[l] += 1;
                }
            }
            Op::CpAsyncWait { n } => {
                let mut done = Vec::new();
                w.async_copies.retain(|c| {
                    let l = c.lane as usize;
                    let land = exec & (1 << l) != 0 && (*n == u32::MAX || c.group + *n < w.async_groups[l]);
                    if land {
                        done.push(*c);
                    }
                    !land
                });
                for c in done {
                    let loc = Loc::Shared(c.dst as usize);
                    if self.race.is_some() || self.shared_init.is_some() {
                        self.sanitize_access(w, c.lane as usize, &loc, c.len as u64, Kind::Store, inst.line)?;
                    }
                    self.shared[c.dst as usize..c.dst as usize + c.len as usize].copy_from_slice(&c.bytes[..c.len as usize]);
                    self.event();
                }
            }
            Op::CpAsyncBulk { dst, src, size, bar } => {
                let (mut db, mut sb, mut n, mut bb) = ([0u64; 32], [0u64; 32], [0u64; 32], [0u64; 32]);
                self.fetch(w, d, dst.base, &mut db);
                self.fetch(w, d, src.base, &mut sb);
                self.fetch(w, d, *size, &mut n);
                self.fetch(w, d, bar.base, &mut bb);
                for l in lanes(exec) {
                    let bytes = n[l] as u32 as u64;
                    let sa = sb[l].wrapping_add(src.offset as u64);
                    let da = db[l].wrapping_add(dst.offset as u64);
                    if bytes % 16 != 0 {
                        let what = format!("cp.async.bulk of {bytes} bytes: the size must be a multiple of 16");
                        return Err(self.fault_at(w, l, FaultKind::Misaligned, Some(sa), Some(inst.line as usize), what));
                    }
                    let sloc = self.resolve(w, l, MemSpace::Global, sa, bytes, Kind::Load, inst.line).map_err(|e| *e)?;
                    let dloc = self.resolve(w, l, MemSpace::Shared, da, bytes, Kind::Store, inst.line).map_err(|e| *e)?;
                    if self.l.sanitize.race || self.l.sanitize.init {
                        self.sanitize_access(w, l, &sloc, bytes, Kind::Load, inst.line)?;
                        self.sanitize_access(w, l, &dloc, bytes, Kind::Store, inst.line)?;
                    }
                    for k in (0..bytes as usize).step_by(8) {
                        let v = self.read(w, l, &sloc, k, 8, Order::Weak);
                        self.write(w, l, &dloc, k, 8, v, Order::Weak);
                    }
                    self.event();
                    let ba = bb[l].wrapping_add(bar.offset as u64);
                    self.mbar_rmw(w, l, MemSpace::Shared, ba, inst.line, |s| (mb::complete_tx(s, bytes as u32), 0))?;
                }
            }
            Op::Mbar { op, d: dst, addr, b, space } => {
                let (mut base, mut tb) = ([0u64; 32], [0u64; 32]);
                self.fetch(w, d, addr.base, &mut base);
                self.fetch(w, d, *b, &mut tb);
                let mut out = [0u64; 32];
                for l in lanes(exec) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    let v = tb[l];
                    let has_b = *b != Src::None;
                    out[l] = match *op {
                        MbarOp::PendingCount => mb::pending_count(v) as u64,
                        MbarOp::Init => self.mbar_rmw(w, l, *space, a, inst.line, |_| (mb::init(v as u32), 0))?,
                        MbarOp::Inval => self.mbar_rmw(w, l, *space, a, inst.line, |_| (0, 0))?,
                        MbarOp::ExpectTx => self.mbar_rmw(w, l, *space, a, inst.line, |s| (mb::expect_tx(s, v as u32), 0))?,
                        MbarOp::CompleteTx => self.mbar_rmw(w, l, *space, a, inst.line, |s| (mb::complete_tx(s, v as u32), 0))?,
                        MbarOp::Arrive { drop, expect_tx: true } => self.mbar_rmw(w, l, *space, a, inst.line, |s| (mb::arrive(mb::expect_tx(s, v as u32), 1, drop), s))?,
                        MbarOp::Arrive { drop, expect_tx: false } => {
                            let count = if has_b { v as u32 } else { 1 };
                            self.mbar_rmw(w, l, *space, a, inst.line, |s| (mb::arrive(s, count, drop), s))?
                        }
                        MbarOp::Wait { parity } => {
                            let s = self.mbar_rmw(w, l, *space, a, inst.line, |s| (s, s))?;
                            (if parity { mb::parity_done(s, v as u32) } else { mb::phase_done(s, v) }) as u64
                        }
                    };
                }
                if *dst != NOREG {
                    blend(&mut w.levels[d][*dst as usize], &out, exec);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Changes the mbarrier at `a` by `f` (new state, result), checked as an 8-byte atomic;
    /// returns the result. A change is an event (`hang`): a waiting thread may now leave.
    #[allow(clippy::too_many_arguments)]
    fn mbar_rmw(&mut self, w: &mut Warp, l: usize, space: MemSpace, a: u64, line: u32, f: impl Fn(u64) -> (u64, u64)) -> Result<u64, Error> {
        let loc = self.resolve(w, l, space, a, 8, Kind::Atomic, line).map_err(|e| *e)?;
        if self.race.is_some() || self.shared_init.is_some() {
            self.sanitize_access(w, l, &loc, 8, Kind::Atomic, line)?;
        }
        let old = self.read(w, l, &loc, 0, 8, Order::Weak);
        let (new, r) = f(old);
        if new != old {
            self.write(w, l, &loc, 0, 8, new, Order::Weak);
            self.event();
        }
        Ok(r)
    }
}
