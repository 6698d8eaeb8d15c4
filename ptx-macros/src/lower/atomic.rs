//! Atomics and fences (PTX Interoperability, chapter 4).
//!
//! Every operation lowers through `ptx_abi::atomic::lower(access, order)`, the guide's mapping
//! tables in their recommended form: a SeqCst load is `fence.sc.<scope>; ld.acquire.<scope>`,
//! an AcqRel read-modify-write `atom.acq_rel.<scope>`, and so on. An instruction is spelled
//! `atom.<sem>.<scope>.<space>.<op>.<type>`, with the state space when the pointer's is known
//! (`.global` for kernel parameters, `.shared` for shared memory) and none for generic
//! addresses. Fences `fence.acquire`/`fence.release` exist from sm_90 with PTX 8.6: on such a
//! target they are emitted and raise the module's `.version`; below it they are strengthened
//! to `fence.acq_rel` (`ptx_abi::atomic::fence_sem`).
//!
//! PTX has `atom` for 32- and 64-bit values. An 8- or 16-bit read-modify-write is a
//! compare-and-swap loop on the aligned 32-bit word that contains it, as compilers expand
//! sub-word atomics: read the word, compute the new narrow value, `atom.cas.b32` the word with
//! it inserted, and retry until no other thread changed the word in between. A `fetch_sub` is
//! an `atom.add` of the negated operand (PTX has no `atom.sub`), as nvcc emits it.

use super::value::{class_of, int_type, mem_type, Space, Val};
use super::Lowerer;
use crate::front::intrinsic::{AtomicKind, AtomicOp};
use crate::front::ty::Ty;
use crate::ir::{Arg, Arith, AtomOp, Cmp, Imm, Mem, Mode, Opcode, Order, RegClass, StateSpace, Term, Type};
use proc_macro2::Span;
use ptx_abi::atomic::{fence_sem, lower, Access, Scope, Sem, Step};
use ptx_abi::target::Isa;
use ptx_abi::Scalar;

/// The ISA that has `fence.acquire` / `fence.release` (on sm_90 and later).
const ONE_SIDED_FENCES: Isa = Isa::new(8, 6);

impl<'a, 'e> Lowerer<'a, 'e> {
    /// An atomic operation on `vals[0]` (the address) with operands `vals[1..]`.
    pub fn atomic(&mut self, op: &AtomicOp, vals: &[Val], tys: &[Ty], span: Span) -> Val {
        self.need_isa(ptx_abi::atomic::ATOMICS_ISA.major, ptx_abi::atomic::ATOMICS_ISA.minor);
        let access = match op.kind {
            AtomicKind::Fence => Access::Fence,
            AtomicKind::Load => Access::Load,
            AtomicKind::Store => Access::Store,
            _ => Access::Rmw,
        };
        let Ok(steps) = lower(access, op.order) else {
            return self.error(span, "internal: a forbidden memory order reached the lowering");
        };
        if op.kind == AtomicKind::Fence {
            for s in steps {
                if let Step::Fence(sem) = s {
                    self.fence(*sem, op.scope);
                }
            }
            return Val::Unit;
        }
        let Some(Val::Ptr(addr, space)) = vals.first().cloned() else { return Val::Unit };
        let s = match tys.first() {
            Some(Ty::Ptr { pointee, .. }) => match self.ty(pointee) {
                Ty::Scalar(s) => s,
                t => return self.error(span, format!("internal: atomic on `{t}`")),
            },
            _ => return Val::Unit,
        };
        let space = match space {
            Space::Global { .. } => StateSpace::Global,
            Space::Shared => StateSpace::Shared,
            Space::Generic => StateSpace::Generic,
            Space::Local | Space::Param => {
                return self.error(span, "atomics on a local variable's memory are not supported: it belongs to one thread, so read and write it directly");
            }
            Space::Const => return self.error(span, "a `const` or `static` table is read-only on the device: atomics need a buffer (`&mut [T]`) passed in"),
        };
        let mut result = Val::Unit;
        for step in steps {
            match *step {
                Step::Fence(sem) => self.fence(sem, op.scope),
                Step::Access(sem) => {
                    let m = Mem { order: Order::Atomic(sem, op.scope), space, nc: false, lanes: 1, ty: mem_type(s) };
                    result = match op.kind {
                        AtomicKind::Load => {
                            let d = self.b.op1(Opcode::Ld(m), class_of(s), vec![Arg::mem(addr.clone(), 0)]);
                            Val::S(Arg::Reg(d))
                        }
                        AtomicKind::Store => {
                            self.b.op0(Opcode::St(m), vec![Arg::mem(addr.clone(), 0), vals[1].arg()]);
                            Val::Unit
                        }
                        _ if s.size() < 4 => self.subword_rmw(op, s, &addr, space, sem, &vals[1..]),
                        _ => self.rmw(op.kind, s, (sem, op.scope, space), &addr, &vals[1..]),
                    };
                }
            }
        }
        result
    }

