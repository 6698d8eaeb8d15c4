//! Asynchronous copies and mbarriers (`front::async_copy`): `cp.async`, `cp.async.bulk` and
//! `mbarrier`, with the operands nvcc writes for `__pipeline_memcpy_async`, `__mbarrier_*` and
//! `cuda::ptx::cp_async_bulk` / `mbarrier_*`. Each needs a target: sm_80 for `cp.async` and
//! the first mbarrier operations, sm_90 for the transaction-count ones and the bulk copy;
//! below it the call is one error naming the `#[kernel(sm = ..)]` to write.

use super::value::{Space, Val};
use super::Lowerer;
use crate::front::async_copy::{AsyncOp, MbarOp};
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, Mbar, Mode, Opcode, RegClass, StateSpace, Type};
use proc_macro2::Span;

fn mbar(m: MbarOp) -> Mbar {
    match m {
        MbarOp::Init => Mbar::Init,
        MbarOp::Arrive => Mbar::Arrive,
        MbarOp::ArriveDrop => Mbar::ArriveDrop,
        MbarOp::TestWait => Mbar::TestWait,
        MbarOp::TryWait => Mbar::TryWait,
        MbarOp::TryWaitParity => Mbar::TryWaitParity,
        MbarOp::Inval => Mbar::Inval,
        MbarOp::ExpectTx => Mbar::ExpectTx,
        MbarOp::ArriveExpectTx => Mbar::ArriveExpectTx,
    }
}

