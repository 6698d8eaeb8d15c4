//! The interpreter loop: runs one group of lanes (see `warp.rs`) instruction by instruction,
//! each instruction once for all the group's lanes.

use super::block::Block;
use super::lanes::mask as bits_mask;
use super::warp::{key, lanes, Group, Warp, BAR, ROTATE_AFTER, WSYNC};
use crate::program::*;
use crate::error::{Error, FaultKind};

const FULL: u32 = u32::MAX;

/// Copies `src` into `dst` for the lanes in `mask`.
#[inline(always)]
pub fn blend(dst: &mut Lanes, src: &Lanes, mask: u32) {
    if mask == FULL {
        *dst = *src;
    } else {
        for l in lanes(mask) {
            dst[l] = src[l];
        }
    }
}

/// What operands other than registers and immediates need from the warp.
pub struct LaneCtx<'a> {
    pub tid: &'a [Lanes; 3],
    pub local_base: &'a [u32; 32],
    pub param_base: &'a [u32; 32],
    pub index: u32,
}

impl<'a> LaneCtx<'a> {
    pub fn of(w: &'a Warp) -> LaneCtx<'a> {
        LaneCtx { tid: &w.tid, local_base: &w.local_base, param_base: &w.param_base, index: w.index }
    }
}

/// An operand's lanes without copying: a register is read in place; anything else is
/// computed into `tmp`.
#[inline(always)]
pub fn operand<'a>(b: &Block, ctx: &LaneCtx, regs: &'a [Lanes], s: Src, tmp: &'a mut Lanes) -> &'a Lanes {
    static ZERO: Lanes = [0; 32];
    match s {
        Src::Reg(r) => &regs[r as usize],
        Src::None => &ZERO,
        _ => {
            b.fetch_ctx(ctx, regs, s, tmp);
            tmp
        }
    }
}

impl<'l> Block<'l> {
    /// The per-lane values of an operand, copied into `out`.
    pub fn fetch(&self, w: &Warp, depth: usize, s: Src, out: &mut Lanes) {
        self.fetch_ctx(&LaneCtx::of(w), &w.levels[depth], s, out);
    }

    pub fn fetch_ctx(&self, w: &LaneCtx, regs: &[Lanes], s: Src, out: &mut Lanes) {
        match s {
            Src::None => {}
            Src::Reg(r) => *out = regs[r as usize],
            Src::Imm(v) => *out = [v; 32],
            Src::LocalAddr(o) => {
                for (x, b) in out.iter_mut().zip(w.local_base) {
                    *x = b.wrapping_add(o) as u64;
                }
            }
            Src::ParamAddr(o) => {
                for (x, b) in out.iter_mut().zip(w.param_base) {
                    *x = b.wrapping_add(o) as u64;
                }
            }
            Src::Special(sr) => self.special(w, sr, out),
            Src::Shared(v, off) => {
                let base = self.l.shared_offsets.get(v as usize).copied().unwrap_or(u32::MAX);
                *out = [base.wrapping_add(off) as u64; 32];
            }
        }
    }

