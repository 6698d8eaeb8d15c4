//! Blocks, statements and control flow: `let`, `if`, `while`, `loop`, `for`, `break` (with a
//! value and labels), `continue`, `return`, `match`.

use crate::syntax::first_token::FirstToken;
use super::hir::{Block, Expr, ExprKind, ForRange, Stmt};
use super::infer::VarKind;
use super::ty::Ty;
use super::{unsupported, Checker, Position};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl<'a> Checker<'a> {
    /// A block whose value must have type `expected`.
    pub fn block(&mut self, b: &syn::Block, expected: &Ty) -> Block {
        self.push_scope();
        let mut out = Block::default();
        let mut diverges = false;
        let n = b.stmts.len();
        for (i, stmt) in b.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                syn::Stmt::Local(l) => {
                    if let Some(stmts) = self.natural_let(l) {
                        out.stmts.extend(stmts);
                    } else if let Some(s) = self.let_stmt(l) {
                        out.stmts.push(s);
                    }
                }
                syn::Stmt::Item(item) => {
                    if let Some(s) = self.item_stmt(item) {
                        out.stmts.push(s);
                    }
                }
                syn::Stmt::Expr(e, None) if last => {
                    let x = self.tail_expr(e);
                    self.expect(x.span, expected, &x.ty);
                    out.tail = Some(Box::new(x));
                }
                syn::Stmt::Expr(e, semi) => {
                    let x = self.expr(e);
                    if semi.is_none() {
                        // A block-like expression statement (`if`, `loop`, ...) has type `()`.
                        self.expect(x.span, &Ty::Unit, &x.ty);
                    }
                    diverges |= matches!(self.shallow(&x.ty), Ty::Never);
                    out.stmts.push(Stmt::Expr(x));
                }
                syn::Stmt::Macro(m) => {
                    let x = self.macro_stmt(&m.mac);
                    out.stmts.push(Stmt::Expr(x));
                }
            }
        }
        if out.tail.is_none() {
            let span = b.brace_token.span.close();
            if !diverges && self.infer.unify(expected, &Ty::Unit).is_err() {
                let e = self.infer.resolve(expected);
                self.errors.at(span, format!("mismatched types: this block has no value, but `{e}` is expected here"));
            }
            if diverges {
                out.tail = Some(Box::new(Expr { kind: ExprKind::Unit, ty: Ty::Never, span }));
            }
        }
        self.pop_scope();
        out
    }

    fn macro_stmt(&mut self, m: &syn::Macro) -> Expr {
        let e = syn::Expr::Macro(syn::ExprMacro { attrs: Vec::new(), mac: m.clone() });
        self.expr(&e)
    }

    /// The value of a block or of `return`: a bare parameter of a type not described yet may be
    /// passed along whole.
    fn tail_expr(&mut self, e: &syn::Expr) -> Expr {
        let bare_path = matches!(super::expr::strip(e), syn::Expr::Path(_));
        self.opaque_ok = bare_path;
        let x = self.expr(e);
        self.opaque_ok = false;
        x
    }

    fn item_stmt(&mut self, item: &syn::Item) -> Option<Stmt> {
        match item {
            syn::Item::Const(c) => {
                // `const N: T = expr;` inside the body: an immutable binding.
                let ty = self.resolve_type(&c.ty, Position::Body);
                let init = self.expr(&c.expr);
                self.expect(init.span, &ty, &init.ty);
                let name = c.ident.to_string();
                let id = self.declare(&name, ty, false, c.ident.span());
                if let ExprKind::Int(v) = init.kind {
                    self.local_consts.insert(name, v as u64);
                }
                Some(Stmt::Let { pat: super::hir::LetPat::Bind(id), init: Some(init), span: c.span() })
            }
            syn::Item::Use(u) => {
                self.errors.error(u, "`use` inside a device function body is not visible to the device compiler; move the `use` to the enclosing module");
                None
            }
            other => {
                self.errors.error(other, "items inside device function bodies are not supported; define them outside the function");
                None
            }
        }
    }

    pub fn let_stmt(&mut self, l: &syn::Local) -> Option<Stmt> {
        let span = l.first_span();
        let (pat, annotated) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(self.resolve_type(&pt.ty, Position::Body))),
            p => (p, None),
        };
        let mut init = None;
        if let Some(i) = &l.init {
            if i.diverge.is_some() {
                return self.let_else(l, i);
            }
            let typed_into = annotated.as_ref().and_then(|t| self.into_let(&i.expr, t));
            init = Some(typed_into.unwrap_or_else(|| self.expr(&i.expr)));
        }
        let ty = annotated.unwrap_or_else(|| self.var(VarKind::General));
        if let Some(x) = &init {
            self.expect(x.span, &ty, &x.ty);
        }
        let pat = self.let_pattern(pat, &ty, init.is_none());
        self.mark_view(l, &pat);
        Some(Stmt::Let { pat, init, span })
    }

    pub fn block_expr(&mut self, b: &syn::ExprBlock) -> Expr {
        let span = b.first_span();
        match &b.label {
            None => {
                let ty = self.var(VarKind::General);
                let block = self.block(&b.block, &ty);
                Expr { kind: ExprKind::Block(block), ty, span }
            }
            Some(label) => {
                let ty = self.var(VarKind::General);
                let id = self.enter_loop(Some(label), ty.clone(), false);
                let block = self.block(&b.block, &ty);
                self.exit_loop();
                Expr { kind: ExprKind::Labeled { body: block, id }, ty, span }
            }
        }
    }

    pub fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let span = i.first_span();
        if let Some((chain, c, usage)) = super::iter_chain::if_let(i) {
            return self.chain_consume(&chain, &c, Some(&usage), span);
        }
        if let syn::Expr::Let(l) = &*i.cond {
            return self.if_let(i, l);
        }
        let cond = self.expr(&i.cond);
        self.expect(cond.span, &Ty::bool(), &cond.ty);
        match &i.else_branch {
            None => {
                let then = self.block(&i.then_branch, &Ty::Unit);
                Expr { kind: ExprKind::If { cond: Box::new(cond), then, els: None }, ty: Ty::Unit, span }
            }
            Some((_, els)) => {
                let ty = self.var(VarKind::General);
                let then = self.block(&i.then_branch, &ty);
                let e = self.expr(els);
                self.expect(e.span, &ty, &e.ty);
                // Both branches diverge: so does the `if`.
                let then_never = then.tail.as_ref().is_some_and(|t| matches!(self.shallow(&t.ty), Ty::Never));
                let ty = if then_never && matches!(self.shallow(&e.ty), Ty::Never) { Ty::Never } else { ty };
                Expr { kind: ExprKind::If { cond: Box::new(cond), then, els: Some(Box::new(e)) }, ty, span }
            }
        }
    }

    pub fn while_expr(&mut self, w: &syn::ExprWhile) -> Expr {
        let span = w.first_span();
        if let syn::Expr::Let(l) = &*w.cond {
            return self.while_let(w, l);
        }
        let cond = self.expr(&w.cond);
        self.expect(cond.span, &Ty::bool(), &cond.ty);
        let id = self.enter_loop(w.label.as_ref(), Ty::Unit, true);
        let body = self.block(&w.body, &Ty::Unit);
        self.exit_loop();
        Expr { kind: ExprKind::While { cond: Box::new(cond), body, id }, ty: Ty::Unit, span }
    }

    pub fn loop_expr(&mut self, l: &syn::ExprLoop) -> Expr {
        let span = l.first_span();
        let ty = self.var(VarKind::General);
        let id = self.enter_loop(l.label.as_ref(), ty.clone(), true);
        let body = self.block(&l.body, &Ty::Unit);
        let broken = self.exit_loop();
        let ty = if broken { ty } else { Ty::Never };
        Expr { kind: ExprKind::Loop { body, id }, ty, span }
    }

    pub fn for_expr(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = f.first_span();
        if !super::iter_chain::is_plain_range(&f.expr) {
            if let Some(chain) = super::iter_chain::parse(&f.expr, true) {
                return self.chain_for(f, &chain);
            }
        }
        let Some(range) = self.for_range(&f.expr) else { return self.error_expr(span) };
        self.push_scope();
        let var = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                self.declare(&pi.ident.to_string(), range.start.ty.clone(), pi.mutability.is_some(), pi.ident.span())
            }
            syn::Pat::Wild(w) => self.declare("_", range.start.ty.clone(), false, w.span()),
            p => {
                self.errors.error(p, "`for` loops bind one name (`for i in a..b`); destructure inside the loop body");
                self.declare("_", Ty::Error, false, p.span())
            }
        };
        let values = constant_range(&range);
        if values.is_some() {
            self.unroll_candidates.insert(var, false);
        }
        let id = self.enter_loop(f.label.as_ref(), Ty::Unit, true);
        let body = self.block(&f.body, &Ty::Unit);
        self.exit_loop();
        self.pop_scope();
        let unroll = if self.unroll_candidates.remove(&var) == Some(true) { values } else { None };
        Expr { kind: ExprKind::For { var, range: Box::new(range), body, id, unroll }, ty: Ty::Unit, span }
    }

    /// `a..b`, `a..=b`, `(a..b).rev()`, `(a..b).step_by(s)` and both, in either order.
    fn for_range(&mut self, e: &syn::Expr) -> Option<ForRange> {
        let mut e = super::expr::strip(e);
        let mut ops = Vec::new();
        while let syn::Expr::MethodCall(m) = e {
            match m.method.to_string().as_str() {
                "rev" if m.args.is_empty() => ops.push((true, None)),
                "step_by" if m.args.len() == 1 => ops.push((false, Some(&m.args[0]))),
                "iter" | "iter_mut" | "into_iter" | "enumerate" | "zip" | "map" | "filter" | "chunks" | "windows" | "skip" | "take" => {
                    self.errors.error(&m.method, unsupported::ITERATOR);
                    return None;
                }
                _ => {
                    self.errors.error(&m.method, "`for` loops iterate over integer ranges, optionally with `.rev()` and `.step_by(n)`");
                    return None;
                }
            }
            e = super::expr::strip(&m.receiver);
        }
        ops.reverse();
        let syn::Expr::Range(r) = e else {
            self.errors.error(e, format!("`for` loops iterate over integer ranges (`for i in a..b`); {}", unsupported::ITERATOR));
            return None;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.errors.error(r, "`for` loops need a range with both bounds (`a..b` or `a..=b`)");
            return None;
        };
        let start = self.expr(start);
        let end = self.expr(end);
        self.expect(end.span, &start.ty, &end.ty);
        let t = self.shallow(&start.ty);
        let is_int = match &t {
            Ty::Var(v) => self.infer.kind_of(*v) != VarKind::Float,
            Ty::Error => true,
            t => t.is_integer(),
        };
        if !is_int {
            self.errors.at(start.span, "`for` ranges are over integers");
            return None;
        }
        let mut rev = false;
        let mut step = None;
        let mut step_first = false;
        for (is_rev, s) in ops {
            if is_rev {
                if rev {
                    self.errors.error(e, "`.rev()` twice is not supported; remove both");
                    return None;
                }
                rev = true;
                step_first = step.is_some();
            } else if let Some(s) = s {
                if step.is_some() {
                    self.errors.error(s, "`.step_by()` twice is not supported; multiply the steps");
                    return None;
                }
                let x = self.expr(s);
                self.expect(x.span, &Ty::usize(), &x.ty);
                step = Some(x);
            }
        }
        Some(ForRange { start, end, inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)), rev, step, step_first })
    }

    fn find_loop(&mut self, label: Option<&syn::Lifetime>, span: Span, is_continue: bool) -> Option<usize> {
        let found = match label {
            Some(l) => {
                let name = l.ident.to_string();
                self.loops.iter().rposition(|s| s.label.as_deref() == Some(name.as_str()))
            }
            None => self.loops.iter().rposition(|s| s.is_loop),
        };
        match found {
            None => {
                self.errors.at(span, if label.is_some() { "no enclosing loop or block has this label" } else { "`break`/`continue` outside of a loop" });
                None
            }
            Some(i) if is_continue && !self.loops[i].is_loop => {
                self.errors.at(span, "`continue` cannot target a labelled block");
                None
            }
            Some(i) => Some(i),
        }
    }

    pub fn break_expr(&mut self, b: &syn::ExprBreak) -> Expr {
        let span = b.first_span();
        let value = b.expr.as_ref().map(|e| self.expr(e));
        let Some(i) = self.find_loop(b.label.as_ref(), span, false) else { return self.error_expr(span) };
        self.loops[i].broken = true;
        let break_ty = self.loops[i].break_ty.clone();
        let id = self.loops[i].id;
        match &value {
            Some(v) => self.expect(v.span, &break_ty, &v.ty),
            None => self.expect(span, &break_ty, &Ty::Unit),
        }
        Expr { kind: ExprKind::Break { id, value: value.map(Box::new) }, ty: Ty::Never, span }
    }

    pub fn continue_expr(&mut self, c: &syn::ExprContinue) -> Expr {
        let span = c.first_span();
        let Some(i) = self.find_loop(c.label.as_ref(), span, true) else { return self.error_expr(span) };
        let id = self.loops[i].id;
        Expr { kind: ExprKind::Continue { id }, ty: Ty::Never, span }
    }

    pub fn return_expr(&mut self, r: &syn::ExprReturn) -> Expr {
        let span = r.first_span();
        let ret = self.ret.clone();
        let value = r.expr.as_ref().map(|e| self.tail_expr(e));
        match &value {
            Some(v) => self.expect(v.span, &ret, &v.ty),
            None => self.expect(span, &ret, &Ty::Unit),
        }
        if let Some(id) = self.return_to {
            // A `&mut self` method: leave the body (its value, `()`, is evaluated first).
            let brk = Expr { kind: ExprKind::Break { id, value: None }, ty: Ty::Never, span };
            let stmts = value.into_iter().map(super::hir::Stmt::Expr).collect();
            return Expr { kind: ExprKind::Block(super::hir::Block { stmts, tail: Some(Box::new(brk)) }), ty: Ty::Never, span };
        }
        Expr { kind: ExprKind::Return(value.map(Box::new)), ty: Ty::Never, span }
    }

    /// A `match` arm's guard (a `bool`) and body (of the `match`'s type), checked in the scope
    /// its pattern opened.
    pub(super) fn arm_guard_and_body(&mut self, arm: &syn::Arm, ty: &Ty) -> (Option<Expr>, Expr) {
        let guard = arm.guard.as_ref().map(|(_, g)| {
            let g = self.expr(g);
            self.expect(g.span, &Ty::bool(), &g.ty);
            g
        });
        let body = self.expr(&arm.body);
        self.expect(body.span, ty, &body.ty);
        (guard, body)
    }

    pub fn match_expr(&mut self, m: &syn::ExprMatch) -> Expr {
        let span = m.first_span();
        if let Some((chain, c, usage)) = super::iter_chain::match_option(m) {
            return self.chain_consume(&chain, &c, Some(&usage), span);
        }
        let scrut = self.expr(&m.expr);
        let scrut = self.auto_deref_value(scrut);
        let scrut = self.enum_value(scrut);
        let st = self.describe(&scrut.ty, scrut.span);
        // A scrutinee of unknown type (a callee not fetched yet) binds its patterns' names
        // quietly there.
        if super::destructure::has_parts(&st) || matches!(st, Ty::Error) {
            return self.match_parts(scrut, m);
        }
        let ok = match &st {
            Ty::Var(v) => self.infer.kind_of(*v) != VarKind::Float,
            Ty::Error => true,
            t => t.is_integer() || t.is_bool() || t.c_enum().is_some(),
        };
        if !ok {
            return self.error(scrut.span, format!("`match` in device code is on integers and `bool`, not `{}`; compare with `if` instead", self.infer.resolve(&st)));
        }
        let ty = self.var(VarKind::General);
        let mut arms = Vec::new();
        let mut all_never = !m.arms.is_empty();
        for arm in &m.arms {
            self.push_scope();
            let (pats, binding) = self.match_pattern(&arm.pat, &scrut.ty);
            let (guard, body) = self.arm_guard_and_body(arm, &ty);
            all_never &= matches!(self.shallow(&body.ty), Ty::Never);
            self.pop_scope();
            arms.push(super::hir::Arm { pats, binding, guard, body });
        }
        let ty = if all_never { Ty::Never } else { ty };
        Expr { kind: ExprKind::Match { scrut: Box::new(scrut), arms }, ty, span }
    }
}

/// The values of a range with literal bounds and step, when there are at most 16.
fn constant_range(r: &ForRange) -> Option<Vec<i128>> {
    let lit = |e: &Expr| match e.kind {
        ExprKind::Int(v) => Some(v as i128),
        _ => None,
    };
    let (a, b) = (lit(&r.start)?, lit(&r.end)?);
    let step = match &r.step {
        Some(s) => lit(s)?,
        None => 1,
    };
    if step <= 0 {
        return None;
    }
    let last = if r.inclusive { b } else { b - 1 };
    if last < a || (last - a) / step >= 16 {
        return if last < a { Some(Vec::new()) } else { None };
    }
    let mut v: Vec<i128> = if r.rev && r.step_first {
        let top = a + (last - a) / step * step;
        (0..).map(|k| top - k * step).take_while(|x| *x >= a).collect()
    } else if r.rev {
        (0..).map(|k| last - k * step).take_while(|x| *x >= a).collect()
    } else {
        (0..).map(|k| a + k * step).take_while(|x| *x <= last).collect()
    };
    v.truncate(16);
    Some(v)
}
