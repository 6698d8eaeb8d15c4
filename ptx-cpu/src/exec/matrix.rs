//! `ldmatrix` / `stmatrix` over a warp (PTX ISA, "Warp-level matrix load instruction:
//! ldmatrix" and "stmatrix"): lane `8·i + r` supplies the shared-memory address of row `r`
//! of matrix `i` (eight 16-bit elements, 16 contiguous bytes), and lane `l` holds, in its
//! register `i`, elements `(l / 4, 2·(l % 4))` and `(l / 4, 2·(l % 4) + 1)` of matrix `i`
//! (low half first); with `.trans` it holds `(2·(l % 4), l / 4)` and `(2·(l % 4) + 1, l / 4)`.
//!
//! The instruction is `.aligned`: every lane that supplies an address must execute it; a lane
//! that does not is a fault naming it.

use super::block::Block;
use super::memops::Kind;
use super::step::blend;
use super::warp::{lanes, Warp};
use crate::error::{Error, FaultKind};
use crate::program::*;

/// The (row, column) of half `j` (0: low, 1: high) of lane `lane`'s register for one matrix.
pub fn element(lane: usize, j: usize, trans: bool) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    if trans { (2 * t + j, g) } else { (g, 2 * t + j) }
}

impl<'l> Block<'l> {
    pub(super) fn matrix(&mut self, w: &mut Warp, d: usize, exec: u32, inst: &Inst) -> Result<(), Error> {
        let (num, trans, addr, store) = match &inst.op {
            Op::LdMatrix { num, trans, addr, .. } => (*num as usize, *trans, *addr, false),
            Op::StMatrix { num, trans, addr, .. } => (*num as usize, *trans, *addr, true),
            _ => return Ok(()),
        };
        let need = if num == 4 { u32::MAX } else { (1u32 << (8 * num)) - 1 };
        if need & !exec != 0 {
            let l = (need & !exec).trailing_zeros() as usize;
            let at = exec.trailing_zeros() as usize;
            let what = if store { "stmatrix" } else { "ldmatrix" };
            return Err(self.fault_at(
                w,
                at,
                FaultKind::InvalidWarpSync,
                None,
                Some(inst.line as usize),
                format!("{what}.sync.aligned.x{num}: lane {l}, which supplies a row address, does not execute it (every lane of the warp must)"),
            ));
        }
        let mut base = [0u64; 32];
        self.fetch(w, d, addr.base, &mut base);
        let kind = if store { Kind::Store } else { Kind::Load };
        let checked = self.l.sanitize.race || self.l.sanitize.init || (store && self.shared_init.is_some());
        // m[i][row][col]: the matrices' 16-bit elements.
        let mut m = [[[0u16; 8]; 8]; 4];
        if store {
            let mut regs = [[0u64; 32]; 4];
            if let Op::StMatrix { srcs, .. } = &inst.op {
                for i in 0..num {
                    self.fetch(w, d, srcs[i], &mut regs[i]);
                }
            }
            for l in 0..32 {
                for (i, r) in regs.iter().enumerate().take(num) {
                    for j in 0..2 {
                        let (row, col) = element(l, j, trans);
                        m[i][row][col] = (r[l] >> (16 * j)) as u16;
                    }
                }
            }
        }
        for l in lanes(need) {
            let (i, row) = (l / 8, l % 8);
            let a = base[l].wrapping_add(addr.offset as u64);
            let loc = self.resolve(w, l, MemSpace::Shared, a, 16, kind, inst.line).map_err(|e| *e)?;
            if checked {
                self.sanitize_access(w, l, &loc, 16, kind, inst.line)?;
            }
            for col in 0..8 {
                if store {
                    self.write(w, l, &loc, 2 * col, 2, m[i][row][col] as u64, Order::Weak);
                } else {
                    m[i][row][col] = self.read(w, l, &loc, 2 * col, 2, Order::Weak) as u16;
                }
            }
        }
        if let Op::LdMatrix { ds, .. } = &inst.op {
            for (i, &reg) in ds.iter().enumerate().take(num) {
                let mut out = [0u64; 32];
                for (l, o) in out.iter_mut().enumerate() {
                    let (r0, c0) = element(l, 0, trans);
                    let (r1, c1) = element(l, 1, trans);
                    *o = m[i][r0][c0] as u64 | (m[i][r1][c1] as u64) << 16;
                }
                blend(&mut w.levels[d][reg as usize], &out, exec);
            }
        }
        Ok(())
    }
}