    fn special(&self, w: &LaneCtx, sr: Sreg, out: &mut Lanes) {
        let l = self.l;
        let v: u64 = match sr {
            Sreg::Tid(d) => {
                *out = w.tid[d as usize];
                return;
            }
            Sreg::LaneId => {
                for (i, x) in out.iter_mut().enumerate() {
                    *x = i as u64;
                }
                return;
            }
            Sreg::LanemaskEq | Sreg::LanemaskLe | Sreg::LanemaskLt | Sreg::LanemaskGe | Sreg::LanemaskGt => {
                for (i, x) in out.iter_mut().enumerate() {
                    let eq = 1u64 << i;
                    let lt = eq - 1;
                    *x = match sr {
                        Sreg::LanemaskEq => eq,
                        Sreg::LanemaskLe => lt | eq,
                        Sreg::LanemaskLt => lt,
                        Sreg::LanemaskGe => !lt & 0xffff_ffff,
                        _ => !(lt | eq) & 0xffff_ffff,
                    };
                }
                return;
            }
            Sreg::Ntid(d) => l.block[d as usize] as u64,
            Sreg::Ctaid(d) => self.ctaid[d as usize] as u64,
            Sreg::Nctaid(d) => l.grid[d as usize] as u64,
            Sreg::WarpId => w.index as u64,
            Sreg::NWarpId => 64,
            Sreg::SmId => self.worker as u64,
            Sreg::NSmId => l.workers as u64,
            Sreg::GridId => l.grid_id,
            Sreg::Clock | Sreg::ClockHi | Sreg::Clock64 | Sreg::GlobalTimer | Sreg::GlobalTimerLo | Sreg::GlobalTimerHi => {
                // Time moves on: a loop that reads it may be waiting for it.
                self.event();
                self.time(sr)
            }
            Sreg::DynamicSmemSize => l.dyn_shared as u64,
            Sreg::TotalSmemSize => (l.shared_size - l.reserved_shared) as u64,
            Sreg::AggrSmemSize => l.shared_size as u64,
            Sreg::GridWorkspace(hi) => if hi { l.grid_workspace >> 32 } else { l.grid_workspace & 0xffff_ffff },
            Sreg::Const(c) => c as u64,
        };
        *out = [v; 32];
    }

    fn time(&self, sr: Sreg) -> u64 {
        match sr {
            Sreg::Clock => self.clock & 0xffff_ffff,
            Sreg::ClockHi => self.clock >> 32,
            Sreg::Clock64 => self.clock,
            _ => {
                let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
                match sr {
                    Sreg::GlobalTimerLo => ns & 0xffff_ffff,
                    Sreg::GlobalTimerHi => ns >> 32,
                    _ => ns,
                }
            }
        }
    }

    /// Runs `g` until it ends (diverges, blocks, yields) or the budget is spent; every lane's
    /// position is written back to the warp before returning.
    pub fn run_group(&mut self, w: &mut Warp, g: Group, budget: &mut i64) -> Result<(), Error> {
        if !self.l.sanitize.sync {
            return self.run_group_steps(w, g, budget);
        }
        // Synccheck: the highest kernel-level instruction the group ran, for its lanes still
        // live (those that exited took it at their exit).
        self.sync_group_hi = 0;
        let mask = g.mask;
        let r = self.run_group_steps(w, g, budget);
        Self::sync_note(w, mask & w.live, self.sync_group_hi);
        r
    }

