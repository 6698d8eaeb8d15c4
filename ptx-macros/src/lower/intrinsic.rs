//! The device API and the methods of scalars, pointers, slices and shared memory.

use super::value::{class_of, int_type, reg_bits, reg_width, Space, Val};
use super::Lowerer;
use crate::front::hir::{BinOp, Expr};
use crate::front::intrinsic::{FastOp, FloatOp, IntOp, Intrinsic, PtrOp, RedOp, ShflMode, VoteMode};
use crate::front::ty::{Len, Ty};
use crate::ir::{Arg, Arith, BarRed, Cmp, FpClass, Imm, Inst, Mode, Opcode, Reg, RegClass, Shfl, Term, Type, Vote};
use proc_macro2::Span;
use ptx_abi::Scalar;
use quote::quote;

/// The extern declaration every module carries for dynamic shared memory.
pub const DYN_SMEM: &str = "__ptx_dyn_smem";

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn intrinsic(&mut self, op: &Intrinsic, args: &[Expr], ty: &Ty, span: Span) -> Val {
        let mut vals = Vec::new();
        for a in args {
            let v = self.expr(a);
            if matches!(v, Val::Never) {
                return Val::Never;
            }
            vals.push(self.stabilize(v));
        }
        let tys: Vec<Ty> = args.iter().map(|a| self.ty(&a.ty)).collect();
        let ty = self.ty(ty);
        let r = |l: &mut Self, reg: Reg| {
            let _ = l;
            Val::S(Arg::Reg(reg))
        };
        match op {
            Intrinsic::Sreg(name) if *name == "%clock" => {
                let d = self.b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named(*name)]);
                r(self, d)
            }
            Intrinsic::Sreg(name) if block_dim(self.cx.bounds.block, name).is_some() => {
                // `block = (x, y, z)`: the launch is refused with any other shape.
                Val::S(Arg::imm(block_dim(self.cx.bounds.block, name).unwrap_or(1) as i64))
            }
            Intrinsic::Sreg(name) => {
                // Constant for the thread: read once, at the entry.
                let d = match self.sregs.get(name) {
                    Some(d) => *d,
                    None => {
                        let d = self.reg(RegClass::B32);
                        self.b.push_to_entry(Inst::op(Opcode::Mov(Type::U32), 1, vec![Arg::Reg(d), Arg::named(*name)]));
                        self.sregs.insert(name, d);
                        d
                    }
                };
                r(self, d)
            }
            Intrinsic::Sreg64(name) => {
                let d = self.b.op1(Opcode::Mov(Type::U64), RegClass::B64, vec![Arg::named(*name)]);
                r(self, d)
            }
            Intrinsic::SyncThreads => {
                self.b.op0(Opcode::BarSync, vec![Arg::imm(0)]);
                Val::Unit
            }
            Intrinsic::SyncThreadsRed(red) => {
                let p = self.pred(&vals[0]);
                match red {
                    RedOp::Popc => {
                        let d = self.b.op1(Opcode::BarRed(BarRed::Popc, Type::U32), RegClass::B32, vec![Arg::imm(0), Arg::Reg(p)]);
                        r(self, d)
                    }
                    RedOp::And | RedOp::Or => {
                        let o = if *red == RedOp::And { Opcode::BarRed(BarRed::And, Type::Pred) } else { Opcode::BarRed(BarRed::Or, Type::Pred) };
                        let d = self.b.op1(o, RegClass::Pred, vec![Arg::imm(0), Arg::Reg(p)]);
                        r(self, d)
                    }
                }
            }
            Intrinsic::SyncWarp => {
                self.b.op0(Opcode::BarWarpSync, vec![vals[0].arg()]);
                Val::Unit
            }
            Intrinsic::Shfl(mode) => self.shfl(*mode, &vals, &tys[1]),
            Intrinsic::Vote(mode) => {
                let p = self.pred(&vals[1]);
                let (o, c) = match mode {
                    VoteMode::All => (Opcode::Vote(Vote::All, Type::Pred), RegClass::Pred),
                    VoteMode::Any => (Opcode::Vote(Vote::Any, Type::Pred), RegClass::Pred),
                    VoteMode::Uni => (Opcode::Vote(Vote::Uni, Type::Pred), RegClass::Pred),
                    VoteMode::Ballot => (Opcode::Vote(Vote::Ballot, Type::B32), RegClass::B32),
                };
                let d = self.b.op1(o, c, vec![Arg::Reg(p), vals[0].arg()]);
                r(self, d)
            }
            Intrinsic::ActiveMask => {
                self.need_isa(6, 2);
                let d = self.b.op1(Opcode::Activemask, RegClass::B32, vec![]);
                r(self, d)
            }
            Intrinsic::Fence(scope) => {
                self.b.op0(Opcode::Membar(*scope), vec![]);
                Val::Unit
            }
            Intrinsic::Nanosleep => {
                self.b.op0(Opcode::Nanosleep, vec![vals[0].arg()]);
                Val::Unit
            }
            Intrinsic::Trap => {
                self.b.terminate(Term::Trap);
                Val::Never
            }
            Intrinsic::SharedArray { elem, len } => self.shared_array(elem, len, span),
            Intrinsic::DynShared { elem } => {
                let elem = self.ty(elem);
                let size = elem.layout().map(|l| l.size).unwrap_or(1) as i64;
                let a = self.b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named(DYN_SMEM)]);
                let bytes = self.b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named("%dynamic_smem_size")]);
                let n = if (size as u64).is_power_of_two() {
                    self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(bytes), Arg::imm(size.trailing_zeros() as i64)])
                } else {
                    self.b.op1(Opcode::arith(Arith::Div, Type::U32), RegClass::B32, vec![Arg::Reg(bytes), Arg::imm(size)])
                };
                let n64 = self.b.op1(Opcode::Cvt(Mode::None, Type::U64, Type::U32), RegClass::B64, vec![Arg::Reg(n)]);
                Val::Agg(vec![Val::Ptr(Arg::Reg(a), Space::Shared), Val::S(Arg::Reg(n64))])
            }
            Intrinsic::Int(op) => {
                let Ty::Scalar(s) = tys[0] else { return Val::Unit };
                self.int_op(*op, s, &vals, span)
            }
            Intrinsic::Float(op) => {
                let Ty::Scalar(s) = tys[0] else { return Val::Unit };
                if matches!(s, Scalar::F16 | Scalar::BF16) {
                    return self.half_method(*op, s, &vals, span);
                }
                self.float_op(*op, s, &vals)
            }
            Intrinsic::Fast(op) => self.fast(*op, &vals),
            Intrinsic::CudaMath(op) => self.cuda_math(*op, &vals),
            Intrinsic::Half2(op) => {
                let Some(s) = self.half2_of(&tys[0]) else { return Val::Unit };
                self.half2_op(*op, s, &vals)
            }
            Intrinsic::Round { to, mode } => {
                let Ty::Scalar(from) = tys[0] else { return Val::Unit };
                self.round_convert(&vals[0], from, *to, *mode)
            }
            Intrinsic::Ptr(op) => self.ptr_op(*op, &tys[0], &vals, span),
            Intrinsic::Len => match &tys[0] {
                Ty::Slice { .. } | Ty::Shared { len: None, .. } => vals[0].field(1),
                Ty::Array { len, .. } | Ty::Shared { len: Some(len), .. } => {
                    let a = self.len_arg(len);
                    Val::S(a)
                }
                _ => Val::Unit,
            },
            Intrinsic::AsPtr => match &tys[0] {
                Ty::Slice { .. } | Ty::Shared { len: None, .. } => vals[0].field(0),
                Ty::Shared { .. } => vals[0].clone(),
                _ => Val::Unit,
            },
            Intrinsic::Atomic(a) => self.atomic(a, &vals, &tys, span),
            Intrinsic::Malloc { elem } => {
                let size = self.ty(elem).layout().map(|l| l.size as u64).unwrap_or(1);
                self.malloc(&vals[0], size)
            }
            Intrinsic::Free => {
                self.free(&vals[0]);
                Val::Unit
            }
            Intrinsic::Tex { shape, read, elem, lanes } => self.texture_read(*shape, *read, *elem, *lanes, &vals),
            Intrinsic::Surf { shape, elem, lanes, write, boundary } => self.surface_access(*shape, *elem, *lanes, *write, *boundary, &vals),
            Intrinsic::Async(a) => self.async_op(*a, &vals, &tys, span),
            Intrinsic::Mma(m) => self.mma_op(*m, &vals, span),
            Intrinsic::TryInt => self.try_int(&vals[0], &tys[0], &ty, span),
            Intrinsic::Bits => {
                let (Some(from), Some(to)) = (tys[0].scalar(), ty.scalar()) else { return Val::Unit };
                if class_of(from) == class_of(to) {
                    return vals[0].clone();
                }
                let d = self.b.op1(Opcode::Mov(reg_bits(to)), class_of(to), vec![vals[0].arg()]);
                r(self, d)
            }
        }
    }

    fn shared_array(&mut self, elem: &Ty, len: &Len, span: Span) -> Val {
        let elem = self.ty(elem);
        let Some(l) = elem.layout() else { return self.error(span, format!("`{elem}` has no device layout")) };
        let name = self.array_name("__shared_");
        let mut t = crate::text::Text::new();
        t.str(&format!(".shared .align {} .b8 {name}[", l.align.max(4)));
        match len {
            // Whole 32-bit words: an 8- or 16-bit atomic reads and writes the word that holds
            // its element (see `atomic`).
            Len::Known(n) => match n.checked_mul(l.size as u64).filter(|&b| b <= u32::MAX as u64) {
                Some(bytes) => {
                    t.str(&bytes.max(1).next_multiple_of(4).to_string());
                }
                // Shared memory is addressed with 32 bits.
                None => return self.error(span, format!("a shared array of {n} `{elem}` does not fit in a block's shared memory (at most 227 KiB)")),
            },
            Len::Const(c) => {
                let size = l.size as u64;
                t.piece(quote!(::ptx_runtime::__private::Piece::Dec(((#c) as u64 * #size).next_multiple_of(4))));
            }
        }
        t.str("];");
        self.b.decl(t);
        let a = self.b.op1(Opcode::Mov(Type::U32), RegClass::B32, vec![Arg::named(name.clone())]);
        self.debug_array(a, name);
        Val::Ptr(Arg::Reg(a), Space::Shared)
    }

    /// `shfl.sync`: 32-bit values directly, 64-bit values as two halves, narrower ones widened.
    fn shfl(&mut self, mode: ShflMode, vals: &[Val], ty: &Ty) -> Val {
        let m = match mode {
            ShflMode::Idx => Shfl::Idx,
            ShflMode::Up => Shfl::Up,
            ShflMode::Down => Shfl::Down,
            ShflMode::Bfly => Shfl::Bfly,
        };
        let c = if mode == ShflMode::Up { 0 } else { 31 };
        let (mask, lane) = (vals[0].arg(), vals[2].arg());
        let one = |l: &mut Self, v: Arg| -> Reg {
            l.b.op1(Opcode::Shfl(m), RegClass::B32, vec![v, lane.clone(), Arg::imm(c), mask.clone()])
        };
        let Some(s) = ty.scalar() else { return Val::Unit };
        let v = vals[1].arg();
        let d = match class_of(s) {
            RegClass::B32 => one(self, v),
            RegClass::F32 => {
                let b = self.b.op1(Opcode::Mov(Type::B32), RegClass::B32, vec![v]);
                let x = one(self, Arg::Reg(b));
                self.b.op1(Opcode::Mov(Type::B32), RegClass::F32, vec![Arg::Reg(x)])
            }
            RegClass::B64 | RegClass::F64 => {
                let (lo, hi) = (self.reg(RegClass::B32), self.reg(RegClass::B32));
                self.b.push(Inst::op(Opcode::Mov(Type::B64), 1, vec![Arg::Vec(vec![Arg::Reg(lo), Arg::Reg(hi)]), v]));
                let (a, b) = (one(self, Arg::Reg(lo)), one(self, Arg::Reg(hi)));
                let d = self.reg(class_of(s));
                self.b.push(Inst::op(Opcode::Mov(Type::B64), 1, vec![Arg::Reg(d), Arg::Vec(vec![Arg::Reg(a), Arg::Reg(b)])]));
                d
            }
            RegClass::B16 => {
                let w = if s.is_signed() { Opcode::Cvt(Mode::None, Type::S32, Type::S16) } else { Opcode::Cvt(Mode::None, Type::U32, Type::U16) };
                let x = self.b.op1(w, RegClass::B32, vec![v]);
                let y = one(self, Arg::Reg(x));
                self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(y)])
            }
            RegClass::Pred => {
                let p = self.pred(&vals[1]);
                let x = self.b.op1(Opcode::Selp(Type::U32), RegClass::B32, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(p)]);
                let y = one(self, Arg::Reg(x));
                self.b.op1(Opcode::Setp(Cmp::Ne, Type::U32), RegClass::Pred, vec![Arg::Reg(y), Arg::imm(0)])
            }
        };
        Val::S(Arg::Reg(d))
    }

    /// An integer operand zero-extended to 32 bits (8- and 16-bit types).
    fn zext32(&mut self, v: &Val, s: Scalar) -> Arg {
        let w = self.b.op1(Opcode::Cvt(Mode::None, Type::U32, Type::U16), RegClass::B32, vec![v.arg()]);
        let mask = (1i64 << s.bits()) - 1;
        Arg::Reg(self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(w), Arg::imm(mask)]))
    }

    fn from32(&mut self, r: Reg, s: Scalar) -> Val {
        let n = self.b.op1(Opcode::Cvt(Mode::None, Type::U16, Type::U32), RegClass::B16, vec![Arg::Reg(r)]);
        Val::S(Arg::Reg(self.normalize(n, s)))
    }

    fn int_op(&mut self, op: IntOp, s: Scalar, v: &[Val], span: Span) -> Val {
        let c = class_of(s);
        let t = int_type(s);
        let w = reg_width(s);
        let bits = s.bits() as i64;
        let a = v[0].arg();
        let reg = |x: Reg| Val::S(Arg::Reg(x));
        match op {
            IntOp::WrappingAdd => self.binop(BinOp::Add, s, s, &v[0], &v[1], span),
            IntOp::WrappingSub => self.binop(BinOp::Sub, s, s, &v[0], &v[1], span),
            IntOp::WrappingMul => self.binop(BinOp::Mul, s, s, &v[0], &v[1], span),
            IntOp::WrappingDiv => self.wrapping_division(false, s, &v[0], &v[1]),
            IntOp::WrappingRem => self.wrapping_division(true, s, &v[0], &v[1]),
            IntOp::WrappingNeg => {
                let n = self.b.op1(Opcode::arith(Arith::Neg, Type::s(w)), c, vec![a]);
                reg(self.normalize(n, s))
            }
            IntOp::Min => reg(self.b.op1(Opcode::arith(Arith::Min, t), c, vec![a, v[1].arg()])),
            IntOp::Max => reg(self.b.op1(Opcode::arith(Arith::Max, t), c, vec![a, v[1].arg()])),
            IntOp::Clamp => {
                let m = self.b.op1(Opcode::arith(Arith::Max, t), c, vec![a, v[1].arg()]);
                reg(self.b.op1(Opcode::arith(Arith::Min, t), c, vec![Arg::Reg(m), v[2].arg()]))
            }
            IntOp::Abs => {
                let x = self.b.op1(Opcode::arith(Arith::Abs, Type::s(w)), c, vec![a]);
                reg(self.normalize(x, s))
            }
            IntOp::UnsignedAbs => {
                let x = self.b.op1(Opcode::arith(Arith::Abs, Type::s(w)), c, vec![a]);
                let u = match s {
                    Scalar::I8 => Scalar::U8,
                    _ => s,
                };
                reg(self.normalize(x, u))
            }
            IntOp::AbsDiff => {
                let hi = self.b.op1(Opcode::arith(Arith::Max, t), c, vec![a.clone(), v[1].arg()]);
                let lo = self.b.op1(Opcode::arith(Arith::Min, t), c, vec![a, v[1].arg()]);
                let d = self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![Arg::Reg(hi), Arg::Reg(lo)]);
                let u = if s == Scalar::I8 { Scalar::U8 } else { s };
                reg(self.normalize(d, u))
            }
            IntOp::Signum => {
                let neg = self.b.op1(Opcode::Setp(Cmp::Lt, t), RegClass::Pred, vec![a.clone(), Arg::imm(0)]);
                let pos = self.b.op1(Opcode::Setp(Cmp::Gt, t), RegClass::Pred, vec![a, Arg::imm(0)]);
                let m = self.b.op1(Opcode::Selp(t), c, vec![Arg::imm(-1), Arg::imm(0), Arg::Reg(neg)]);
                reg(self.b.op1(Opcode::Selp(t), c, vec![Arg::imm(1), Arg::Reg(m), Arg::Reg(pos)]))
            }
            IntOp::SaturatingAdd | IntOp::SaturatingSub => self.saturating(op == IntOp::SaturatingAdd, s, &v[0], &v[1]),
            IntOp::Pow => self.int_pow(s, &v[0], &v[1]),
            IntOp::LeadingZeros => {
                if w == 16 {
                    let x = self.zext32(&v[0], s);
                    let z = self.b.op1(Opcode::arith(Arith::Clz, Type::B32), RegClass::B32, vec![x]);
                    reg(self.b.op1(Opcode::arith(Arith::Sub, Type::S32), RegClass::B32, vec![Arg::Reg(z), Arg::imm(32 - bits)]))
                } else {
                    reg(self.b.op1(Opcode::arith(Arith::Clz, Type::b(w)), RegClass::B32, vec![a]))
                }
            }
            IntOp::TrailingZeros => {
                if w == 16 {
                    let x = self.zext32(&v[0], s);
                    let x = self.b.op1(Opcode::arith(Arith::Or, Type::B32), RegClass::B32, vec![x, Arg::imm(1 << bits)]);
                    let rv = self.b.op1(Opcode::arith(Arith::Brev, Type::B32), RegClass::B32, vec![Arg::Reg(x)]);
                    reg(self.b.op1(Opcode::arith(Arith::Clz, Type::B32), RegClass::B32, vec![Arg::Reg(rv)]))
                } else {
                    let rv = self.b.op1(Opcode::arith(Arith::Brev, Type::b(w)), c, vec![a]);
                    reg(self.b.op1(Opcode::arith(Arith::Clz, Type::b(w)), RegClass::B32, vec![Arg::Reg(rv)]))
                }
            }
            IntOp::CountOnes | IntOp::CountZeros => {
                let n = if w == 16 {
                    let x = self.zext32(&v[0], s);
                    self.b.op1(Opcode::arith(Arith::Popc, Type::B32), RegClass::B32, vec![x])
                } else {
                    self.b.op1(Opcode::arith(Arith::Popc, Type::b(w)), RegClass::B32, vec![a])
                };
                if op == IntOp::CountZeros {
                    reg(self.b.op1(Opcode::arith(Arith::Sub, Type::S32), RegClass::B32, vec![Arg::imm(bits), Arg::Reg(n)]))
                } else {
                    reg(n)
                }
            }
            IntOp::RotateLeft | IntOp::RotateRight => {
                let left = op == IntOp::RotateLeft;
                let n = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![v[1].arg(), Arg::imm(bits - 1)]);
                if w == 32 {
                    return reg(self.b.op1(Opcode::ShfWrap { left }, RegClass::B32, vec![a.clone(), a, Arg::Reg(n)]));
                }
                let (x, xc, xb) = if w == 16 { (self.zext32(&v[0], s), RegClass::B32, 32) } else { (a, RegClass::B64, 64) };
                let m = self.b.op1(Opcode::arith(Arith::Sub, Type::S32), RegClass::B32, vec![Arg::imm(bits), Arg::Reg(n)]);
                let m = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(m), Arg::imm(if w == 16 { 63 } else { bits - 1 })]);
                let (ln, rn) = if left { (n, m) } else { (m, n) };
                let hi = self.b.op1(Opcode::arith(Arith::Shl, Type::b(xb)), xc, vec![x.clone(), Arg::Reg(ln)]);
                let lo = self.b.op1(Opcode::arith(Arith::Shr, Type::u(xb)), xc, vec![x, Arg::Reg(rn)]);
                let o = self.b.op1(Opcode::arith(Arith::Or, Type::b(xb)), xc, vec![Arg::Reg(hi), Arg::Reg(lo)]);
                if w == 16 {
                    self.from32(o, s)
                } else {
                    reg(o)
                }
            }
            IntOp::SwapBytes => match w {
                16 if bits == 8 => v[0].clone(),
                16 => {
                    let x = self.zext32(&v[0], s);
                    let p = self.b.op1(Opcode::arith(Arith::Prmt, Type::B32), RegClass::B32, vec![x, Arg::imm(0), Arg::imm(0x4401)]);
                    self.from32(p, s)
                }
                32 => reg(self.b.op1(Opcode::arith(Arith::Prmt, Type::B32), RegClass::B32, vec![a, Arg::imm(0), Arg::imm(0x0123)])),
                _ => {
                    let (lo, hi) = (self.reg(RegClass::B32), self.reg(RegClass::B32));
                    self.b.push(Inst::op(Opcode::Mov(Type::B64), 1, vec![Arg::Vec(vec![Arg::Reg(lo), Arg::Reg(hi)]), a]));
                    let nlo = self.b.op1(Opcode::arith(Arith::Prmt, Type::B32), RegClass::B32, vec![Arg::Reg(hi), Arg::imm(0), Arg::imm(0x0123)]);
                    let nhi = self.b.op1(Opcode::arith(Arith::Prmt, Type::B32), RegClass::B32, vec![Arg::Reg(lo), Arg::imm(0), Arg::imm(0x0123)]);
                    let d = self.reg(RegClass::B64);
                    self.b.push(Inst::op(Opcode::Mov(Type::B64), 1, vec![Arg::Reg(d), Arg::Vec(vec![Arg::Reg(nlo), Arg::Reg(nhi)])]));
                    reg(d)
                }
            },
            IntOp::ReverseBits => {
                if w == 16 {
                    let x = self.zext32(&v[0], s);
                    let rv = self.b.op1(Opcode::arith(Arith::Brev, Type::B32), RegClass::B32, vec![x]);
                    let sh = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(rv), Arg::imm(32 - bits)]);
                    self.from32(sh, s)
                } else {
                    reg(self.b.op1(Opcode::arith(Arith::Brev, Type::b(w)), c, vec![a]))
                }
            }
            IntOp::IsPowerOfTwo => {
                let n = if w == 16 {
                    let x = self.zext32(&v[0], s);
                    self.b.op1(Opcode::arith(Arith::Popc, Type::B32), RegClass::B32, vec![x])
                } else {
                    self.b.op1(Opcode::arith(Arith::Popc, Type::b(w)), RegClass::B32, vec![a])
                };
                reg(self.b.op1(Opcode::Setp(Cmp::Eq, Type::U32), RegClass::Pred, vec![Arg::Reg(n), Arg::imm(1)]))
            }
            IntOp::DivCeil => {
                // q + (q·b != a): the quotient, plus one when the division left a remainder.
                let q = self.binop(BinOp::Div, s, s, &v[0], &v[1], span).arg();
                let m = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, t), c, vec![q.clone(), v[1].arg()]);
                let inexact = self.b.op1(Opcode::Setp(Cmp::Ne, t), RegClass::Pred, vec![Arg::Reg(m), a]);
                let up = self.b.op1(Opcode::Selp(t), c, vec![Arg::imm(1), Arg::imm(0), Arg::Reg(inexact)]);
                reg(self.b.op1(Opcode::arith(Arith::Add, t), c, vec![q, Arg::Reg(up)]))
            }
            IntOp::IsMultipleOf => {
                // b == 0 ? a == 0 : a % b == 0, without a division by zero (its PTX result is
                // unspecified; it is selected away).
                let r = self.b.op1(Opcode::arith(Arith::Rem, t), c, vec![a.clone(), v[1].arg()]);
                let r0 = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![Arg::Reg(r), Arg::imm(0)]);
                let b0 = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![v[1].arg(), Arg::imm(0)]);
                let a0 = self.b.op1(Opcode::Setp(Cmp::Eq, t), RegClass::Pred, vec![a, Arg::imm(0)]);
                let zero_case = self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(b0), Arg::Reg(a0)]);
                let b_nonzero = self.b.op1(Opcode::arith(Arith::Not, Type::Pred), RegClass::Pred, vec![Arg::Reg(b0)]);
                let rem_case = self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(b_nonzero), Arg::Reg(r0)]);
                reg(self.b.op1(Opcode::arith(Arith::Or, Type::Pred), RegClass::Pred, vec![Arg::Reg(zero_case), Arg::Reg(rem_case)]))
            }
            IntOp::RemEuclid | IntOp::DivEuclid => {
                let r = self.binop(BinOp::Rem, s, s, &v[0], &v[1], span);
                if !s.is_signed() {
                    return if op == IntOp::RemEuclid { r } else { self.binop(BinOp::Div, s, s, &v[0], &v[1], span) };
                }
                let neg = self.b.op1(Opcode::Setp(Cmp::Lt, t), RegClass::Pred, vec![r.arg(), Arg::imm(0)]);
                if op == IntOp::RemEuclid {
                    let ab = self.b.op1(Opcode::arith(Arith::Abs, Type::s(w)), c, vec![v[1].arg()]);
                    let sum = self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![r.arg(), Arg::Reg(ab)]);
                    let sum = self.normalize(sum, s);
                    reg(self.b.op1(Opcode::Selp(t), c, vec![Arg::Reg(sum), r.arg(), Arg::Reg(neg)]))
                } else {
                    let q = self.binop(BinOp::Div, s, s, &v[0], &v[1], span);
                    let pos = self.b.op1(Opcode::Setp(Cmp::Gt, t), RegClass::Pred, vec![v[1].arg(), Arg::imm(0)]);
                    let adj = self.b.op1(Opcode::Selp(t), c, vec![Arg::imm(-1), Arg::imm(1), Arg::Reg(pos)]);
                    let q2 = self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![q.arg(), Arg::Reg(adj)]);
                    let q2 = self.normalize(q2, s);
                    reg(self.b.op1(Opcode::Selp(t), c, vec![Arg::Reg(q2), q.arg(), Arg::Reg(neg)]))
                }
            }
        }
    }

    fn saturating(&mut self, add: bool, s: Scalar, x: &Val, y: &Val) -> Val {
        let reg = |r: Reg| Val::S(Arg::Reg(r));
        let (a, b) = (x.arg(), y.arg());
        let bits = s.bits() as i64;
        match (reg_width(s), s.is_signed()) {
            (16, signed) => {
                // Widen, compute exactly, clamp, narrow.
                let w = if signed { Opcode::Cvt(Mode::None, Type::S32, Type::S16) } else { Opcode::Cvt(Mode::None, Type::U32, Type::U16) };
                let xa = self.b.op1(w, RegClass::B32, vec![a]);
                let xb = self.b.op1(w, RegClass::B32, vec![b]);
                let o = if add { Opcode::arith(Arith::Add, Type::S32) } else { Opcode::arith(Arith::Sub, Type::S32) };
                let r = self.b.op1(o, RegClass::B32, vec![Arg::Reg(xa), Arg::Reg(xb)]);
                let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
                let r = self.b.op1(Opcode::arith(Arith::Max, Type::S32), RegClass::B32, vec![Arg::Reg(r), Arg::imm(lo)]);
                let r = self.b.op1(Opcode::arith(Arith::Min, Type::S32), RegClass::B32, vec![Arg::Reg(r), Arg::imm(hi)]);
                self.from32(r, s)
            }
            (32, true) => reg(self.b.op1(if add { Opcode::Arith(Arith::Add, Mode::Sat, Type::S32) } else { Opcode::Arith(Arith::Sub, Mode::Sat, Type::S32) }, RegClass::B32, vec![a, b])),
            (w, false) => {
                let c = class_of(s);
                if add {
                    let nb = self.b.op1(Opcode::arith(Arith::Not, Type::b(w)), c, vec![b.clone()]);
                    let m = self.b.op1(Opcode::arith(Arith::Min, Type::u(w)), c, vec![a, Arg::Reg(nb)]);
                    reg(self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![Arg::Reg(m), b]))
                } else {
                    let m = self.b.op1(Opcode::arith(Arith::Max, Type::u(w)), c, vec![a, b.clone()]);
                    reg(self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![Arg::Reg(m), b]))
                }
            }
            (_, true) => {
                // 64-bit signed: detect overflow by signs.
                let c = RegClass::B64;
                let r = self.b.op1(if add { Opcode::arith(Arith::Add, Type::S64) } else { Opcode::arith(Arith::Sub, Type::S64) }, c, vec![a.clone(), b.clone()]);
                let ar = self.b.op1(Opcode::arith(Arith::Xor, Type::B64), c, vec![a.clone(), Arg::Reg(r)]);
                let other = if add { self.b.op1(Opcode::arith(Arith::Xor, Type::B64), c, vec![b, Arg::Reg(r)]) } else { self.b.op1(Opcode::arith(Arith::Xor, Type::B64), c, vec![a.clone(), b]) };
                let both = self.b.op1(Opcode::arith(Arith::And, Type::B64), c, vec![Arg::Reg(ar), Arg::Reg(other)]);
                let ovf = self.b.op1(Opcode::Setp(Cmp::Lt, Type::S64), RegClass::Pred, vec![Arg::Reg(both), Arg::imm(0)]);
                let neg = self.b.op1(Opcode::Setp(Cmp::Lt, Type::S64), RegClass::Pred, vec![a, Arg::imm(0)]);
                let sat = self.b.op1(Opcode::Selp(Type::B64), c, vec![Arg::imm(i64::MIN), Arg::imm(i64::MAX), Arg::Reg(neg)]);
                reg(self.b.op1(Opcode::Selp(Type::B64), c, vec![Arg::Reg(sat), Arg::Reg(r), Arg::Reg(ovf)]))
            }
        }
    }

    /// `x.pow(e)`: square-and-multiply, wrapping (unrolled when `e` is a constant).
    fn int_pow(&mut self, s: Scalar, x: &Val, e: &Val) -> Val {
        let c = class_of(s);
        let w = reg_width(s);
        let mul = Opcode::Arith(Arith::Mul, Mode::Lo, Type::s(w));
        if let Val::S(Arg::Imm(Imm::Int(n))) = e {
            let mut n = *n as u64 as u32;
            let mut acc: Option<Arg> = None;
            let mut base = x.arg();
            while n > 0 {
                if n & 1 == 1 {
                    acc = Some(match acc {
                        None => base.clone(),
                        Some(a) => {
                            let m = self.b.op1(mul, c, vec![a, base.clone()]);
                            Arg::Reg(self.normalize(m, s))
                        }
                    });
                }
                n >>= 1;
                if n > 0 {
                    let m = self.b.op1(mul, c, vec![base.clone(), base.clone()]);
                    base = Arg::Reg(self.normalize(m, s));
                }
            }
            return Val::S(acc.unwrap_or(Arg::imm(1)));
        }
        let acc = self.reg(c);
        let base = self.reg(c);
        let n = self.reg(RegClass::B32);
        self.mov(acc, Arg::imm(1));
        self.mov(base, x.arg());
        self.mov(n, e.arg());
        let head = self.b.new_block();
        let body = self.b.new_block();
        let exit = self.b.new_block();
        self.b.jump_to(head);
        let z = self.b.op1(Opcode::Setp(Cmp::Eq, Type::U32), RegClass::Pred, vec![Arg::Reg(n), Arg::imm(0)]);
        self.b.terminate(Term::Branch { pred: z, negate: false, if_true: exit, if_false: body });
        self.b.switch_to(body);
        let bit = self.b.op1(Opcode::arith(Arith::And, Type::B32), RegClass::B32, vec![Arg::Reg(n), Arg::imm(1)]);
        let odd = self.b.op1(Opcode::Setp(Cmp::Ne, Type::U32), RegClass::Pred, vec![Arg::Reg(bit), Arg::imm(0)]);
        let m = self.b.op1(mul, c, vec![Arg::Reg(acc), Arg::Reg(base)]);
        let m = self.normalize(m, s);
        let sel = self.b.op1(Opcode::Selp(Type::b(w)), c, vec![Arg::Reg(m), Arg::Reg(acc), Arg::Reg(odd)]);
        self.mov(acc, Arg::Reg(sel));
        let half = self.b.op1(Opcode::arith(Arith::Shr, Type::U32), RegClass::B32, vec![Arg::Reg(n), Arg::imm(1)]);
        self.mov(n, Arg::Reg(half));
        let sq = self.b.op1(mul, c, vec![Arg::Reg(base), Arg::Reg(base)]);
        let sq = self.normalize(sq, s);
        self.mov(base, Arg::Reg(sq));
        self.b.terminate(Term::Jump(head));
        self.b.switch_to(exit);
        Val::S(Arg::Reg(acc))
    }

    fn float_op(&mut self, op: FloatOp, s: Scalar, v: &[Val]) -> Val {
        let c = class_of(s);
        let t = int_type(s);
        let a = v[0].arg();
        let reg = |r: Reg| Val::S(Arg::Reg(r));
        let one = self.float_imm(s, 1.0, 1.0).arg();
        match op {
            FloatOp::Sqrt => reg(self.b.op1(Opcode::Arith(Arith::Sqrt, Mode::Rn, t), c, vec![a])),
            FloatOp::Abs => reg(self.b.op1(Opcode::arith(Arith::Abs, t), c, vec![a])),
            FloatOp::Min => reg(self.b.op1(Opcode::arith(Arith::Min, t), c, vec![a, v[1].arg()])),
            FloatOp::Max => reg(self.b.op1(Opcode::arith(Arith::Max, t), c, vec![a, v[1].arg()])),
            FloatOp::Clamp => {
                // NaN stays NaN: comparisons with it are false.
                let lt = self.b.op1(Opcode::Setp(Cmp::Lt, t), RegClass::Pred, vec![a.clone(), v[1].arg()]);
                let x = self.b.op1(Opcode::Selp(t), c, vec![v[1].arg(), a, Arg::Reg(lt)]);
                let gt = self.b.op1(Opcode::Setp(Cmp::Gt, t), RegClass::Pred, vec![Arg::Reg(x), v[2].arg()]);
                reg(self.b.op1(Opcode::Selp(t), c, vec![v[2].arg(), Arg::Reg(x), Arg::Reg(gt)]))
            }
            FloatOp::MulAdd => reg(self.b.op1(Opcode::Arith(Arith::Fma, Mode::Rn, t), c, vec![a, v[1].arg(), v[2].arg()])),
            FloatOp::Floor => reg(self.b.op1(Opcode::Cvt(Mode::Rmi, t, t), c, vec![a])),
            FloatOp::Ceil => reg(self.b.op1(Opcode::Cvt(Mode::Rpi, t, t), c, vec![a])),
            FloatOp::Trunc => reg(self.b.op1(Opcode::Cvt(Mode::Rzi, t, t), c, vec![a])),
            FloatOp::RoundTiesEven => reg(self.b.op1(Opcode::Cvt(Mode::Rni, t, t), c, vec![a])),
            FloatOp::Round => {
                // Half away from zero: trunc(x), plus ±1 when the dropped part is at least a
                // half (x - trunc(x) is exact).
                let tr = self.b.op1(Opcode::Cvt(Mode::Rzi, t, t), c, vec![a.clone()]);
                let d = self.b.op1(Opcode::Arith(Arith::Sub, Mode::Rn, t), c, vec![a.clone(), Arg::Reg(tr)]);
                let ad = self.b.op1(Opcode::arith(Arith::Abs, t), c, vec![Arg::Reg(d)]);
                let half = self.float_imm(s, 0.5, 0.5).arg();
                let ge = self.b.op1(Opcode::Setp(Cmp::Ge, t), RegClass::Pred, vec![Arg::Reg(ad), half]);
                let sgn = self.b.op1(Opcode::arith(Arith::Copysign, t), c, vec![a, one]);
                let up = self.b.op1(Opcode::Arith(Arith::Add, Mode::Rn, t), c, vec![Arg::Reg(tr), Arg::Reg(sgn)]);
                reg(self.b.op1(Opcode::Selp(t), c, vec![Arg::Reg(up), Arg::Reg(tr), Arg::Reg(ge)]))
            }
            FloatOp::Fract => {
                let tr = self.b.op1(Opcode::Cvt(Mode::Rzi, t, t), c, vec![a.clone()]);
                reg(self.b.op1(Opcode::Arith(Arith::Sub, Mode::Rn, t), c, vec![a, Arg::Reg(tr)]))
            }
            FloatOp::Recip => reg(self.b.op1(Opcode::Arith(Arith::Rcp, Mode::Rn, t), c, vec![a])),
            FloatOp::Copysign => reg(self.b.op1(Opcode::arith(Arith::Copysign, t), c, vec![v[1].arg(), a])),
            FloatOp::Signum => {
                let sg = self.b.op1(Opcode::arith(Arith::Copysign, t), c, vec![a.clone(), one]);
                let nan = self.b.testp(FpClass::NotANumber, t, a.clone());
                reg(self.b.op1(Opcode::Selp(t), c, vec![a, Arg::Reg(sg), Arg::Reg(nan)]))
            }
            FloatOp::IsNan => reg(self.b.testp(FpClass::NotANumber, t, a)),
            FloatOp::IsInfinite => reg(self.b.testp(FpClass::Infinite, t, a)),
            FloatOp::IsFinite => reg(self.b.testp(FpClass::Finite, t, a)),
            FloatOp::IsSignNegative | FloatOp::IsSignPositive => {
                let (bc, bt) = if s == Scalar::F32 { (RegClass::B32, 32) } else { (RegClass::B64, 64) };
                let b = self.b.op1(Opcode::Mov(Type::b(bt)), bc, vec![a]);
                let cmp = if op == FloatOp::IsSignNegative { Cmp::Lt } else { Cmp::Ge };
                reg(self.b.op1(Opcode::Setp(cmp, Type::s(bt)), RegClass::Pred, vec![Arg::Reg(b), Arg::imm(0)]))
            }
            FloatOp::ToDegrees | FloatOp::ToRadians => {
                // The constants Rust's own `to_degrees` / `to_radians` multiply by.
                let k = match (op, s) {
                    (FloatOp::ToDegrees, Scalar::F32) => self.float_imm(s, "57.2957795130823208767981548141051703".parse().unwrap_or(0.0), 0.0),
                    (FloatOp::ToDegrees, _) => self.float_imm(s, 0.0, 180.0f64 / std::f64::consts::PI),
                    (_, Scalar::F32) => self.float_imm(s, std::f32::consts::PI / 180.0f32, 0.0),
                    _ => self.float_imm(s, 0.0, std::f64::consts::PI / 180.0f64),
                };
                reg(self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, t), c, vec![a, k.arg()]))
            }
        }
    }

    /// `fast::*`: `.approx` instructions (f32).
    fn fast(&mut self, op: FastOp, v: &[Val]) -> Val {
        let f = RegClass::F32;
        let a = v[0].arg();
        let reg = |r: Reg| Val::S(Arg::Reg(r));
        let k = |x: f32| Arg::Imm(Imm::F32(x.to_bits()));
        match op {
            FastOp::Sin => reg(self.b.op1(Opcode::Arith(Arith::Sin, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Cos => reg(self.b.op1(Opcode::Arith(Arith::Cos, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Tan => {
                let s = self.b.op1(Opcode::Arith(Arith::Sin, Mode::Approx, Type::F32), f, vec![a.clone()]);
                let c = self.b.op1(Opcode::Arith(Arith::Cos, Mode::Approx, Type::F32), f, vec![a]);
                reg(self.b.op1(Opcode::Arith(Arith::Div, Mode::Approx, Type::F32), f, vec![Arg::Reg(s), Arg::Reg(c)]))
            }
            FastOp::Exp2 => reg(self.b.op1(Opcode::Arith(Arith::Ex2, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Exp => {
                let m = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, Type::F32), f, vec![a, k(std::f32::consts::LOG2_E)]);
                reg(self.b.op1(Opcode::Arith(Arith::Ex2, Mode::Approx, Type::F32), f, vec![Arg::Reg(m)]))
            }
            FastOp::Log2 => reg(self.b.op1(Opcode::Arith(Arith::Lg2, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Ln => {
                let l = self.b.op1(Opcode::Arith(Arith::Lg2, Mode::Approx, Type::F32), f, vec![a]);
                reg(self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, Type::F32), f, vec![Arg::Reg(l), k(std::f32::consts::LN_2)]))
            }
            FastOp::Rsqrt => reg(self.b.op1(Opcode::Arith(Arith::Rsqrt, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Sqrt => reg(self.b.op1(Opcode::Arith(Arith::Sqrt, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Recip => reg(self.b.op1(Opcode::Arith(Arith::Rcp, Mode::Approx, Type::F32), f, vec![a])),
            FastOp::Div => reg(self.b.op1(Opcode::Arith(Arith::Div, Mode::Full, Type::F32), f, vec![a, v[1].arg()])),
            FastOp::Tanh => {
                self.need_isa(7, 0);
                reg(self.b.op1(Opcode::Arith(Arith::Tanh, Mode::Approx, Type::F32), f, vec![a]))
            }
            FastOp::Powf => {
                let l = self.b.op1(Opcode::Arith(Arith::Lg2, Mode::Approx, Type::F32), f, vec![a]);
                let m = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Rn, Type::F32), f, vec![Arg::Reg(l), v[1].arg()]);
                reg(self.b.op1(Opcode::Arith(Arith::Ex2, Mode::Approx, Type::F32), f, vec![Arg::Reg(m)]))
            }
            FastOp::Exp2Ftz => reg(self.b.op1(Opcode::Arith(Arith::Ex2, Mode::ApproxFtz, Type::F32), f, vec![a])),
            FastOp::RecipFtz => reg(self.b.op1(Opcode::Arith(Arith::Rcp, Mode::ApproxFtz, Type::F32), f, vec![a])),
            FastOp::RsqrtFtz => reg(self.b.op1(Opcode::Arith(Arith::Rsqrt, Mode::ApproxFtz, Type::F32), f, vec![a])),
            FastOp::DivFtz => reg(self.b.op1(Opcode::Arith(Arith::Div, Mode::ApproxFtz, Type::F32), f, vec![a, v[1].arg()])),
        }
    }

    fn ptr_op(&mut self, op: PtrOp, pty: &Ty, v: &[Val], span: Span) -> Val {
        let Val::Ptr(addr, space) = v[0].clone() else { return Val::Unit };
        let pointee = match pty {
            Ty::Ptr { pointee, .. } => self.ty(pointee),
            _ => Ty::Error,
        };
        let size = pointee.layout().map(|l| l.size as u64);
        match op {
            PtrOp::Add | PtrOp::Offset | PtrOp::Sub => {
                let Some(size) = size else { return self.error(span, format!("`{pointee}` has no device layout")) };
                let idx = if op == PtrOp::Sub {
                    match &v[1] {
                        Val::S(Arg::Imm(Imm::Int(n))) => Val::S(Arg::imm(n.wrapping_neg())),
                        other => Val::S(Arg::Reg(self.b.op1(Opcode::arith(Arith::Neg, Type::S64), RegClass::B64, vec![other.arg()]))),
                    }
                } else {
                    v[1].clone()
                };
                let (a, off) = self.element_addr(&addr, space, &idx, size);
                if off == 0 {
                    return Val::Ptr(a, space);
                }
                let (c, o) = if space == Space::Shared { (RegClass::B32, Opcode::arith(Arith::Add, Type::S32)) } else { (RegClass::B64, Opcode::arith(Arith::Add, Type::S64)) };
                Val::Ptr(Arg::Reg(self.b.op1(o, c, vec![a, Arg::imm(off)])), space)
            }
            PtrOp::Read { volatile } => {
                self.volatile = volatile;
                let r = self.load(&addr, space, 0, &pointee, span);
                self.volatile = false;
                r
            }
            PtrOp::Write { volatile } => {
                self.volatile = volatile;
                self.store(&addr, space, 0, &pointee, &v[1], span);
                self.volatile = false;
                Val::Unit
            }
            PtrOp::IsNull => {
                // Compared as a generic address: a null pointer is generic 0, and what
                // `cvta.to.global` makes of 0 is not specified.
                let a = match space {
                    Space::Generic => addr,
                    _ => self.generic_address(&v[0]),
                };
                Val::S(Arg::Reg(self.b.op1(Opcode::Setp(Cmp::Eq, Type::U64), RegClass::Pred, vec![a, Arg::imm(0)])))
            }
        }
    }
}

/// `%ntid.<axis>` when the kernel declares its block shape: the declared extent.
fn block_dim(block: Option<[u32; 3]>, sreg: &str) -> Option<u32> {
    let axis = ["%ntid.x", "%ntid.y", "%ntid.z"].iter().position(|s| *s == sreg)?;
    Some(block?[axis])
}
