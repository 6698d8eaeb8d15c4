//! Blocks, `let`, and control flow to basic blocks.
//!
//! `if`, `match`, `loop` and labelled blocks with a value write it into registers allocated
//! for the result (each branch `mov`s into them; the move coalescer folds the `mov` into the
//! instruction that computed the value). `for` keeps its own counter, so assigning the loop
//! variable (`for mut i`) does not change the iteration, as in Rust.

use super::panic::Check;
use super::value::{class_of, int_imm, Space, Val};
use super::{LoopTarget, Lowerer};
use crate::front::hir::{Arm, Block, BinOp, Expr, ExprKind, ForRange, LetPat, LocalId, LoopId, Pat, Stmt};
use crate::front::ty::{Len, Ty};
use crate::ir::{Arg, Arith, Cmp, EntryFact, ForLoop, Imm, Mode, Opcode, RegClass, Term, Type};
use proc_macro2::Span;
use ptx_abi::Scalar;

impl<'a, 'e> Lowerer<'a, 'e> {
    pub fn block(&mut self, b: &Block) -> Val {
        let outer_scope = self.debug_enter(b);
        let v = self.block_stmts(b);
        self.debug_scope = outer_scope;
        v
    }

    fn block_stmts(&mut self, b: &Block) -> Val {
        // Each statement's errors are its own (see `Lowerer::error`): a failed statement hides
        // nothing in the next, and the enclosing statement knows one failed.
        let outer_failed = self.stmt_failed;
        let mut failed = false;
        for s in &b.stmts {
            self.stmt_failed = false;
            self.stmt(s);
            failed |= self.stmt_failed;
        }
        self.stmt_failed = outer_failed;
        let v = match &b.tail {
            Some(t) => self.expr(t),
            None if !self.b.is_open() => Val::Never,
            None => Val::Unit,
        };
        self.stmt_failed |= failed;
        v
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { pat: LetPat::Bind(id), init: Some(Expr { kind: ExprKind::Repeat(x, Len::Const(n)), .. }), span } => {
                let v = self.const_len_array(x, n, *span);
                if matches!(v, Val::Never) {
                    return;
                }
                self.slots[*id] = Some(v);
            }
            Stmt::Let { pat, init, span } => {
                let outer_loc = self.b.set_loc(*span);
                let v = init.as_ref().map(|e| self.expr(e));
                if !matches!(v, Some(Val::Never)) {
                    self.bind(pat, v, *span);
                }
                if self.stmt_failed {
                    self.failed_binding(pat);
                }
                self.b.loc = outer_loc;
            }
            Stmt::Expr(e) => {
                self.expr(e);
            }
        }
    }

    /// Binds a pattern to a value (`None`: `let x;`, assigned later).
    fn bind(&mut self, pat: &LetPat, v: Option<Val>, span: Span) {
        match pat {
            LetPat::Wild => {}
            LetPat::Bind(id) => self.bind_local(*id, v, span),
            LetPat::Fields(fields) => {
                let v = v.map(|v| self.stabilize(v));
                for (i, p) in fields {
                    self.bind(p, v.as_ref().map(|v| v.field(*i)), span);
                }
            }
        }
    }

    pub fn bind_local(&mut self, id: LocalId, v: Option<Val>, span: Span) {
        self.debug_bound(id);
        let local = &self.cx.body.locals[id];
        let ty = self.ty(&local.ty.clone());
        if local.in_memory {
            let addr = self.local_array(&ty, span);
            if let Some(v) = &v {
                self.store(&addr, Space::Local, 0, &ty, v, span);
            }
            self.slots[id] = Some(Val::Ptr(addr, Space::Local));
            return;
        }
        let mutable = local.mutable || v.is_none();
        match v {
            Some(v @ Val::Opaque(_)) => self.slots[id] = Some(v),
            Some(v) if !mutable => {
                let v = self.stabilize(v);
                self.debug_constant(id, &ty, &v);
                self.slots[id] = Some(v);
            }
            v => {
                let hint = match (self.facts.space.get(&id), &v) {
                    (Some(s), Some(v)) => Some(respace(v, *s)),
                    (Some(s), None) => Some(space_hint(&ty, *s)),
                    (None, v) => v.clone(),
                };
                let regs = self.fresh(&ty, hint.as_ref());
                let mut rs = Vec::new();
                regs.regs(&mut rs);
                self.mutable_regs.extend(rs);
                if let Some(v) = v {
                    self.move_into(&regs, &v, Some(id));
                    self.debug_copy(&v, &regs);
                }
                self.slots[id] = Some(regs);
            }
        }
    }

    /// Registers for the value of an `if`/`match`/`loop` of type `ty` (none for `()`/`!`).
    fn result_regs(&mut self, ty: &Ty) -> Option<Val> {
        match self.ty(ty) {
            Ty::Unit | Ty::Never | Ty::Error => None,
            t => Some(self.fresh(&t, None)),
        }
    }

    fn finish_branch(&mut self, result: &Option<Val>, v: Val, join: crate::ir::BlockId) {
        if self.b.is_open() {
            if let (Some(r), false) = (result, matches!(v, Val::Never)) {
                self.move_into(r, &v, None);
            }
            self.b.terminate(Term::Jump(join));
        }
    }

    pub fn if_expr(&mut self, cond: &Expr, then: &Block, els: Option<&Expr>, ty: &Ty) -> Val {
        if let Some(v) = self.select(cond, then, els, ty) {
            return v;
        }
        let c = self.expr(cond);
        if matches!(c, Val::Never) {
            return Val::Never;
        }
        let p = self.pred(&c);
        let result = self.result_regs(ty);
        let then_b = self.b.new_block();
        let else_b = els.map(|_| self.b.new_block());
        let join = self.b.new_block();
        self.b.terminate(Term::Branch { pred: p, negate: false, if_true: then_b, if_false: else_b.unwrap_or(join) });
        self.b.switch_to(then_b);
        let v = self.block(then);
        self.finish_branch(&result, v, join);
        if let (Some(e), Some(eb)) = (els, else_b) {
            self.b.switch_to(eb);
            let v = self.expr(e);
            self.finish_branch(&result, v, join);
        }
        self.b.switch_to(join);
        if matches!(self.ty(ty), Ty::Never) {
            self.b.terminate(Term::Trap);
            return Val::Never;
        }
        result.unwrap_or(Val::Unit)
    }

    /// `if c { a } else { b }` choosing between two scalar values that are cheap and cannot
    /// fail or write (`arith::is_cheap_and_safe`): both computed, one kept by `selp`, as nvcc
    /// compiles `c ? a : b`. A branch there costs two or three predicated moves in SASS where
    /// the select is one instruction. `None`: not such an `if`, nothing lowered.
    fn select(&mut self, cond: &Expr, then: &Block, els: Option<&Expr>, ty: &Ty) -> Option<Val> {
        let Ty::Scalar(s) = self.ty(ty) else { return None };
        if matches!(s, Scalar::Bool | Scalar::F16 | Scalar::BF16) {
            return None;
        }
        let a = arm_value(then)?;
        let b = match &els?.kind {
            ExprKind::Block(block) => arm_value(block)?,
            _ => els?,
        };
        if !super::arith::is_cheap_and_safe(a) || !super::arith::is_cheap_and_safe(b) {
            return None;
        }
        let c = self.expr(cond);
        if matches!(c, Val::Never) {
            return Some(Val::Never);
        }
        let p = self.pred(&c);
        let (va, vb) = (self.expr(a), self.expr(b));
        let r = self.reg(class_of(s));
        self.b.op_into(Opcode::Selp(super::value::int_type(s)), r, vec![va.arg(), vb.arg(), Arg::Reg(p)]);
        Some(Val::S(Arg::Reg(r)))
    }

    pub fn loop_expr(&mut self, body: &Block, id: LoopId, ty: &Ty) -> Val {
        let result = self.result_regs(ty);
        let head = self.b.new_block();
        let exit = self.b.new_block();
        self.loops.insert(id, LoopTarget { brk: exit, cont: Some(head), result: result.clone() });
        self.b.jump_to(head);
        self.block(body);
        self.b.terminate(Term::Jump(head));
        self.b.switch_to(exit);
        if matches!(self.ty(ty), Ty::Never) {
            self.b.terminate(Term::Trap);
            return Val::Never;
        }
        result.unwrap_or(Val::Unit)
    }

    pub fn while_expr(&mut self, cond: &Expr, body: &Block, id: LoopId) -> Val {
        let head = self.b.new_block();
        let body_b = self.b.new_block();
        let exit = self.b.new_block();
        self.loops.insert(id, LoopTarget { brk: exit, cont: Some(head), result: None });
        self.b.jump_to(head);
        let c = self.expr(cond);
        if !matches!(c, Val::Never) {
            let p = self.pred(&c);
            self.b.terminate(Term::Branch { pred: p, negate: false, if_true: body_b, if_false: exit });
        }
        self.b.switch_to(body_b);
        self.block(body);
        self.b.terminate(Term::Jump(head));
        self.b.switch_to(exit);
        Val::Unit
    }

    pub fn labeled(&mut self, body: &Block, id: LoopId, ty: &Ty) -> Val {
        let result = self.result_regs(ty);
        let exit = self.b.new_block();
        self.loops.insert(id, LoopTarget { brk: exit, cont: None, result: result.clone() });
        let v = self.block(body);
        self.finish_branch(&result, v, exit);
        self.b.switch_to(exit);
        result.unwrap_or(Val::Unit)
    }

    pub fn break_expr(&mut self, id: LoopId, value: Option<&Expr>) -> Val {
        let v = value.map(|e| self.expr(e));
        if matches!(v, Some(Val::Never)) || !self.b.is_open() {
            return Val::Never;
        }
        let Some(t) = self.loops.get(&id) else { return Val::Never };
        let (brk, result) = (t.brk, t.result.clone());
        if let (Some(r), Some(v)) = (result, v) {
            self.move_into(&r, &v, None);
        }
        self.b.terminate(Term::Jump(brk));
        Val::Never
    }

    pub fn continue_expr(&mut self, id: LoopId) -> Val {
        if let Some(LoopTarget { cont: Some(c), .. }) = self.loops.get(&id) {
            let c = *c;
            self.b.terminate(Term::Jump(c));
        }
        Val::Never
    }

    /// `for var in range { body }`.
    pub fn for_expr(&mut self, var: LocalId, r: &ForRange, body: &Block, id: LoopId, span: Span) -> Val {
        let Ty::Scalar(s) = self.ty(&r.start.ty) else { return Val::Unit };
        let c = class_of(s);
        let t = super::value::int_type(s);
        let w = super::value::reg_width(s);
        let u = Type::u(w);
        let bits = super::value::reg_bits(s);
        let start = self.expr(&r.start);
        let start = self.stabilize(start);
        let end = self.expr(&r.end);
        let end = self.stabilize(end);
        let step = match &r.step {
            Some(e) => {
                let v = self.expr(e);
                let v = self.stabilize(v);
                let p = self.b.op1(Opcode::Setp(Cmp::Eq, Type::U64), RegClass::Pred, vec![v.arg(), Arg::imm(0)]);
                self.check_fails_if(p, Check::ZeroStep);
                // The step is a `usize`; steps beyond the range type's width end the loop after
                // the first element, as they do in Rust.
                if s.bits() == 64 {
                    Some(v.arg())
                } else {
                    let max = (1u64 << s.bits()) - 1;
                    let clamped = self.b.op1(Opcode::arith(Arith::Min, Type::U64), RegClass::B64, vec![v.arg(), Arg::imm(max as i64)]);
                    let nv = self.convert(&Val::S(Arg::Reg(clamped)), Scalar::U64, unsigned(s));
                    Some(nv.arg())
                }
            }
            None => None,
        };
        if matches!(start, Val::Never) || matches!(end, Val::Never) {
            return Val::Never;
        }
        let counter = self.reg(c);
        let head = self.b.new_block();
        let body_b = self.b.new_block();
        let next = self.b.new_block();
        let exit = self.b.new_block();
        let (a, b) = (start.arg(), end.arg());
        // First value, and whether the range is empty.
        let empty = if r.inclusive { Opcode::Setp(Cmp::Gt, t) } else { Opcode::Setp(Cmp::Ge, t) };
        let empty = self.b.op1(empty, RegClass::Pred, vec![a.clone(), b.clone()]);
        let first = match (r.rev, &step, r.step_first) {
            (false, _, _) => a.clone(),
            (true, None, _) | (true, Some(_), false) => {
                if r.inclusive {
                    b.clone()
                } else {
                    Arg::Reg(self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![b.clone(), Arg::imm(1)]))
                }
            }
            (true, Some(st), true) => {
                // `(a..b).step_by(s).rev()` starts at the last element a + ((b - 1 - a) / s) * s.
                let span_len = self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![b.clone(), a.clone()]);
                let last_off = if r.inclusive {
                    span_len
                } else {
                    self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![Arg::Reg(span_len), Arg::imm(1)])
                };
                let q = self.b.op1(Opcode::arith(Arith::Div, u), c, vec![Arg::Reg(last_off), st.clone()]);
                let m = self.b.op1(Opcode::Arith(Arith::Mul, Mode::Lo, Type::s(w)), c, vec![Arg::Reg(q), st.clone()]);
                Arg::Reg(self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![a.clone(), Arg::Reg(m)]))
            }
        };
        self.mov(counter, first);
        self.b.terminate(Term::Branch { pred: empty, negate: false, if_true: exit, if_false: head });
        self.b.switch_to(head);
        self.b.jump_to(body_b);
        // The loop variable: the counter itself, or a copy when the body may assign it.
        let mutable = self.cx.body.locals[var].mutable;
        let v = if mutable { None } else { Some(Val::S(Arg::Reg(counter))) };
        if mutable {
            self.bind_local(var, Some(Val::S(Arg::Reg(counter))), span);
        } else {
            self.debug_bound(var);
            self.slots[var] = v;
        }
        self.mutable_regs.insert(counter);
        // A range with an excluded end, with a variable the body cannot assign: the header is
        // entered only with `counter < end`. Counting up: from the emptiness test, or the test
        // at the end of the previous trip (which for a `step_by` also fails when the sum
        // wraps). Counting down (`rev`): the first value is at most `end - 1` and the counter
        // only decreases, stopping at the start. `end` is stable (copied if it was a mutable
        // local's).
        if !r.inclusive && !mutable {
            let up_by_one = !r.rev && step.is_none();
            self.b.func.entry_facts.push(EntryFact { block: head, reg: counter, ty: t, bound: b.clone(), up_by_one });
        }
        self.loops.insert(id, LoopTarget { brk: exit, cont: Some(next), result: None });
        self.block(body);
        self.b.terminate(Term::Jump(next));
        self.b.switch_to(next);
        // Whether this was the last element, computed without overflowing past the end.
        let done = match (r.rev, &step) {
            (false, None) if !r.inclusive => {
                let n = self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![Arg::Reg(counter), Arg::imm(1)]);
                self.mov(counter, Arg::Reg(n));
                let p = self.b.op1(Opcode::Setp(Cmp::Lt, t), RegClass::Pred, vec![Arg::Reg(counter), b.clone()]);
                self.b.terminate(Term::Branch { pred: p, negate: false, if_true: head, if_false: exit });
                self.b.func.for_loops.push(ForLoop { next, exit });
                self.b.switch_to(exit);
                return Val::Unit;
            }
            (false, Some(st)) if !r.inclusive && !t.is_signed() => {
                // `counter + step < end`, as `next < end && next >= step` with `next` the
                // wrapping sum (it wrapped exactly when it is below the step): the form in
                // which ptxas sees the trip count and unrolls a short loop (docs/performance.md,
                // "Unrolled short loops").
                let n = self.b.op1(Opcode::arith(Arith::Add, Type::s(w)), c, vec![Arg::Reg(counter), st.clone()]);
                self.mov(counter, Arg::Reg(n));
                let below = self.b.op1(Opcode::Setp(Cmp::Lt, u), RegClass::Pred, vec![Arg::Reg(counter), b.clone()]);
                let no_wrap = self.b.op1(Opcode::Setp(Cmp::Ge, u), RegClass::Pred, vec![Arg::Reg(counter), st.clone()]);
                let p = self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(below), Arg::Reg(no_wrap)]);
                self.b.terminate(Term::Branch { pred: p, negate: false, if_true: head, if_false: exit });
                self.b.func.for_loops.push(ForLoop { next, exit });
                self.b.switch_to(exit);
                return Val::Unit;
            }
            (false, None) => self.b.op1(Opcode::Setp(Cmp::Eq, bits), RegClass::Pred, vec![Arg::Reg(counter), b.clone()]),
            (true, None) => self.b.op1(Opcode::Setp(Cmp::Eq, bits), RegClass::Pred, vec![Arg::Reg(counter), a.clone()]),
            (false, Some(st)) => {
                // Remaining distance to the end (inclusive: to the last value).
                let rem = self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![b.clone(), Arg::Reg(counter)]);
                let cmp = if r.inclusive { Cmp::Lt } else { Cmp::Le };
                self.b.op1(Opcode::Setp(cmp, u), RegClass::Pred, vec![Arg::Reg(rem), st.clone()])
            }
            (true, Some(st)) => {
                let rem = self.b.op1(Opcode::arith(Arith::Sub, Type::s(w)), c, vec![Arg::Reg(counter), a.clone()]);
                self.b.op1(Opcode::Setp(Cmp::Lt, u), RegClass::Pred, vec![Arg::Reg(rem), st.clone()])
            }
        };
        let advance = self.b.new_block();
        self.b.terminate(Term::Branch { pred: done, negate: false, if_true: exit, if_false: advance });
        self.b.switch_to(advance);
        let delta = step.clone().unwrap_or(Arg::imm(1));
        let op = if r.rev { Arith::Sub } else { Arith::Add };
        let n = self.b.op1(Opcode::arith(op, Type::s(w)), c, vec![Arg::Reg(counter), delta]);
        self.mov(counter, Arg::Reg(n));
        self.b.terminate(Term::Jump(head));
        self.b.func.for_loops.push(ForLoop { next, exit });
        self.b.switch_to(exit);
        Val::Unit
    }

    /// A short constant range, unrolled: the body once per value, the variable a constant.
    pub fn unrolled_for(&mut self, var: LocalId, ty: &Ty, values: &[i128], body: &Block, id: LoopId, span: Span) -> Val {
        let Ty::Scalar(s) = self.ty(ty) else { return Val::Unit };
        let exit = self.b.new_block();
        for v in values {
            let next = self.b.new_block();
            self.loops.insert(id, LoopTarget { brk: exit, cont: Some(next), result: None });
            self.bind_local(var, Some(Val::S(int_imm(*v as u128, s))), span);
            self.block(body);
            self.b.terminate(Term::Jump(next));
            self.b.switch_to(next);
        }
        self.b.jump_to(exit);
        Val::Unit
    }

    pub fn match_expr(&mut self, scrut: &Expr, arms: &[Arm], ty: &Ty) -> Val {
        let sv = self.expr(scrut);
        if matches!(sv, Val::Never) {
            return Val::Never;
        }
        let sv = self.stabilize(sv);
        let Ty::Scalar(s) = self.ty(&scrut.ty) else { return Val::Unit };
        let result = self.result_regs(ty);
        let join = self.b.new_block();
        for arm in arms {
            let body_b = self.b.new_block();
            let next_arm = self.b.new_block();
            for (i, pat) in arm.pats.iter().enumerate() {
                let next_pat = if i + 1 == arm.pats.len() { next_arm } else { self.b.new_block() };
                match self.pattern_test(pat, s, &sv) {
                    None => {
                        self.b.terminate(Term::Jump(body_b));
                    }
                    Some(p) => self.b.terminate(Term::Branch { pred: p, negate: false, if_true: body_b, if_false: next_pat }),
                }
                self.b.switch_to(next_pat);
            }
            if arm.pats.is_empty() {
                self.b.terminate(Term::Jump(next_arm));
            }
            self.b.switch_to(body_b);
            if let Some(b) = arm.binding {
                self.slots[b] = Some(sv.clone());
            }
            if let Some(g) = &arm.guard {
                let gv = self.expr(g);
                if !matches!(gv, Val::Never) {
                    let p = self.pred(&gv);
                    let guarded = self.b.new_block();
                    self.b.terminate(Term::Branch { pred: p, negate: false, if_true: guarded, if_false: next_arm });
                    self.b.switch_to(guarded);
                }
            }
            let v = self.expr(&arm.body);
            self.finish_branch(&result, v, join);
            self.b.switch_to(next_arm);
        }
        // Exhaustive matches never get here.
        self.b.terminate(Term::Trap);
        self.b.switch_to(join);
        if matches!(self.ty(ty), Ty::Never) {
            self.b.terminate(Term::Trap);
            return Val::Never;
        }
        result.unwrap_or(Val::Unit)
    }

    /// A predicate that holds when `v` matches `pat` (`None`: always matches).
    fn pattern_test(&mut self, pat: &Pat, s: Scalar, v: &Val) -> Option<crate::ir::Reg> {
        let imm = |x: i128| Val::S(int_imm(x as u128, s));
        match pat {
            Pat::Wild => None,
            Pat::Int(x) => Some(self.compare(BinOp::Eq, s, v, &imm(*x))),
            Pat::Const(t) => {
                let c = self.constant_of(t, s);
                Some(self.compare(BinOp::Eq, s, v, &c))
            }
            Pat::Bool(b) => {
                let p = self.pred(v);
                Some(if *b { p } else { self.b.op1(Opcode::arith(Arith::Not, Type::Pred), RegClass::Pred, vec![Arg::Reg(p)]) })
            }
            Pat::Range { lo, hi, inclusive } => {
                let lo_p = lo.map(|l| self.compare(BinOp::Ge, s, v, &imm(l)));
                let hi_p = hi.map(|h| self.compare(if *inclusive { BinOp::Le } else { BinOp::Lt }, s, v, &imm(h)));
                match (lo_p, hi_p) {
                    (Some(a), Some(b)) => Some(self.b.op1(Opcode::arith(Arith::And, Type::Pred), RegClass::Pred, vec![Arg::Reg(a), Arg::Reg(b)])),
                    (Some(a), None) | (None, Some(a)) => Some(a),
                    (None, None) => None,
                }
            }
        }
    }

    /// Returns `v` from the function.
    pub fn ret(&mut self, v: Val, span: Span) {
        if !self.b.is_open() || matches!(v, Val::Never) {
            return;
        }
        if self.cx.kind == crate::syntax::signature::FnKind::Device {
            let ty = self.ret_ty.clone();
            self.store_return(&ty, &v, span);
        }
        self.b.terminate(Term::Ret);
    }
}