    fn run_group_steps(&mut self, w: &mut Warp, g: Group, budget: &mut i64) -> Result<(), Error> {
        let prog = self.l.prog;
        let mut mask = g.mask;
        let mut pc = g.pc;
        let mut depth = g.depth;
        let mut sticky = g.sticky;
        let mut next_key = g.next_key;
        loop {
            let inst = &prog.insts[pc as usize];
            let exec = match inst.guard {
                None => mask,
                Some((r, neg)) => {
                    let p = &w.levels[depth as usize][r as usize];
                    let mut e = 0u32;
                    for (l, v) in p.iter().enumerate() {
                        e |= ((*v as u32 & 1) ^ neg as u32) << l;
                    }
                    e & mask
                }
            };
            self.clock += 1;
            self.thread_insts += exec.count_ones() as u64;
            *budget -= 1;
            if self.l.sanitize.sync && depth == 0 && exec != 0 && !matches!(inst.op, Op::Ret | Op::Exit) {
                self.sync_group_hi = self.sync_group_hi.max(pc + 1);
            }
            let d = depth as usize;
            match &inst.op {
                Op::Alu { f, k, d: dst, d2, a, b, c } => {
                    if exec != 0 {
                        let Warp { levels, scratch, tid, local_base, param_base, index, .. } = &mut *w;
                        let [sa, sb, sc, _, so, so2] = &mut **scratch;
                        let ctx = LaneCtx { tid, local_base, param_base, index: *index };
                        let regs = &levels[d];
                        let av = operand(self, &ctx, regs, *a, sa);
                        let bv = operand(self, &ctx, regs, *b, sb);
                        let cv = operand(self, &ctx, regs, *c, sc);
                        f(av, bv, cv, *k, so, so2);
                        let regs = &mut levels[d];
                        if *dst != NOREG {
                            blend(&mut regs[*dst as usize], so, exec);
                        }
                        if *d2 != NOREG {
                            blend(&mut regs[*d2 as usize], so2, exec);
                        }
                    }
                    pc += 1;
                }
                Op::Alu4 { f, k, d: dst, d2, a, b, c, e } => {
                    if exec != 0 {
                        let Warp { levels, scratch, tid, local_base, param_base, index, .. } = &mut *w;
                        let [sa, sb, sc, se, so, so2] = &mut **scratch;
                        let ctx = LaneCtx { tid, local_base, param_base, index: *index };
                        let regs = &levels[d];
                        let av = operand(self, &ctx, regs, *a, sa);
                        let bv = operand(self, &ctx, regs, *b, sb);
                        let cv = operand(self, &ctx, regs, *c, sc);
                        let ev = operand(self, &ctx, regs, *e, se);
                        f(av, bv, cv, ev, *k, so, so2);
                        let regs = &mut levels[d];
                        if *dst != NOREG {
                            blend(&mut regs[*dst as usize], so, exec);
                        }
                        if *d2 != NOREG {
                            blend(&mut regs[*d2 as usize], so2, exec);
                        }
                    }
                    pc += 1;
                }
                Op::Setp { f, k, d: dst, d2, a, b, comb, c, cneg, x2, t } => {
                    if exec != 0 {
                        let Warp { levels, scratch, tid, local_base, param_base, index, .. } = &mut *w;
                        let [sa, sb, sc, sd, so, so2] = &mut **scratch;
                        let ctx = LaneCtx { tid, local_base, param_base, index: *index };
                        let regs = &levels[d];
                        let av = operand(self, &ctx, regs, *a, sa);
                        let bv = operand(self, &ctx, regs, *b, sb);
                        f(av, bv, sc, *k, so, so2);
                        let cv = operand(self, &ctx, regs, *c, sd);
                        let cneg = *cneg as u64;
                        for l in 0..32 {
                            let r = so[l];
                            let (x, y) = if *x2 { (r & 1, r >> 1 & 1) } else { (r & 1, (r & 1) ^ 1) };
                            let cb = (cv[l] & 1) ^ cneg;
                            let (x, y) = match comb {
                                Comb::None => (x, y),
                                Comb::And => (x & cb, y & cb),
                                Comb::Or => (x | cb, y | cb),
                                Comb::Xor => (x ^ cb, y ^ cb),
                            };
                            so[l] = if *t & SET_LANES != 0 {
                                let v = *t & 0xffff;
                                (if x != 0 { v } else { 0 }) | (if y != 0 { v << 16 } else { 0 })
                            } else if x != 0 {
                                *t
                            } else {
                                0
                            };
                            so2[l] = y;
                        }
                        let regs = &mut levels[d];
                        if *dst != NOREG {
                            blend(&mut regs[*dst as usize], so, exec);
                        }
                        if *d2 != NOREG {
                            blend(&mut regs[*d2 as usize], so2, exec);
                        }
                    }
                    pc += 1;
                }
                Op::Pack { d: dst, parts, n, bits } => {
                    if exec != 0 {
                        let mut out = [0u64; 32];
                        let m = bits_mask(*bits as u32);
                        for (i, p) in parts[..*n as usize].iter().enumerate() {
                            let mut t = [0u64; 32];
                            self.fetch(w, d, *p, &mut t);
                            for l in 0..32 {
                                out[l] |= (t[l] & m) << (i as u32 * *bits as u32);
                            }
                        }
                        if *dst != NOREG {
                            blend(&mut w.levels[d][*dst as usize], &out, exec);
                        }
                    }
                    pc += 1;
                }
                Op::Unpack { ds, a, n, bits } => {
                    if exec != 0 {
                        let mut t = [0u64; 32];
                        self.fetch(w, d, *a, &mut t);
                        let m = bits_mask(*bits as u32);
                        for (i, r) in ds[..*n as usize].iter().enumerate() {
                            if *r == NOREG {
                                continue;
                            }
                            let mut out = [0u64; 32];
                            for l in 0..32 {
                                out[l] = (t[l] >> (i as u32 * *bits as u32)) & m;
                            }
                            blend(&mut w.levels[d][*r as usize], &out, exec);
                        }
                    }
                    pc += 1;
                }
                Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } | Op::LdMatrix { .. } | Op::StMatrix { .. } => {
                    if exec != 0 {
                        if matches!(inst.op, Op::St { .. } | Op::StMatrix { .. }) {
                            self.event();
                        }
                        self.memory_op(w, d, exec, inst)?;
                    }
                    pc += 1;
                }
                Op::Tex(_) | Op::Surf(_) => {
                    if exec != 0 {
                        if matches!(&inst.op, Op::Surf(s) if s.store) {
                            self.event();
                        }
                        self.texture_op(w, d, exec, inst)?;
                    }
                    pc += 1;
                }
                Op::Bra { target } => {
                    if exec == mask {
                        pc = *target;
                    } else if exec == 0 {
                        pc += 1;
                    } else {
                        w.writeback(exec, *target, depth);
                        w.writeback(mask & !exec, pc + 1, depth);
                        return Ok(());
                    }
                }
                Op::Call { target, args, rets: _ } => {
                    if exec == 0 {
                        pc += 1;
                    } else {
                        self.event(); // it writes the callee's parameters
                        let mut targets = [0u32; 32];
                        match target {
                            CallTarget::Direct(f) => targets = [*f; 32],
                            CallTarget::Indirect(s) => {
                                let mut t = [0u64; 32];
                                self.fetch(w, d, *s, &mut t);
                                for l in lanes(exec) {
                                    let a = t[l];
                                    let idx = a.wrapping_sub(FUNC_BASE) / 16;
                                    let ok = a >= FUNC_BASE
                                        && (a - FUNC_BASE).is_multiple_of(16)
                                        && (idx as usize) < prog.funcs.len()
                                        && matches!(prog.funcs[idx as usize].kind, FuncKind::Func);
                                    if !ok {
                                        return Err(self.fault_at(
                                            w,
                                            l,
                                            FaultKind::OutOfBounds,
                                            Some(a),
                                            Some(inst.line as usize),
                                            "indirect call through an address that is no function of this module".into(),
                                        ));
                                    }
                                    targets[l] = idx as u32;
                                }
                            }
                        }
                        for l in lanes(exec) {
                            self.push_frame(w, l, targets[l], pc + 1, args, inst.line)?;
                        }
                        let first = targets[exec.trailing_zeros() as usize];
                        let uniform = lanes(exec).all(|l| targets[l] == first);
                        let nd = depth + 1;
                        for l in lanes(exec) {
                            let f = &prog.funcs[targets[l] as usize];
                            w.pc[l] = f.pc;
                            w.depth[l] = nd;
                        }
                        let maxregs = lanes(exec).map(|l| prog.funcs[targets[l] as usize].nregs).max().unwrap_or(0);
                        w.ensure_level(nd as usize, maxregs);
                        if exec == mask && uniform {
                            pc = prog.funcs[first as usize].pc;
                            depth = nd;
                        } else {
                            w.writeback(mask & !exec, pc + 1, depth);
                            return Ok(());
                        }
                    }
                }
                Op::Syscall { which, args, rets } => {
                    if exec != 0 {
                        self.event();
                        self.syscall(w, d, exec, *which, args, rets, inst.line)?;
                    }
                    pc += 1;
                }
                Op::Ret => {
                    if exec == 0 {
                        pc += 1;
                    } else if depth == 0 {
                        Self::sync_note(w, exec, self.sync_group_hi);
                        self.exit_lanes(w, exec);
                        mask &= !exec;
                        if mask == 0 {
                            return Ok(());
                        }
                        pc += 1;
                    } else {
                        for l in lanes(exec) {
                            self.pop_frame(w, l);
                        }
                        let first = w.pc[exec.trailing_zeros() as usize];
                        if exec == mask && lanes(exec).all(|l| w.pc[l] == first) {
                            pc = first;
                            depth -= 1;
                        } else {
                            w.writeback(mask & !exec, pc + 1, depth);
                            return Ok(());
                        }
                    }
                }
                Op::Exit => {
                    if exec != 0 {
                        Self::sync_note(w, exec, self.sync_group_hi);
                        self.exit_lanes(w, exec);
                        mask &= !exec;
                        if mask == 0 {
                            return Ok(());
                        }
                    }
                    pc += 1;
                }
                Op::Trap | Op::Brkpt => {
                    if exec != 0 {
                        let l = exec.trailing_zeros() as usize;
                        let detail = if matches!(inst.op, Op::Trap) { "trap executed" } else { "brkpt executed with no debugger attached" };
                        return Err(self.fault_at(w, l, FaultKind::Trap, None, Some(inst.line as usize), detail.into()));
                    }
                    pc += 1;
                }
                Op::Bar { kind, id, count, aligned, d: _, p, pneg } => {
                    if exec == 0 {
                        pc += 1;
                    } else {
                        let (mut ti, mut tn, mut tp) = ([0u64; 32], [0u64; 32], [0u64; 32]);
                        self.fetch(w, d, *id, &mut ti);
                        self.fetch(w, d, *count, &mut tn);
                        self.fetch(w, d, *p, &mut tp);
                        let l0 = exec.trailing_zeros() as usize;
                        let bid = ti[l0];
                        if bid >= super::barrier::NBARRIERS as u64 || lanes(exec).any(|l| ti[l] != bid) {
                            return Err(self.fault_at(
                                w,
                                l0,
                                FaultKind::BarrierDivergence,
                                None,
                                Some(inst.line as usize),
                                format!("barrier number {bid} is out of range 0..16 or differs between the threads of a warp"),
                            ));
                        }
                        if self.l.sanitize.sync && *count != Src::None {
                            self.sync_check_count(w, l0, tn[l0], inst.line)?;
                        }
                        let bar = &mut self.bars[bid as usize];
                        let wi = w.index as usize;
                        if *aligned && bar.first_pc[wi] != u32::MAX && bar.first_pc[wi] != pc {
                            let other = prog.insts[bar.first_pc[wi] as usize].line;
                            return Err(self.fault_at(
                                w,
                                l0,
                                FaultKind::BarrierDivergence,
                                None,
                                Some(inst.line as usize),
                                format!(
                                    "threads of one warp wait at different barrier instructions for barrier {bid} ({} and {}); an aligned barrier (`bar.sync`, `__syncthreads`) must be reached by every thread of a warp at the same instruction",
                                    self.place(other),
                                    self.place(inst.line)
                                ),
                            ));
                        }
                        if bar.first_pc[wi] == u32::MAX {
                            bar.first_pc[wi] = pc;
                        }
                        bar.arrived += exec.count_ones();
                        if *count != Src::None {
                            bar.expected = tn[l0] as u32;
                        }
                        for l in lanes(exec) {
                            let v = (tp[l] & 1 != 0) != *pneg;
                            bar.popc += v as u32;
                            bar.all &= v;
                            bar.any |= v;
                        }
                        pc += 1;
                        if *kind != BarKind::Arrive {
                            for l in lanes(exec) {
                                w.state[l] = BAR;
                                w.bar_id[l] = bid as u8;
                            }
                            w.runnable &= !exec;
                            w.writeback(mask, pc, depth);
                            return Ok(());
                        }
                    }
                }
                Op::BarWarp { .. } | Op::Shfl { .. } | Op::Vote { .. } | Op::Redux { .. } | Op::Match { .. } | Op::Mma { .. } => {
                    if exec == 0 {
                        pc += 1;
                    } else {
                        let r = self.warp_sync(w, d, pc, exec, inst)?;
                        // Lanes blocked until the rest of their member mask arrives.
                        for l in lanes(r.blocked) {
                            w.state[l] = WSYNC;
                        }
                        w.runnable &= !r.blocked;
                        if r.blocked == exec {
                            w.writeback(mask, pc, depth);
                            if mask & !exec != 0 {
                                w.writeback(mask & !exec, pc + 1, depth);
                            }
                            return Ok(());
                        }
                        if r.blocked != 0 {
                            w.writeback(r.blocked, pc, depth);
                        }
                        mask = (mask & !r.blocked) | r.joined;
                        pc += 1;
                        if r.elsewhere {
                            w.writeback(mask, pc, depth);
                            return Ok(());
                        }
                        next_key = recompute_next(w, mask);
                    }
                }
                Op::Activemask { d: dst } => {
                    if exec != 0 && *dst != NOREG {
                        blend(&mut w.levels[d][*dst as usize], &[exec as u64; 32], exec);
                    }
                    pc += 1;
                }
                Op::CpAsync { .. } | Op::CpAsyncCommit | Op::CpAsyncWait { .. } | Op::CpAsyncBulk { .. } | Op::Mbar { .. } => {
                    if exec != 0 {
                        self.async_op(w, d, exec, inst)?;
                    }
                    pc += 1;
                }
                Op::BulkStore { .. } | Op::BulkCommit | Op::BulkWait { .. } => {
                    if exec != 0 {
                        self.bulk_op(w, d, exec, inst)?;
                    }
                    pc += 1;
                }
                Op::Fence { order } => {
                    if let Some(race) = self.race.as_mut() {
                        for l in lanes(exec) {
                            race.fence(w.index as usize * 32 + l);
                        }
                    }
                    if exec != 0 {
                        std::sync::atomic::fence(match order {
                            Order::Acquire => std::sync::atomic::Ordering::Acquire,
                            Order::Release => std::sync::atomic::Ordering::Release,
                            Order::AcqRel => std::sync::atomic::Ordering::AcqRel,
                            _ => std::sync::atomic::Ordering::SeqCst,
                        });
                    }
                    pc += 1;
                }
                Op::Yield => {
                    pc += 1;
                    w.writeback(mask, pc, depth);
                    *budget = 0;
                    return Ok(());
                }
                Op::Nop => pc += 1,
                Op::Unsupported { what } => {
                    return Err(Error::Unsupported { instruction: what.clone(), line: inst.line as usize });
                }
            }
            if next_key != u64::MAX {
                if sticky > 0 {
                    sticky -= 1;
                } else if key(depth, pc) >= next_key {
                    w.writeback(mask, pc, depth);
                    return Ok(());
                }
                w.since_rotate += 1;
                if w.since_rotate >= ROTATE_AFTER {
                    w.since_rotate = 0;
                    w.rotate = true;
                    w.last_key = key(depth, pc);
                    w.writeback(mask, pc, depth);
                    return Ok(());
                }
            }
            if *budget <= 0 {
                w.writeback(mask, pc, depth);
                return Ok(());
            }
        }
    }

}

/// The smallest key among runnable lanes outside `mask`.
fn recompute_next(w: &Warp, mask: u32) -> u64 {
    lanes(w.runnable & !mask).map(|l| key(w.depth[l], w.pc[l])).min().unwrap_or(u64::MAX)
}
