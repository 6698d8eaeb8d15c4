//! Tensor cores (`front::mma`): `mma.sync`, `ldmatrix` and `stmatrix` with the operands nvcc
//! writes for the same instructions in CUDA C's inline asm (CUTLASS's `SM80_16x8x16_F32F16F16F32_TN`,
//! `SM75_U32x4_LDSM_N`, `SM90_U32x4_STSM_N`): vectors of `.b32` (A, B, ldmatrix's and
//! stmatrix's registers) and `.f32` / `.s32` registers (C, D), and the row's 32-bit
//! shared-memory address. A fragment is a struct whose one field, `regs`, is the registers.
//! Each needs a target — sm_80 for `mma.sync`, sm_75 for `ldmatrix`, sm_90 for `stmatrix` —
//! and below it the call is one error naming the `#[kernel(sm = ..)]` to write.

use super::value::{Space, Val};
use super::Lowerer;
use crate::front::mma::{Elem, MmaOp, Shape};
use crate::ir::{Arg, Inst, MmaIn, Opcode, RegClass, Type};
use proc_macro2::Span;

fn mma_in(e: Elem) -> MmaIn {
    match e {
        Elem::F16 => MmaIn::F16,
        Elem::Bf16 => MmaIn::Bf16,
        Elem::Tf32 => MmaIn::Tf32,
        Elem::S8 => MmaIn::S8,
        Elem::U8 => MmaIn::U8,
        Elem::F32 | Elem::S32 => MmaIn::F16,
    }
}

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn mma_op(&mut self, op: MmaOp, vals: &[Val], span: Span) -> Val {
        let (what, sm) = op.requirement();
        if self.cx.target.sm < sm {
            // One error per function: the attribute fixes every call.
            if self.target_reported {
                self.stmt_failed = true;
                return Val::Unit;
            }
            self.target_reported = true;
            let have = self.cx.target.sm;
            return self.error(span, format!("{what} sm_{sm} or newer, and this function compiles for sm_{have}: write `#[kernel(sm = {sm})]` (or `#[device_fn(sm = {sm})]`)"));
        }
        match op {
            MmaOp::Mma { shape, a, b, acc, satfinite } => {
                self.need_isa(7, 0);
                let k = match shape {
                    Shape::K16 => 16,
                    Shape::K8 => 8,
                    Shape::K32 => 32,
                };
                let (cc, ct) = if acc == Elem::S32 { (RegClass::B32, Type::S32) } else { (RegClass::F32, Type::F32) };
                let ra = self.frag_regs(&vals[0], 4, RegClass::B32, Type::B32);
                let rb = self.frag_regs(&vals[1], 2, RegClass::B32, Type::B32);
                let rc = self.frag_regs(&vals[2], 4, cc, ct);
                let d: Vec<Arg> = (0..4).map(|_| Arg::Reg(self.reg(cc))).collect();
                let opcode = Opcode::Mma { k, a: mma_in(a), b: mma_in(b), satfinite };
                self.b.push(Inst::op(opcode, 1, vec![Arg::Vec(d.clone()), Arg::Vec(ra), Arg::Vec(rb), Arg::Vec(rc)]));
                Val::Agg(vec![Val::Agg(d.into_iter().map(Val::S).collect())])
            }
            MmaOp::Ldmatrix { n, trans } => {
                self.need_isa(6, 5);
                let Some(p) = self.row_addr(&vals[0], span) else { return Val::Unit };
                let d: Vec<Arg> = (0..n).map(|_| Arg::Reg(self.reg(RegClass::B32))).collect();
                self.b.push(Inst::op(Opcode::Ldmatrix { n, trans }, 1, vec![Arg::Vec(d.clone()), Arg::mem(p, 0)]));
                Val::Agg(d.into_iter().map(Val::S).collect())
            }
            MmaOp::Stmatrix { n, trans } => {
                self.need_isa(7, 8);
                let Some(p) = self.row_addr(&vals[0], span) else { return Val::Unit };
                let r = self.regs_of(&vals[1], n as usize, RegClass::B32, Type::B32);
                self.b.op0(Opcode::Stmatrix { n, trans }, vec![Arg::mem(p, 0), Arg::Vec(r)]);
                Val::Unit
            }
        }
    }

    /// A fragment's `regs` (its one field), each in a register.
    fn frag_regs(&mut self, v: &Val, n: usize, c: RegClass, ty: Type) -> Vec<Arg> {
        let regs = v.field(0);
        self.regs_of(&regs, n, c, ty)
    }

    /// The `n` elements of an array value, each in a register (an immediate is moved to one:
    /// the instructions' vector operands are registers).
    fn regs_of(&mut self, v: &Val, n: usize, c: RegClass, ty: Type) -> Vec<Arg> {
        (0..n).map(|i| self.reg_arg(&v.field(i), c, ty)).collect()
    }

    /// The row's 32-bit shared-memory address (`cvta.to.shared` of a generic pointer).
    fn row_addr(&mut self, v: &Val, span: Span) -> Option<Arg> {
        match v {
            Val::Ptr(_, Space::Shared | Space::Generic) => self.shared_addr(v, span),
            Val::Ptr(..) => {
                self.error(span, "`ldmatrix` and `stmatrix` address shared memory: pass a pointer into a `shared_array` or `dynamic_shared` (`tile.as_ptr().add(i)`)");
                None
            }
            _ => None,
        }
    }
}