    /// `fence.<sem>.<scope>`, strengthened where the target lacks the one-sided fences.
    fn fence(&mut self, sem: Sem, scope: Scope) {
        let sem = fence_sem(sem, self.cx.target, ONE_SIDED_FENCES);
        if matches!(sem, Sem::Acquire | Sem::Release) {
            self.need_isa(ONE_SIDED_FENCES.major, ONE_SIDED_FENCES.minor);
        }
        self.b.op0(Opcode::Fence(sem, scope), vec![]);
    }

    /// A 32- or 64-bit `atom` with `sem`, at `scope`, in `space`.
    fn rmw(&mut self, kind: AtomicKind, s: Scalar, (sem, scope, space): (Sem, Scope, StateSpace), addr: &Arg, operands: &[Val]) -> Val {
        let bits = if s.size() == 8 { Type::B64 } else { Type::B32 };
        let c = class_of(s);
        let (op, ty) = match kind {
            AtomicKind::Swap => (AtomOp::Exch, bits),
            AtomicKind::CompareExchange => (AtomOp::Cas, bits),
            AtomicKind::And => (AtomOp::And, bits),
            AtomicKind::Or => (AtomOp::Or, bits),
            AtomicKind::Xor => (AtomOp::Xor, bits),
            AtomicKind::Min => (AtomOp::Min, int_type(s)),
            AtomicKind::Max => (AtomOp::Max, int_type(s)),
            AtomicKind::Inc => (AtomOp::Inc, Type::U32),
            AtomicKind::Dec => (AtomOp::Dec, Type::U32),
            // `atom.add` has `.u32 .s32 .u64 .f32 .f64`: a 64-bit add is `.u64` for either sign.
            AtomicKind::Add | AtomicKind::Sub => (
                AtomOp::Add,
                match s {
                    Scalar::I64 | Scalar::U64 => Type::U64,
                    s => int_type(s),
                },
            ),
            AtomicKind::Load | AtomicKind::Store | AtomicKind::Fence => return Val::Unit,
        };
        let mut args = vec![Arg::mem(addr.clone(), 0)];
        for v in operands {
            let a = if kind == AtomicKind::Sub { self.negate(v, s) } else { v.arg() };
            // Float immediates go through a register (the `.b32` forms take bit patterns).
            let a = match a {
                Arg::Imm(Imm::F32(_) | Imm::F64(_)) => {
                    let r = self.reg(c);
                    self.mov(r, a);
                    Arg::Reg(r)
                }
                a => a,
            };
            args.push(a);
        }
        let d = self.b.op1(Opcode::Atom { sem, scope, space, op, ty }, c, args);
        Val::S(Arg::Reg(d))
    }

    /// `-v` for an `atom.add` that subtracts: two's complement for integers (wrapping, as
    /// `fetch_sub` wraps), the sign flipped for floats (`a - b` is `a + -b` exactly).
    fn negate(&mut self, v: &Val, s: Scalar) -> Arg {
        match v.arg() {
            Arg::Imm(Imm::Int(i)) => super::value::int_imm((i as i128).wrapping_neg() as u128, s),
            Arg::Imm(Imm::F32(b)) => Arg::Imm(Imm::F32(b ^ 0x8000_0000)),
            Arg::Imm(Imm::F64(b)) => Arg::Imm(Imm::F64(b ^ (1 << 63))),
            a => {
                let t = match s {
                    Scalar::F32 => Type::F32,
                    Scalar::F64 => Type::F64,
                    s if s.size() == 8 => Type::S64,
                    _ => Type::S32,
                };
                Arg::Reg(self.b.op1(Opcode::arith(Arith::Neg, t), class_of(s), vec![a]))
            }
        }
    }