fn unsigned(s: Scalar) -> Scalar {
    match s {
        Scalar::I8 => Scalar::U8,
        Scalar::I16 => Scalar::U16,
        Scalar::I32 => Scalar::U32,
        Scalar::I64 => Scalar::U64,
        s => s,
    }
}

/// A value of type `ty` whose pointers are in `space` (a hint for fresh registers).
/// The initial value `v` of a local learned to hold addresses of several spaces, as the
/// hint for its registers: every pointer in it generic (`Space::Generic`), or every global one
/// without `.nc` (`Space::Global { nc: false }`).
fn respace(v: &Val, space: Space) -> Val {
    match v {
        Val::Ptr(a, old) => {
            let s = match (space, old) {
                (Space::Generic, _) => Space::Generic,
                (Space::Global { nc: false }, Space::Global { .. }) => space,
                _ => *old,
            };
            Val::Ptr(a.clone(), s)
        }
        Val::Agg(vs) => Val::Agg(vs.iter().map(|v| respace(v, space)).collect()),
        other => other.clone(),
    }
}

fn space_hint(ty: &Ty, space: Space) -> Val {
    match ty {
        Ty::Ptr { .. } => Val::Ptr(Arg::Imm(Imm::Int(0)), space),
        Ty::Slice { .. } => Val::Agg(vec![Val::Ptr(Arg::Imm(Imm::Int(0)), space), Val::Unit]),
        _ => Val::Unit,
    }
}

/// The value of a block with no statements: its tail.
fn arm_value(block: &Block) -> Option<&Expr> {
    if block.stmts.is_empty() {
        block.tail.as_deref()
    } else {
        None
    }
}
