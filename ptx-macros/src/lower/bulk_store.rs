//! The sm_90 bulk copy from shared to global memory and its groups
//! (`memcpy_async_bulk_store`, `bulk_commit`, `bulk_wait_prior`, `fence_proxy_async`), as
//! nvcc lowers CUDA's `cuda::ptx::cp_async_bulk(space_global, space_shared, ...)`,
//! `cp_async_bulk_commit_group`, `cp_async_bulk_wait_group` and `fence_proxy_async`:
//! `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], bytes`,
//! `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group n`,
//! `fence.proxy.async.shared::cta`. The target check is `async_op`'s.

use super::value::Val;
use super::Lowerer;
use crate::front::async_copy::AsyncOp;
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Mode, Opcode, RegClass, Type};
use proc_macro2::Span;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub(super) fn bulk_store_op(&mut self, op: AsyncOp, vals: &[Val], tys: &[Ty], span: Span) -> Val {
        match op {
            AsyncOp::BulkStore => {
                let size = match tys.get(1) {
                    Some(Ty::Ptr { pointee, .. }) => self.ty(pointee).layout().map_or(1, |l| l.size as i64),
                    _ => 1,
                };
                let Some(dst) = self.global_addr(&vals[0].field(0), span) else { return Val::Unit };
                let Some(src) = self.shared_addr(&vals[1], span) else { return Val::Unit };
                let len = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![vals[0].field(1).arg()]);
                let bytes = if size == 1 {
                    len
                } else if (size as u64).is_power_of_two() {
                    self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(len), Arg::imm(size.trailing_zeros() as i64)])
                } else {
                    self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32), RegClass::B32, vec![Arg::Reg(len), Arg::imm(size)])
                };
                self.b.op0(Opcode::CpAsyncBulkStore, vec![Arg::mem(dst, 0), Arg::mem(src, 0), Arg::Reg(bytes)]);
            }
            AsyncOp::BulkCommit => self.b.op0(Opcode::CpAsyncBulkCommit, vec![]),
            AsyncOp::BulkWait(n) => self.b.op0(Opcode::CpAsyncBulkWait, vec![Arg::imm(n as i64)]),
            _ => self.b.op0(Opcode::FenceProxyAsync, vec![]),
        }
        Val::Unit
    }
}