    /// An 8- or 16-bit read-modify-write as a CAS loop on the aligned 32-bit word holding it:
    ///
    /// ```text
    ///     guess = ld.relaxed.<scope> [word]
    /// loop:
    ///     old   = the narrow value in guess (at bit `shift`)
    ///     new   = op(old, operand)
    ///     prev  = atom.<sem>.<scope>.cas.b32 [word], guess, (guess & ~mask) | new << shift
    ///     guess = prev; repeat while prev != the guess it was compared with
    /// ```
    ///
    /// A compare-exchange whose comparison fails writes the word back unchanged, so every path
    /// is one `atom` with the operation's semantics.
    fn subword_rmw(&mut self, op: &AtomicOp, s: Scalar, addr: &Arg, space: StateSpace, sem: Sem, operands: &[Val]) -> Val {
        let shared = space == StateSpace::Shared;
        let width = s.size() as i64 * 8;
        // The word's address and the value's bit offset in it (little-endian).
        let (word, low) = if shared {
            let w = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![addr.clone(), Arg::imm(-4)]);
            (w, addr.clone())
        } else {
            let w = self.b.op1(Opcode::arith(Arith::And, Type::B64), RegClass::B64, vec![addr.clone(), Arg::imm(-4)]);
            let lo = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U64), RegClass::B32, vec![addr.clone()]);
            (w, Arg::Reg(lo))
        };
        let byte = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![low, Arg::imm(3)]);
        let shift = self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(byte), Arg::imm(3)]);
        let ones = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![Arg::imm((1i64 << width) - 1)]);
        let mask = self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(ones), Arg::Reg(shift)]);
        let keep = self.b.op1(Opcode::arith(Arith::Not, Type::B32), RegClass::B32, vec![Arg::Reg(mask)]);
        let relaxed = Mem { order: Order::Atomic(Sem::Relaxed, op.scope), space, nc: false, lanes: 1, ty: Type::U32 };
        let guess = self.reg(RegClass::B32);
        self.b.op_into(Opcode::Ld(relaxed), guess, vec![Arg::mem(Arg::Reg(word), 0)]);
        let body = self.b.new_block();
        self.b.jump_to(body);
        // The narrow value, normalized in a 16-bit register as every 8/16-bit value is.
        let at = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(guess), Arg::Reg(shift)]);
        let old16 = self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(at)]);
        let old = match s {
            Scalar::I8 | Scalar::U8 => self.normalize(old16, s),
            _ => old16,
        };
        let t16 = int_type(s);
        let v = operands.first().map(|v| v.arg()).unwrap_or(Arg::imm(0));
        let new = match op.kind {
            AtomicKind::Swap => {
                let r = self.reg(RegClass::B16);
                self.mov(r, v);
                r
            }
            AtomicKind::Add => self.b.op1(Opcode::arith(Arith::Add, Type::S16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::Sub => self.b.op1(Opcode::arith(Arith::Sub, Type::S16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::And => self.b.op1(Opcode::arith(Arith::And, Type::B16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::Or => self.b.op1(Opcode::arith(Arith::Or, Type::B16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::Xor => self.b.op1(Opcode::arith(Arith::Xor, Type::B16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::Min => self.b.op1(Opcode::arith(Arith::Min, t16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::Max => self.b.op1(Opcode::arith(Arith::Max, t16), RegClass::B16, vec![Arg::Reg(old), v]),
            AtomicKind::CompareExchange => {
                let new = operands.get(1).map(|v| v.arg()).unwrap_or(Arg::imm(0));
                let eq = self.b.op1(Opcode::Setp(Cmp::Eq, t16), RegClass::Pred, vec![Arg::Reg(old), v]);
                self.b.op1(Opcode::Selp(Type::B16), RegClass::B16, vec![new, Arg::Reg(old), Arg::Reg(eq)])
            }
            AtomicKind::Inc | AtomicKind::Dec | AtomicKind::Load | AtomicKind::Store | AtomicKind::Fence => old,
        };
        let new32 = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![Arg::Reg(new)]);
        let placed = self.b.op1(Opcode::arith(Arith::Shl, Type::B32), RegClass::B32, vec![Arg::Reg(new32), Arg::Reg(shift)]);
        let inserted = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(placed), Arg::Reg(mask)]);
        let rest = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(guess), Arg::Reg(keep)]);
        let desired = self.b.op1(Opcode::arith(Arith::Or, Type::B32), RegClass::B32, vec![Arg::Reg(rest), Arg::Reg(inserted)]);
        let cas = Opcode::Atom { sem, scope: op.scope, space, op: AtomOp::Cas, ty: Type::B32 };
        let prev = self.b.op1(cas, RegClass::B32, vec![Arg::mem(Arg::Reg(word), 0), Arg::Reg(guess), Arg::Reg(desired)]);
        let changed = self.b.op1(Opcode::Setp(Cmp::Ne, Type::B32), RegClass::Pred, vec![Arg::Reg(prev), Arg::Reg(guess)]);
        self.mov(guess, Arg::Reg(prev));
        let done = self.b.new_block();
        self.b.terminate(Term::Branch { pred: changed, negate: false, if_true: body, if_false: done });
        self.b.switch_to(done);
        Val::S(Arg::Reg(old))
    }
}
