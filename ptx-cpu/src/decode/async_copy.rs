//! Asynchronous copies (`cp.async`, `cp.async.bulk`) and mbarriers (`mbarrier.*`), executed
//! by `exec/async_copy.rs`.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn async_copy(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        match m.base {
            "cp" => self.cp(i, m),
            "mbarrier" => self.mbarrier(i, m),
            _ => unsupported(&i.opcode),
        }
    }

    fn cp(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        if !m.take("async") {
            return unsupported(&i.opcode);
        }
        let a = &i.args;
        if m.take("bulk") {
            if m.take("commit_group") {
                self.args(i, 0)?;
                return Ok(Op::BulkCommit);
            }
            if m.take("wait_group") {
                // `.read` waits only until the sources may be reused; waiting for the whole
                // copy is one order the ISA allows.
                m.take("read");
                self.args(i, 1)?;
                let Operand::Int(n) = a[0] else { return self.error("cp.async.bulk.wait_group: the group count is a constant") };
                return Ok(Op::BulkWait { n: n.clamp(0, u32::MAX as i128 - 1) as u32 });
            }
            if m.take("bulk_group") {
                // Shared to global memory, completing with the thread's bulk group.
                if !m.take("global") || !m.take("shared::cta") {
                    return unsupported(format!("{} (the CPU backend runs the shared-to-global bulk_group copy)", i.opcode));
                }
                m.take_any(&["L2::cache_hint"]);
                if a.len() != 3 {
                    return self.error("cp.async.bulk.global.shared::cta.bulk_group: expected a destination, a source and a size");
                }
                let (dst, _) = self.addr(&a[0])?;
                let (src, _) = self.addr(&a[1])?;
                let size = self.src(&a[2], T::U32)?;
                return Ok(Op::BulkStore { dst, src, size });
            }
            // Global to shared memory, completing on an mbarrier (sm_90).
            if !(m.take("shared::cluster") || m.take("shared::cta")) || !m.take("global") || !m.take("mbarrier::complete_tx::bytes") {
                return unsupported(format!("{} (the CPU backend runs the global-to-shared bulk copy only)", i.opcode));
            }
            m.take_any(&["L2::cache_hint"]);
            if a.len() != 4 {
                return self.error("cp.async.bulk: expected a destination, a source, a size and an mbarrier");
            }
            let (dst, _) = self.addr(&a[0])?;
            let (src, _) = self.addr(&a[1])?;
            let size = self.src(&a[2], T::U32)?;
            let (bar, _) = self.addr(&a[3])?;
            return Ok(Op::CpAsyncBulk { dst, src, size, bar });
        }
        if m.take("commit_group") {
            self.args(i, 0)?;
            return Ok(Op::CpAsyncCommit);
        }
        if m.take("wait_all") {
            self.args(i, 0)?;
            return Ok(Op::CpAsyncWait { n: u32::MAX });
        }
        if m.take("wait_group") {
            self.args(i, 1)?;
            let Operand::Int(n) = a[0] else { return self.error("cp.async.wait_group: the group count is a constant") };
            return Ok(Op::CpAsyncWait { n: n.clamp(0, u32::MAX as i128 - 1) as u32 });
        }
        m.take_any(&["ca", "cg"]);
        if !m.take("shared") && !m.take("shared::cta") || !m.take("global") {
            return unsupported(format!("{} (cp.async copies global to shared memory)", i.opcode));
        }
        m.take_any(&["L2::64B", "L2::128B", "L2::256B"]);
        m.take("L2::cache_hint");
        if !(3..=5).contains(&a.len()) {
            return self.error("cp.async: expected a destination, a source, a size and an optional source size");
        }
        let (dst, _) = self.addr(&a[0])?;
        let (src, _) = self.addr(&a[1])?;
        let Operand::Int(size @ (4 | 8 | 16)) = a[2] else { return self.error("cp.async: the size is 4, 8 or 16") };
        let src_size = if a.len() >= 4 { self.src(&a[3], T::U32)? } else { Src::Imm(size as u64) };
        Ok(Op::CpAsync { size: size as u8, dst, src, src_size })
    }

    fn mbarrier(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let op = match m.take_any(&["init", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait", "try_wait", "inval", "pending_count"]) {
            Some("init") => MbarOp::Init,
            Some(o @ ("arrive" | "arrive_drop")) => {
                let drop = o == "arrive_drop";
                if m.take("expect_tx") {
                    MbarOp::Arrive { drop, expect_tx: true }
                } else {
                    m.take("noComplete");
                    MbarOp::Arrive { drop, expect_tx: false }
                }
            }
            Some("expect_tx") => MbarOp::ExpectTx,
            Some("complete_tx") => MbarOp::CompleteTx,
            Some("test_wait") => MbarOp::Wait { parity: m.take("parity") },
            Some("try_wait") => MbarOp::Wait { parity: m.take("parity") },
            Some("inval") => MbarOp::Inval,
            Some("pending_count") => MbarOp::PendingCount,
            _ => return unsupported(&i.opcode),
        };
        m.order(Order::Relaxed);
        let space = if m.take_any(&["shared", "shared::cta", "shared::cluster"]).is_some() { MemSpace::Shared } else { MemSpace::Generic };
        m.take("b64");
        let a = &i.args;
        let (d, rest) = match op {
            MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Inval => (NOREG, &a[..]),
            _ => {
                if a.is_empty() {
                    return self.error(format!("`{}`: expected a destination", i.opcode));
                }
                (self.dst(&a[0])?, &a[1..])
            }
        };
        if op == MbarOp::PendingCount {
            if rest.len() != 1 {
                return self.error("mbarrier.pending_count: expected a destination and a state");
            }
            return Ok(Op::Mbar { op, d, addr: Addr { base: Src::None, offset: 0 }, b: self.src(&rest[0], T::B64)?, space });
        }
        let Some(first) = rest.first() else { return self.error(format!("`{}`: expected the mbarrier's address", i.opcode)) };
        let (addr, _) = self.addr(first)?;
        let want = match op {
            MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Wait { .. } => 2,
            MbarOp::Arrive { expect_tx: true, .. } => 2,
            MbarOp::Arrive { .. } => 1,
            _ => 1,
        };
        // `arrive` may also take a count; `try_wait` a time limit (ignored: it only bounds
        // how long the instruction may suspend).
        let extra = match op {
            MbarOp::Arrive { expect_tx: false, .. } | MbarOp::Wait { .. } => 1,
            _ => 0,
        };
        if rest.len() < want || rest.len() > want + extra {
            return self.error(format!("`{}`: wrong number of operands", i.opcode));
        }
        let t = if matches!(op, MbarOp::Wait { parity: false }) { T::B64 } else { T::U32 };
        let b = if want == 2 {
            self.src(&rest[1], t)?
        } else if rest.len() == 2 {
            // `arrive`'s count.
            self.src(&rest[1], T::U32)?
        } else {
            Src::None
        };
        Ok(Op::Mbar { op, d, addr, b, space })
    }
}
