//! Warp-synchronous instructions: the rendezvous of a member mask, then `shfl`, `vote`,
//! `redux` and `match` over the lanes that arrived.

use super::block::Block;
use super::step::blend;
use super::warp::{lanes, Warp, RUN, WSYNC};
use crate::program::*;
use crate::error::{Error, FaultKind};

/// What a rendezvous did: the lanes of `exec` that must wait for more of their member mask,
/// the lanes that were waiting here and now join the executing group, and whether lanes
/// waiting at other instructions (`bar.warp.sync`) were released.
pub(super) struct Rendezvous {
    pub blocked: u32,
    pub joined: u32,
    pub elsewhere: bool,
}

impl<'l> Block<'l> {
    /// The rendezvous of a warp-synchronous instruction. The lanes of `exec` may pass
    /// different member masks as long as the masks do not overlap (tiles of 16 threads: one
    /// mask per half warp); each mask's group completes on its own once all of its lanes have
    /// arrived. The instruction executes for every group that completes, together with the
    /// lanes that were waiting here for it.
    pub(super) fn warp_sync(&mut self, w: &mut Warp, d: usize, pc: u32, exec: u32, inst: &Inst) -> Result<Rendezvous, Error> {
        let mask_src = match &inst.op {
            Op::BarWarp { mask } | Op::Shfl { mask, .. } | Op::Vote { mask, .. } | Op::Redux { mask, .. } | Op::Match { mask, .. } => *mask,
            Op::Mma { .. } => Src::Imm(0xffff_ffff),
            _ => Src::None,
        };
        let any_pc = matches!(inst.op, Op::BarWarp { .. });
        let mut tm = [0u64; 32];
        self.fetch(w, d, mask_src, &mut tm);
        for l in lanes(exec) {
            let ml = tm[l] as u32;
            // A lane named by `ml` that executes here must pass `ml` too.
            let disagree = lanes(exec & ml).find(|&k| tm[k] as u32 != ml);
            if ml >> l & 1 == 0 || disagree.is_some() {
                return Err(self.fault_at(
                    w,
                    l,
                    FaultKind::InvalidWarpSync,
                    None,
                    Some(inst.line as usize),
                    match disagree {
                        Some(k) if ml >> l & 1 != 0 => format!(
                            "lanes of the warp use overlapping member masks: lane {l} passes {ml:#010x}, lane {k} passes {:#010x}",
                            tm[k] as u32
                        ),
                        _ => format!("member mask {ml:#010x} does not include the executing lane {l}"),
                    },
                ));
            }
        }
        if self.l.sanitize.sync {
            for l in lanes(exec) {
                self.sync_check_mask(w, l, tm[l] as u32, inst.line)?;
            }
        }
        let mut r = Rendezvous { blocked: 0, joined: 0, elsewhere: false };
        let mut todo = exec;
        while todo != 0 {
            let m = tm[todo.trailing_zeros() as usize] as u32;
            let group = exec & m;
            todo &= !group;
            let mut here = 0u32;
            let mut other = 0u32;
            for l in lanes(w.live & !exec) {
                if w.state[l] != WSYNC || w.wsync_mask[l] != m {
                    continue;
                }
                if w.pc[l] == pc && w.depth[l] as usize == d {
                    here |= 1 << l;
                } else if any_pc && matches!(self.l.prog.insts[w.pc[l] as usize].op, Op::BarWarp { .. }) {
                    other |= 1 << l;
                }
            }
            if m & w.live & !(group | here | other) != 0 {
                for l in lanes(group) {
                    w.wsync_mask[l] = m;
                }
                r.blocked |= group;
                continue;
            }
            self.warp_op(w, d, group | here, (group | here) & m, inst);
            if let Some(race) = self.race.as_mut() {
                race.warp_sync(w.index as usize);
            }
            for l in lanes(here | other) {
                w.state[l] = RUN;
                w.runnable |= 1 << l;
            }
            for l in lanes(other) {
                w.pc[l] += 1;
            }
            r.joined |= here;
            r.elsewhere |= other != 0;
        }
        Ok(r)
    }

