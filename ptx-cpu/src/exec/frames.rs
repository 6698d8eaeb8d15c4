//! Calls and returns: per-lane frames of `.local` and `.param` memory, arguments copied in,
//! return values copied out; and exit.

use super::block::Block;
use super::warp::{lanes, Frame, Warp, EXITED};
use crate::program::*;
use crate::error::{Error, FaultKind};

impl<'l> Block<'l> {
    pub(super) fn exit_lanes(&mut self, w: &mut Warp, exec: u32) {
        for l in lanes(exec) {
            w.state[l] = EXITED;
        }
        w.live &= !exec;
        w.runnable &= !exec;
        self.live -= exec.count_ones();
    }

    pub(super) fn push_frame(&mut self, w: &mut Warp, l: usize, callee: u32, ret_pc: u32, args: &[u32], line: u32) -> Result<(), Error> {
        let f = &self.l.prog.funcs[callee as usize];
        let limit = self.l.stack_bytes;
        let pbase = w.param_sp[l].div_ceil(16) * 16;
        let psp = pbase as u64 + f.param_frame as u64;
        let lbase = w.local_sp[l].div_ceil(f.local_align.max(1)) * f.local_align.max(1);
        let lsp = lbase as u64 + f.local_frame as u64;
        if psp > limit as u64 || lsp > limit as u64 || w.frames[l].len() >= 0xfff0 {
            return Err(self.fault_at(
                w,
                l,
                FaultKind::OutOfBounds,
                None,
                Some(line as usize),
                format!(
                    "stack overflow calling `{}` at depth {}: the thread needs more than its {limit} bytes of local memory (CpuDevice::set_stack_size)",
                    f.name,
                    w.frames[l].len() + 1
                ),
            ));
        }
        w.frames[l].push(Frame {
            ret_pc,
            func: callee,
            local_base: w.local_base[l],
            local_sp: w.local_sp[l],
            param_base: w.param_base[l],
            param_sp: w.param_sp[l],
        });
        let p = &mut w.params[l];
        if p.len() < psp as usize {
            p.resize(psp as usize, 0);
        }
        let caller = w.param_base[l] as usize;
        for (slot, &from) in f.params.iter().zip(args) {
            let src = caller + from as usize;
            p.copy_within(src..src + slot.size as usize, pbase as usize + slot.offset as usize);
        }
        let loc = &mut w.local[l];
        if loc.len() < lsp as usize {
            loc.resize(lsp as usize, 0);
        }
        w.param_base[l] = pbase;
        w.param_sp[l] = psp as u32;
        w.local_base[l] = lbase;
        w.local_sp[l] = lsp as u32;
        Ok(())
    }

    pub(super) fn pop_frame(&mut self, w: &mut Warp, l: usize) {
        let Some(fr) = w.frames[l].pop() else { return };
        let prog = self.l.prog;
        let f = &prog.funcs[fr.func as usize];
        if let Some(Inst { op: Op::Call { rets, .. }, .. }) = prog.insts.get(fr.ret_pc as usize - 1) {
            let p = &mut w.params[l];
            for (slot, &to) in f.rets.iter().zip(rets.iter()) {
                let src = w.param_base[l] as usize + slot.offset as usize;
                p.copy_within(src..src + slot.size as usize, fr.param_base as usize + to as usize);
            }
        }
        w.local_base[l] = fr.local_base;
        w.local_sp[l] = fr.local_sp;
        w.param_base[l] = fr.param_base;
        w.param_sp[l] = fr.param_sp;
        w.pc[l] = fr.ret_pc;
        w.depth[l] -= 1;
    }
}
