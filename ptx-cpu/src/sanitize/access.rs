//! Where racecheck and initcheck see memory accesses (initcheck: global memory allocated
//! without initialisation and device `malloc` blocks, and every block's shared memory): after memcheck has resolved and checked
//! each lane's access (`exec::memops`), before it happens. The whole-warp fast paths are not
//! taken while either is on, so every lane's access comes through here.

use super::race::{Hazard, Place};
use crate::error::{Error, FaultKind};
use crate::exec::block::Block;
use crate::exec::memops::{Kind, Loc};
use crate::exec::warp::Warp;

impl<'l> Block<'l> {
    /// Racecheck and initcheck of lane `l`'s access of `size` bytes at `loc`.
    pub(crate) fn sanitize_access(&mut self, w: &Warp, l: usize, loc: &Loc, size: u64, kind: Kind, line: u32) -> Result<(), Error> {
        if kind == Kind::Load && self.l.sanitize.init {
            if let Loc::Global(r, off) = loc {
                if let Some(b) = r.init.as_ref().and_then(|m| m.first_unwritten(*off, size)) {
                    let what = if r.kind == crate::memory::RegionKind::Heap { "a device-malloc'd block" } else { "an allocation made without initialisation" };
                    return Err(self.fault_at(
                        w,
                        l,
                        FaultKind::Uninitialized,
                        Some(r.base + off),
                        Some(line as usize),
                        format!("initcheck: {size}-byte load of {what} at {:#x}: byte {:#x} (offset {:#x}) was never written", r.base, r.base + b, b),
                    ));
                }
            }
        }
        if let (Loc::Shared(o), Some(m)) = (loc, self.shared_init.as_ref()) {
            let o = *o as u64;
            if kind == Kind::Load {
                if let Some(b) = m.first_unwritten(o, size) {
                    return Err(self.fault_at(
                        w,
                        l,
                        FaultKind::Uninitialized,
                        None,
                        Some(line as usize),
                        format!("initcheck: {size}-byte load of shared memory at offset {o:#x}: byte {b:#x} was never written in this block ({})", self.shared_map()),
                    ));
                }
            } else {
                m.mark(o, size);
            }
        }
        let t = w.index * 32 + l as u32;
        if kind == Kind::Atomic {
            if let Some(race) = self.race.as_mut() {
                race.fence(t as usize);
            }
            return Ok(());
        }
        let (place, address, space) = match loc {
            Loc::Shared(o) => (Place::Shared(*o), *o as u64, "shared"),
            Loc::Global(r, off) => (Place::Global(r.base + off), r.base + off, "global"),
            _ => return Ok(()),
        };
        let Some(race) = self.race.as_mut() else { return Ok(()) };
        let Some(h) = race.access(place, size, t, line, kind == Kind::Store) else { return Ok(()) };
        let (what, other, verb) = match h {
            Hazard::ReadAfterWrite(a) => ("read-after-write", a, "written"),
            Hazard::WriteAfterRead(a) => ("write-after-read", a, "read"),
            Hazard::WriteAfterWrite(a) => ("write-after-write", a, "written"),
        };
        let ot = other.tid - 1;
        let (n0, n1) = (self.l.block[0], self.l.block[1]);
        let other_tid = [ot % n0, ot / n0 % n1, ot / (n0 * n1)];
        let access = if kind == Kind::Store { "write" } else { "read" };
        let detail = format!(
            "racecheck: {what} hazard on {size} byte(s) of {space} memory{}: this {access} and the same byte(s) {verb} by thread ({}, {}, {}) at {} with no barrier between them",
            if space == "shared" { format!(" at offset {address:#x}") } else { String::new() },
            other_tid[0],
            other_tid[1],
            other_tid[2],
            self.place(other.line),
        );
        let addr = if space == "global" { Some(address) } else { None };
        Err(self.fault_at(w, l, FaultKind::Race, addr, Some(line as usize), detail))
    }
}