    /// Executes a warp-synchronous instruction for `lanes_` (participants `part`).
    pub(super) fn warp_op(&mut self, w: &mut Warp, d: usize, lanes_: u32, part: u32, inst: &Inst) {
        match &inst.op {
            Op::Mma { kind, d: dr, a, b, c } => self.mma(w, d, lanes_, *kind, dr, a, b, c),
            Op::Shfl { mode, d: dst, p, a, b, c, .. } => {
                let (mut ta, mut tb, mut tc) = ([0u64; 32], [0u64; 32], [0u64; 32]);
                self.fetch(w, d, *a, &mut ta);
                self.fetch(w, d, *b, &mut tb);
                self.fetch(w, d, *c, &mut tc);
                let (mut out, mut pv) = ([0u64; 32], [0u64; 32]);
                for l in lanes(lanes_) {
                    let lane = l as i32;
                    let bval = (tb[l] & 31) as i32;
                    let cval = (tc[l] & 31) as i32;
                    let seg = ((tc[l] >> 8) & 31) as i32;
                    let max_lane = (lane & seg) | (cval & !seg);
                    let min_lane = lane & seg;
                    let (j, ok) = match mode {
                        ShflMode::Up => {
                            let j = lane - bval;
                            (j, j >= max_lane)
                        }
                        ShflMode::Down => {
                            let j = lane + bval;
                            (j, j <= max_lane)
                        }
                        ShflMode::Bfly => {
                            let j = lane ^ bval;
                            (j, j <= max_lane)
                        }
                        ShflMode::Idx => {
                            let j = min_lane | (bval & !seg);
                            (j, j <= max_lane)
                        }
                    };
                    let j = if ok { j } else { lane };
                    out[l] = ta[(j & 31) as usize] & 0xffff_ffff;
                    pv[l] = ok as u64;
                }
                let regs = &mut w.levels[d];
                if *dst != NOREG {
                    blend(&mut regs[*dst as usize], &out, lanes_);
                }
                if *p != NOREG {
                    blend(&mut regs[*p as usize], &pv, lanes_);
                }
            }
            Op::Vote { mode, d: dst, a, neg, .. } => {
                let mut ta = [0u64; 32];
                self.fetch(w, d, *a, &mut ta);
                let mut ballot = 0u32;
                for l in lanes(part) {
                    if (ta[l] & 1 != 0) != *neg {
                        ballot |= 1 << l;
                    }
                }
                let v = match mode {
                    VoteMode::Ballot => ballot as u64,
                    VoteMode::All => (ballot == part) as u64,
                    VoteMode::Any => (ballot != 0) as u64,
                    VoteMode::Uni => (ballot == 0 || ballot == part) as u64,
                };
                if *dst != NOREG {
                    blend(&mut w.levels[d][*dst as usize], &[v; 32], lanes_);
                }
            }
            Op::Redux { op, d: dst, a, .. } => {
                let mut ta = [0u64; 32];
                self.fetch(w, d, *a, &mut ta);
                let vals = lanes(part).map(|l| ta[l] as u32);
                let v = match op {
                    ReduxOp::Add => vals.fold(0u32, |x, y| x.wrapping_add(y)),
                    ReduxOp::And => vals.fold(!0u32, |x, y| x & y),
                    ReduxOp::Or => vals.fold(0u32, |x, y| x | y),
                    ReduxOp::Xor => vals.fold(0u32, |x, y| x ^ y),
                    ReduxOp::UMin => vals.min().unwrap_or(0),
                    ReduxOp::UMax => vals.max().unwrap_or(0),
                    ReduxOp::Min => vals.map(|x| x as i32).min().unwrap_or(0) as u32,
                    ReduxOp::Max => vals.map(|x| x as i32).max().unwrap_or(0) as u32,
                };
                if *dst != NOREG {
                    blend(&mut w.levels[d][*dst as usize], &[v as u64; 32], lanes_);
                }
            }
            Op::Match { all, wide, d: dst, p, a, .. } => {
                let mut ta = [0u64; 32];
                self.fetch(w, d, *a, &mut ta);
                let val = |l: usize| if *wide { ta[l] } else { ta[l] & 0xffff_ffff };
                let (mut out, mut pv) = ([0u64; 32], [0u64; 32]);
                let first = part.trailing_zeros() as usize;
                let same = lanes(part).all(|l| val(l) == val(first));
                for l in lanes(lanes_) {
                    if *all {
                        out[l] = if same { part as u64 } else { 0 };
                        pv[l] = same as u64;
                    } else {
                        out[l] = lanes(part).filter(|&k| val(k) == val(l)).fold(0u64, |acc, k| acc | 1 << k);
                    }
                }
                let regs = &mut w.levels[d];
                if *dst != NOREG {
                    blend(&mut regs[*dst as usize], &out, lanes_);
                }
                if *p != NOREG {
                    blend(&mut regs[*p as usize], &pv, lanes_);
                }
            }
            _ => {}
        }
    }
}