/// What an operation is called in messages, and the target it needs.
fn describe(op: AsyncOp) -> (&'static str, u32) {
    match op {
        AsyncOp::Copy { .. } => ("asynchronous copies (`cp.async`) need", 80),
        AsyncOp::Commit | AsyncOp::Wait(_) | AsyncOp::WaitAll => ("`cp.async` groups need", 80),
        AsyncOp::Mbar(m) if m.needs_sm90() => ("mbarrier transaction counts and `try_wait` need", 90),
        AsyncOp::Mbar(_) => ("mbarriers need", 80),
        AsyncOp::Bulk => ("bulk copies (`cp.async.bulk`) need", 90),
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn async_op(&mut self, op: AsyncOp, vals: &[Val], tys: &[Ty], span: Span) -> Val {
        let (what, sm) = describe(op);
        if self.cx.target.sm < sm {
            // One error per function: the attribute fixes every call.
            if self.target_reported {
                // What follows from the unlowered call is not reported either (`cascade`).
                self.stmt_failed = true;
                return Val::Unit;
            }
            self.target_reported = true;
            let have = self.cx.target.sm;
            return self.error(span, format!("{what} sm_{sm} or newer, and this function compiles for sm_{have}: write `#[kernel(sm = {sm})]` (or `#[device_fn(sm = {sm})]`)"));
        }
        if sm >= 90 {
            self.need_isa(8, 0);
        } else {
            self.need_isa(7, 0);
        }
        match op {
            AsyncOp::Copy { ca, zfill } => {
                let size = match tys.first() {
                    Some(Ty::Ptr { pointee, .. }) => self.ty(pointee).layout().map_or(0, |l| l.size),
                    _ => 0,
                };
                if !matches!(size, 4 | 8 | 16) {
                    return self.error(span, format!("`cp.async` copies 4, 8 or 16 bytes, and this element has {size}: copy a `u32`, `u64`, `[f32; 4]`, ... (or several elements one by one)"));
                }
                let Some(dst) = self.shared_addr(&vals[0], span) else { return Val::Unit };
                let Some(src) = self.global_addr(&vals[1], span) else { return Val::Unit };
                // As `__pipeline_memcpy_async`: `.cg` (around L1) for 16 bytes, which `.cg`
                // only allows.
                let cg = size == 16 && !ca;
                let n = Arg::imm(size as i64);
                let src_size = if zfill { self.reg_arg(&vals[2], RegClass::B32, Type::U32) } else { n.clone() };
                self.b.op0(Opcode::CpAsync { cg }, vec![Arg::mem(dst, 0), Arg::mem(src, 0), n, src_size]);
                Val::Unit
            }
            AsyncOp::Commit => {
                self.b.op0(Opcode::CpAsyncCommit, vec![]);
                Val::Unit
            }
            AsyncOp::Wait(n) => {
                self.b.op0(Opcode::CpAsyncWait, vec![Arg::imm(n as i64)]);
                Val::Unit
            }
            AsyncOp::WaitAll => {
                self.b.op0(Opcode::CpAsyncWaitAll, vec![]);
                Val::Unit
            }
            AsyncOp::Mbar(m) => {
                let Some(bar) = self.shared_addr(&vals[0], span) else { return Val::Unit };
                let bar = Arg::mem(bar, 0);
                let o = Opcode::Mbarrier(mbar(m));
                match m {
                    MbarOp::Init | MbarOp::ExpectTx => {
                        let n = self.reg_arg(&vals[1], RegClass::B32, Type::U32);
                        self.b.op0(o, vec![bar, n]);
                        Val::Unit
                    }
                    MbarOp::Inval => {
                        self.b.op0(o, vec![bar]);
                        Val::Unit
                    }
                    MbarOp::Arrive | MbarOp::ArriveDrop => Val::S(Arg::Reg(self.b.op1(o, RegClass::B64, vec![bar]))),
                    MbarOp::ArriveExpectTx => {
                        let n = self.reg_arg(&vals[1], RegClass::B32, Type::U32);
                        Val::S(Arg::Reg(self.b.op1(o, RegClass::B64, vec![bar, n])))
                    }
                    MbarOp::TestWait | MbarOp::TryWait => {
                        let t = self.reg_arg(&vals[1], RegClass::B64, Type::U64);
                        Val::S(Arg::Reg(self.b.op1(o, RegClass::Pred, vec![bar, t])))
                    }
                    MbarOp::TryWaitParity => {
                        let t = self.reg_arg(&vals[1], RegClass::B32, Type::U32);
                        Val::S(Arg::Reg(self.b.op1(o, RegClass::Pred, vec![bar, t])))
                    }
                }
            }
            AsyncOp::Bulk => {
                let size = match tys.first() {
                    Some(Ty::Ptr { pointee, .. }) => self.ty(pointee).layout().map_or(1, |l| l.size as i64),
                    _ => 1,
                };
                let Some(dst) = self.shared_addr(&vals[0], span) else { return Val::Unit };
                let Some(src) = self.global_addr(&vals[1].field(0), span) else { return Val::Unit };
                let Some(bar) = self.shared_addr(&vals[2], span) else { return Val::Unit };
                let len = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![vals[1].field(1).arg()]);
                let bytes = if size == 1 {
                    len
                } else if (size as u64).is_power_of_two() {
                    self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(len), Arg::imm(size.trailing_zeros() as i64)])
                } else {
                    self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::S32), RegClass::B32, vec![Arg::Reg(len), Arg::imm(size)])
                };
                self.b.op0(Opcode::CpAsyncBulk, vec![Arg::mem(dst, 0), Arg::mem(src, 0), Arg::Reg(bytes), Arg::mem(bar, 0)]);
                Val::Unit
            }
        }
    }

    /// `v` in a register (the operands of these instructions are registers).
    pub(super) fn reg_arg(&mut self, v: &Val, c: RegClass, ty: Type) -> Arg {
        match v.arg() {
            a @ Arg::Reg(_) => a,
            a => Arg::Reg(self.b.op1(Opcode::Mov(ty), c, vec![a])),
        }
    }

    /// A pointer's 32-bit shared-memory address (`cvta.to.shared` of a generic one).
    pub(super) fn shared_addr(&mut self, v: &Val, span: Span) -> Option<Arg> {
        match v {
            Val::Ptr(a, Space::Shared) => Some(self.reg_arg(&Val::S(a.clone()), RegClass::B32, Type::U32)),
            Val::Ptr(a, Space::Generic) => {
                let s = self.b.op1(Opcode::Cvta { to: true, space: StateSpace::Shared }, RegClass::B64, vec![a.clone()]);
                Some(Arg::Reg(self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![Arg::Reg(s)])))
            }
            Val::Ptr(..) => {
                self.error(span, "the destination and the barrier of an asynchronous copy are shared memory: an element of a `shared_array` or `dynamic_shared` (`&mut tile[i]`)");
                None
            }
            _ => None,
        }
    }

    /// A pointer's global address (`cvta.to.global` of a generic one).
    fn global_addr(&mut self, v: &Val, span: Span) -> Option<Arg> {
        match v {
            Val::Ptr(a, Space::Global { .. }) => Some(self.reg_arg(&Val::S(a.clone()), RegClass::B64, Type::U64)),
            Val::Ptr(a, Space::Generic) => Some(Arg::Reg(self.b.op1(Opcode::Cvta { to: true, space: StateSpace::Global }, RegClass::B64, vec![a.clone()]))),
            Val::Ptr(..) => {
                self.error(span, "the source of an asynchronous copy is global memory: an element of a kernel's slice or pointer parameter (`&x[i]`)");
                None
            }
            _ => None,
        }
    }
}
