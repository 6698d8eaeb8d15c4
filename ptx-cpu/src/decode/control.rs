//! Branches, calls, exits and traps; barriers, fences and warp-synchronous instructions.

use super::function::{unsupported, FnDecoder, R};
use super::mods::Mods;
use super::types::T;
use super::{DecodeError, Sym};
use crate::parse::ast::{self, Operand};
use crate::program::*;

impl FnDecoder<'_> {
    pub(super) fn control(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        let a = &i.args;
        match m.base {
            "bra" => {
                m.take("uni");
                self.args(i, 1)?;
                let Operand::Name(l) = &a[0] else { return self.error("bra: expected a label") };
                let target = *self.labels.get(l).ok_or_else(|| DecodeError { construct: None, line: i.line, message: format!("undefined label `{l}`") })?;
                Ok(Op::Bra { target })
            }
            "call" => self.call(i, m),
            "ret" => {
                m.take("uni");
                Ok(Op::Ret)
            }
            "exit" => Ok(Op::Exit),
            "trap" => Ok(Op::Trap),
            "brkpt" => Ok(Op::Brkpt),
            "nanosleep" => {
                m.take("u32");
                Ok(Op::Yield)
            }
            "bar" | "barrier" => self.bar(i, m),
            "membar" => {
                m.take_any(&["cta", "gl", "sys"]);
                if m.take("proxy") {
                    m.take_any(&["alias", "async"]);
                    return Ok(Op::Nop);
                }
                Ok(Op::Fence { order: Order::SeqCst })
            }
            "fence" => {
                if m.take("proxy") {
                    m.take_any(&["alias", "async", "async.global"]);
                    // `fence.proxy.async.shared::cta`: one memory here, nothing to order.
                    m.take_any(&["shared::cta", "shared::cluster", "global"]);
                    return Ok(Op::Nop);
                }
                let order = match m.take_any(&["sc", "acq_rel", "acquire", "release"]) {
                    Some("sc") => Order::SeqCst,
                    Some("acquire") => Order::Acquire,
                    Some("release") => Order::Release,
                    _ => Order::AcqRel,
                };
                m.take_any(&["cta", "cluster", "gpu", "sys"]);
                Ok(Op::Fence { order })
            }
            "activemask" => {
                m.take("b32");
                self.args(i, 1)?;
                Ok(Op::Activemask { d: self.dst(&a[0])? })
            }
            "shfl" => {
                if !m.take("sync") {
                    return unsupported(format!("{} (shfl without .sync does not exist on sm_70 and later)", i.opcode));
                }
                let mode = match m.take_any(&["up", "down", "bfly", "idx"]) {
                    Some("up") => ShflMode::Up,
                    Some("down") => ShflMode::Down,
                    Some("bfly") => ShflMode::Bfly,
                    Some(_) => ShflMode::Idx,
                    None => return unsupported(&i.opcode),
                };
                m.take("b32");
                self.args(i, 5)?;
                let (d, p) = match &a[0] {
                    Operand::Pair(x, y) => (self.dst(x)?, self.dst(y)?),
                    x => (self.dst(x)?, NOREG),
                };
                Ok(Op::Shfl {
                    mode,
                    d,
                    p,
                    a: self.src(&a[1], T::B32)?,
                    b: self.src(&a[2], T::B32)?,
                    c: self.src(&a[3], T::B32)?,
                    mask: self.src(&a[4], T::B32)?,
                })
            }
            "vote" => {
                if !m.take("sync") {
                    return unsupported(format!("{} (vote without .sync does not exist on sm_70 and later)", i.opcode));
                }
                let mode = match m.take_any(&["all", "any", "uni", "ballot"]) {
                    Some("all") => VoteMode::All,
                    Some("any") => VoteMode::Any,
                    Some("uni") => VoteMode::Uni,
                    Some(_) => VoteMode::Ballot,
                    None => return unsupported(&i.opcode),
                };
                m.take_any(&["pred", "b32"]);
                self.args(i, 3)?;
                let (src, neg) = self.pred_src(&a[1])?;
                Ok(Op::Vote { mode, d: self.dst(&a[0])?, a: src, neg, mask: self.src(&a[2], T::B32)? })
            }
            "redux" => {
                if !m.take("sync") {
                    return unsupported(&i.opcode);
                }
                let op = m.take_any(&["add", "min", "max", "and", "or", "xor"]);
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                if t == T::F32 {
                    return unsupported(format!("{} (f32 redux)", i.opcode));
                }
                let op = match (op, t.signed()) {
                    (Some("add"), _) => ReduxOp::Add,
                    (Some("min"), true) => ReduxOp::Min,
                    (Some("min"), false) => ReduxOp::UMin,
                    (Some("max"), true) => ReduxOp::Max,
                    (Some("max"), false) => ReduxOp::UMax,
                    (Some("and"), _) => ReduxOp::And,
                    (Some("or"), _) => ReduxOp::Or,
                    (Some("xor"), _) => ReduxOp::Xor,
                    _ => return unsupported(&i.opcode),
                };
                self.args(i, 3)?;
                Ok(Op::Redux { op, d: self.dst(&a[0])?, a: self.src(&a[1], T::B32)?, mask: self.src(&a[2], T::B32)? })
            }
            "match" => {
                let all = match m.take_any(&["any", "all"]) {
                    Some("all") => true,
                    Some(_) => false,
                    None => return unsupported(&i.opcode),
                };
                if !m.take("sync") {
                    return unsupported(&i.opcode);
                }
                let Some(t) = m.ty() else { return unsupported(&i.opcode) };
                self.args(i, 3)?;
                let (d, p) = match &a[0] {
                    Operand::Pair(x, y) => (self.dst(x)?, self.dst(y)?),
                    x => (self.dst(x)?, NOREG),
                };
                Ok(Op::Match { all, wide: t.bits() == 64, d, p, a: self.src(&a[1], t)?, mask: self.src(&a[2], T::B32)? })
            }
            _ => unsupported(&i.opcode),
        }
    }

    pub(super) fn bar(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        m.take("cta");
        if m.base == "bar" && m.take("warp") {
            if !m.take("sync") {
                return unsupported(&i.opcode);
            }
            self.args(i, 1)?;
            return Ok(Op::BarWarp { mask: self.src(&i.args[0], T::B32)? });
        }
        let aligned = m.base == "bar" || m.take("aligned");
        let kind = if m.take("sync") {
            BarKind::Sync
        } else if m.take("arrive") {
            BarKind::Arrive
        } else if m.take("red") {
            match m.take_any(&["popc", "and", "or"]) {
                Some("popc") => BarKind::RedPopc,
                Some("and") => BarKind::RedAnd,
                Some("or") => BarKind::RedOr,
                _ => return unsupported(&i.opcode),
            }
        } else if m.leftover().is_none() {
            BarKind::Sync // plain `bar 0` is bar.sync
        } else {
            return unsupported(&i.opcode);
        };
        m.take_any(&["u32", "pred"]);
        let a = &i.args;
        Ok(match kind {
            BarKind::Sync | BarKind::Arrive => {
                if a.is_empty() || a.len() > 2 {
                    return self.error("bar: expected a barrier and an optional thread count");
                }
                let count = if a.len() == 2 { self.src(&a[1], T::U32)? } else { Src::None };
                Op::Bar { kind, id: self.src(&a[0], T::U32)?, count, aligned, d: NOREG, p: Src::None, pneg: false }
            }
            _ => {
                if !(3..=4).contains(&a.len()) {
                    return self.error("bar.red: expected a destination, barrier, optional count and predicate");
                }
                let (p, pneg) = self.pred_src(&a[a.len() - 1])?;
                let count = if a.len() == 4 { self.src(&a[2], T::U32)? } else { Src::None };
                Op::Bar { kind, id: self.src(&a[1], T::U32)?, count, aligned, d: self.dst(&a[0])?, p, pneg }
            }
        })
    }

    pub(super) fn call(&mut self, i: &ast::Inst, m: &mut Mods) -> R<Op> {
        m.take("uni");
        let mut it = i.args.iter().peekable();
        let rets: Vec<&Operand> = match it.peek() {
            Some(Operand::List(v)) => {
                it.next();
                v.iter().collect()
            }
            _ => Vec::new(),
        };
        let Some(target) = it.next() else { return self.error("call: missing target") };
        let args: Vec<&Operand> = match it.peek() {
            Some(Operand::List(v)) => {
                it.next();
                v.iter().collect()
            }
            _ => Vec::new(),
        };
        let proto = it.next();
        let frame_slot = |op: &Operand| -> R<(u32, u32)> {
            match op {
                Operand::Name(n) => match self.lookup(n) {
                    Some(Sym::FParam(o, s)) => Ok((o, s)),
                    _ => self.error(format!("call: `{n}` is not a .param variable of a call scope")),
                },
                _ => self.error("call: arguments must be .param variables"),
            }
        };
        let ret_slots: Vec<(u32, u32)> = rets.iter().map(|o| frame_slot(o)).collect::<R<_>>()?;
        let arg_slots: Vec<(u32, u32)> = args.iter().map(|o| frame_slot(o)).collect::<R<_>>()?;
        let (ct, sig) = match target {
            Operand::Name(n) => match self.lookup(n) {
                Some(Sym::Func(f)) => (CallTarget::Direct(f), self.syms.sigs[f as usize].clone()),
                Some(Sym::Reg(r, _)) => {
                    let Some(Operand::Name(p)) = proto else { return self.error("indirect call without a prototype") };
                    let sig = self.protos.get(p).cloned().ok_or_else(|| DecodeError { construct: None, line: i.line, message: format!("undefined prototype `{p}`") })?;
                    (CallTarget::Indirect(Src::Reg(r)), sig)
                }
                _ => return self.error(format!("call: `{n}` is not a function")),
            },
            _ => return self.error("call: bad target"),
        };
        let (params, ret_decl) = sig;
        if params.len() != arg_slots.len() || ret_decl.len() != ret_slots.len() {
            return self.error(format!(
                "call passes {} argument(s) and {} return value(s), the callee declares {} and {}",
                arg_slots.len(),
                ret_slots.len(),
                params.len(),
                ret_decl.len()
            ));
        }
        for (k, (&(_, size), p)) in arg_slots.iter().zip(&params).enumerate() {
            if size != p.size {
                return self.error(format!("call: argument {k} has {size} bytes, the callee's parameter {}", p.size));
            }
        }
        let args: Box<[u32]> = arg_slots.iter().map(|s| s.0).collect();
        let rets: Box<[u32]> = ret_slots.iter().map(|s| s.0).collect();
        if let CallTarget::Direct(f) = ct {
            if let FuncKind::Syscall(which) = self.syms.kinds[f as usize] {
                // The prototypes of the guide's chapter 3 (64-bit addresses).
                let (want_args, want_rets): (&[u32], &[u32]) = match which {
                    Syscall::Vprintf => (&[8, 8], &[4]),
                    Syscall::Malloc => (&[8], &[8]),
                    Syscall::Free => (&[8], &[]),
                    Syscall::AssertFail => (&[8, 8, 4, 8, 8], &[]),
                };
                let sizes = |v: &[ParamSlot]| v.iter().map(|p| p.size).collect::<Vec<u32>>();
                if sizes(&params) != want_args || (sizes(&ret_decl) != want_rets && !(ret_decl.is_empty() && which == Syscall::Vprintf)) {
                    return self.error(format!(
                        "`{}` is declared with parameter sizes {:?} and return sizes {:?}; the system call takes {want_args:?} and returns {want_rets:?} (PTX Interoperability chapter 3)",
                        self.syms_name(f),
                        sizes(&params),
                        sizes(&ret_decl)
                    ));
                }
                return Ok(Op::Syscall { which, args, rets });
            }
        }
        Ok(Op::Call { target: ct, args, rets })
    }
}
