//! `match` on values with parts (tuples, structs): each arm's pattern becomes a test of the
//! scrutinee's scalar parts and `let`s of the names it binds.
//!
//! ```text
//! match s { (0, y) if y > 2 => a, (x, _) => b }
//! ```
//! is checked as
//! ```text
//! { let s' = s; 'm: { if s'.0 == 0 { let y = s'.1; if y > 2 { break 'm a; } }
//!                    { let x = s'.0; b } } }
//! ```
//! A scalar part is tested by the scalar `match` of `pat.rs` (`match s'.0 { 0 => true, _ =>
//! false }`), so literals, ranges, variants and constants mean what they mean there. rustc has
//! checked that the arms are exhaustive: the last arm without a guard is taken without a test;
//! when the last arm has a guard, falling through it is `unreachable!()`.

use crate::syntax::first_token::FirstToken;
use super::hir::{Arm, Block, ExprKind, LetPat, LocalId, Panic, PanicWhen, Pat, Stmt};
use super::ty::{SumKind, Ty};
use super::{Checker, Expr};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// A part of the scrutinee: the local holding it and the member indices down to it.
#[derive(Clone)]
pub struct Part {
    root: LocalId,
    root_ty: Ty,
    path: Vec<(usize, Ty)>,
}

impl Part {
    pub fn ty(&self) -> Ty {
        self.path.last().map(|(_, t)| t.clone()).unwrap_or_else(|| self.root_ty.clone())
    }

    pub(super) fn member(&self, i: usize, ty: Ty) -> Part {
        let mut p = self.clone();
        p.path.push((i, ty));
        p
    }

    pub fn expr(&self, span: Span) -> Expr {
        let mut e = Expr { kind: ExprKind::Local(self.root), ty: self.root_ty.clone(), span };
        for (i, t) in &self.path {
            e = Expr { kind: ExprKind::Field(Box::new(e), *i), ty: t.clone(), span };
        }
        e
    }
}

/// What a pattern asks of a part: tests that must all hold, then names bound to parts.
#[derive(Default)]
pub struct Matched {
    pub tests: Vec<Expr>,
    pub binds: Vec<(LocalId, Part)>,
}

impl Matched {
    /// The tests joined with `&&` (`None`: the pattern always matches).
    pub fn test(self_tests: Vec<Expr>, span: Span) -> Option<Expr> {
        self_tests.into_iter().reduce(|a, b| Expr { kind: ExprKind::Logic { and: true, lhs: Box::new(a), rhs: Box::new(b) }, ty: Ty::bool(), span })
    }

    /// `let name = part;` for each binding.
    pub fn lets(binds: Vec<(LocalId, Part)>, span: Span) -> Vec<Stmt> {
        binds.into_iter().map(|(id, p)| Stmt::Let { pat: LetPat::Bind(id), init: Some(p.expr(span)), span }).collect()
    }
}

/// Whether a `match` on a value of this type is compiled here rather than as a scalar `match`.
pub fn has_parts(ty: &Ty) -> bool {
    matches!(ty, Ty::Tuple(_) | Ty::Struct(_) | Ty::Sum { .. }) && ty.c_enum().is_none()
}

impl<'a> Checker<'a> {
    /// A `match` whose scrutinee has parts (see the module comment).
    pub fn match_parts(&mut self, scrut: Expr, m: &syn::ExprMatch) -> Expr {
        let span = m.first_span();
        let sty = scrut.ty.clone();
        let root = self.declare(" scrutinee", sty.clone(), false, scrut.span);
        let whole = Part { root, root_ty: sty, path: Vec::new() };
        let ty = self.var(super::infer::VarKind::General);
        let id = self.next_loop;
        self.next_loop += 1;
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut all_never = !m.arms.is_empty();
        // A data-carrying enum's last arm is tested too: a tag no variant has traps.
        let tagged = super::enum_data::enum_def(&self.shallow(&whole.root_ty)).is_some();
        let arms = split_alternatives(&m.arms);
        for (k, arm) in arms.iter().enumerate() {
            self.push_scope();
            let mut got = Matched::default();
            self.pattern(&arm.pat, &whole, &mut got);
            let (guard, body) = self.arm_guard_and_body(arm, &ty);
            all_never &= matches!(self.shallow(&body.ty), Ty::Never);
            self.pop_scope();
            let aspan = arm.pat.span();
            let mut inner = Matched::lets(got.binds, aspan);
            let last = k + 1 == arms.len();
            let bspan = body.span;
            if last && guard.is_none() && !(tagged && !got.tests.is_empty()) {
                // rustc has checked exhaustiveness: whatever reaches the last arm matches it.
                tail = Some(Box::new(Expr { kind: ExprKind::Block(Block { stmts: inner, tail: Some(Box::new(body)) }), ty: ty.clone(), span: bspan }));
                break;
            }
            let brk = Expr { kind: ExprKind::Break { id, value: Some(Box::new(body)) }, ty: Ty::Never, span: bspan };
            match guard {
                Some(g) => inner.push(Stmt::Expr(if_then(g, vec![Stmt::Expr(brk)]))),
                None => inner.push(Stmt::Expr(brk)),
            }
            match Matched::test(got.tests, aspan) {
                Some(t) => stmts.push(Stmt::Expr(if_then(t, inner))),
                None => stmts.push(Stmt::Expr(Expr { kind: ExprKind::Block(Block { stmts: inner, tail: None }), ty: Ty::Unit, span: aspan })),
            }
        }
        let tail = tail.unwrap_or_else(|| {
            let message = quote::quote!("internal error: entered unreachable code");
            Box::new(Expr { kind: ExprKind::Panic(Box::new(Panic { when: PanicWhen::Always, message, span, debug: false })), ty: Ty::Never, span })
        });
        let ty = if all_never { Ty::Never } else { ty };
        let labeled = Expr { kind: ExprKind::Labeled { body: Block { stmts, tail: Some(tail) }, id }, ty: ty.clone(), span };
        let init = Stmt::Let { pat: LetPat::Bind(root), init: Some(scrut), span };
        Expr { kind: ExprKind::Block(Block { stmts: vec![init], tail: Some(Box::new(labeled)) }), ty, span }
    }

    /// Adds what `pat` asks of `part` to `got`.
    pub fn pattern(&mut self, pat: &syn::Pat, part: &Part, got: &mut Matched) {
        let bare = matches!(pat, syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none() && super::use_variants::looks_like_variant(&pi.ident));
        let ty = match pat {
            syn::Pat::Struct(_) | syn::Pat::TupleStruct(_) | syn::Pat::Tuple(_) | syn::Pat::Path(_) => self.describe(&part.ty(), pat.span()),
            _ if bare => self.describe(&part.ty(), pat.span()),
            _ => self.shallow(&part.ty()),
        };
        if let Ty::Error = ty {
            // Reported already, or waiting for a description: bind the names quietly.
            self.declare_pattern_names(pat);
            return;
        }
        match pat {
            syn::Pat::Wild(_) | syn::Pat::Rest(_) => {}
            syn::Pat::Paren(p) => self.pattern(&p.pat, part, got),
            syn::Pat::Ident(pi) if pi.ident == "None" && pi.subpat.is_none() && matches!(ty, Ty::Sum { .. }) => {
                let Ty::Sum { kind, args } = &ty else { return };
                self.variant_pattern_of(pat, "None", *kind, args, &[], part, got);
            }
            // A variant named alone (`Add`, `Empty`) on a value of its enum (see `enums`).
            syn::Pat::Ident(_) if bare && ty.c_enum().is_some() => self.scalar_test(pat, part, got),
            syn::Pat::Ident(pi) if bare && super::enum_data::enum_def(&ty).is_some() => {
                let Some(def) = super::enum_data::enum_def(&ty) else { return };
                let path = syn::Pat::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path: pi.ident.clone().into() });
                self.data_variant_pattern(&path, &def.clone(), part, got);
            }
            syn::Pat::Ident(pi) if !super::enums::names_a_constant(pi) => {
                if pi.by_ref.is_some() {
                    self.errors.error(pi, "`ref` bindings are not supported in device code; bind the value (`x`)");
                }
                let name = pi.ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                let id = self.declare(&name, part.ty(), pi.mutability.is_some(), pi.ident.span());
                got.binds.push((id, part.clone()));
                if let Some((_, sub)) = &pi.subpat {
                    self.pattern(sub, part, got);
                }
            }
            syn::Pat::Tuple(pt) => {
                let ts = match ty {
                    Ty::Tuple(ts) => ts,
                    Ty::Error => return,
                    _ => {
                        self.errors.error(pat, format!("this tuple pattern needs a tuple, not `{}`", self.infer.resolve(&ty)));
                        return;
                    }
                };
                let elems: Vec<&syn::Pat> = pt.elems.iter().collect();
                self.members(pat, &elems, &ts, part, got);
            }
            syn::Pat::TupleStruct(ps) if matches!(ty, Ty::Sum { .. }) => {
                let Ty::Sum { kind, args } = &ty else { return };
                let name = ps.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                let elems: Vec<&syn::Pat> = ps.elems.iter().collect();
                self.variant_pattern_of(pat, &name, *kind, args, &elems, part, got);
            }
            syn::Pat::Path(pp) if matches!(ty, Ty::Sum { .. }) => {
                let Ty::Sum { kind, args } = &ty else { return };
                let name = pp.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                self.variant_pattern_of(pat, &name, *kind, args, &[], part, got);
            }
            syn::Pat::TupleStruct(_) | syn::Pat::Struct(_) | syn::Pat::Path(_) if super::enum_data::enum_def(&ty).is_some() => {
                let Some(def) = super::enum_data::enum_def(&ty) else { return };
                self.data_variant_pattern(pat, &def.clone(), part, got);
            }
            syn::Pat::TupleStruct(ps) if matches!(ty, Ty::Struct(_)) => {
                let Ty::Struct(def) = &ty else { return };
                let ts: Vec<Ty> = def.fields.iter().map(|f| f.ty.clone()).collect();
                let elems: Vec<&syn::Pat> = ps.elems.iter().collect();
                self.members(pat, &elems, &ts, part, got);
            }
            syn::Pat::Struct(ps) if matches!(ty, Ty::Struct(_)) => {
                let Ty::Struct(def) = &ty else { return };
                for f in &ps.fields {
                    let name = match &f.member {
                        syn::Member::Named(i) => i.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    match def.field(&name) {
                        Some(i) => {
                            let sub = part.member(i, def.fields[i].ty.clone());
                            self.pattern(&f.pat, &sub, got);
                        }
                        None => self.errors.error(&f.member, format!("`{}` has no field `{name}`", def.name)),
                    }
                }
            }
            syn::Pat::Or(o) if !binds_names(pat) => {
                let mut alts = Vec::new();
                for case in &o.cases {
                    let mut one = Matched::default();
                    self.pattern(case, part, &mut one);
                    match Matched::test(one.tests, case.span()) {
                        Some(t) => alts.push(t),
                        // One alternative always matches: so does the whole.
                        None => return,
                    }
                }
                let span = pat.span();
                if let Some(t) = alts.into_iter().reduce(|a, b| Expr { kind: ExprKind::Logic { and: false, lhs: Box::new(a), rhs: Box::new(b) }, ty: Ty::bool(), span }) {
                    got.tests.push(t);
                }
            }
            syn::Pat::Or(_) => {
                self.errors.error(pat, "`|` alternatives that bind names are supported at the top of a `match` on an integer, `bool` or enum; inside a tuple or struct pattern, write one arm per alternative");
                self.declare_pattern_names(pat);
            }
            _ => self.scalar_test(pat, part, got),
        }
    }

    /// `Some(p)`, `None`, `Ok(p)`, `Err(p)` on a part of type `Option`/`Result`: its tag is the
    /// variant's, and its members match `elems`.
    #[allow(clippy::too_many_arguments)]
    fn variant_pattern_of(&mut self, pat: &syn::Pat, name: &str, kind: SumKind, args: &[Ty], elems: &[&syn::Pat], part: &Part, got: &mut Matched) {
        let Some((k, v)) = SumKind::of_variant(name).filter(|(k, _)| *k == kind) else {
            self.errors.error(pat, format!("`{name}` is not a variant of `{}`; its variants are `{}` and `{}`", kind.name(), kind.variants()[0], kind.variants()[1]));
            return;
        };
        let span = pat.span();
        let u32t = Ty::Scalar(ptx_abi::Scalar::U32);
        let tag = part.member(0, u32t.clone()).expr(span);
        let want = Expr { kind: ExprKind::Int(v as u128), ty: u32t, span };
        got.tests.push(Expr { kind: ExprKind::Binary(super::hir::BinOp::Eq, Box::new(tag), Box::new(want)), ty: Ty::bool(), span });
        let ms = k.members(args, v);
        let inner = part.member(1 + v, Ty::Tuple(ms.clone()));
        self.members(pat, elems, &ms, &inner, got);
    }

    /// Members of a tuple or tuple struct, with `..` standing for those not written.
    pub(super) fn members(&mut self, pat: &syn::Pat, elems: &[&syn::Pat], ts: &[Ty], part: &Part, got: &mut Matched) {
        let rest = elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
        let written = elems.len() - rest.is_some() as usize;
        if written > ts.len() || (rest.is_none() && written != ts.len()) {
            self.errors.error(pat, format!("this pattern has {written} fields, but the value has {}", ts.len()));
            return;
        }
        for (k, p) in elems.iter().enumerate() {
            let i = match rest {
                Some(r) if k == r => continue,
                Some(r) if k > r => ts.len() - (elems.len() - k),
                _ => k,
            };
            let sub = part.member(i, ts[i].clone());
            self.pattern(p, &sub, got);
        }
    }

    /// A literal, range, variant or constant on a scalar part: the scalar `match` of that part.
    fn scalar_test(&mut self, pat: &syn::Pat, part: &Part, got: &mut Matched) {
        let span = pat.span();
        let value = self.enum_value(part.expr(span));
        let pats: Vec<Pat> = self.match_pattern(pat, &value.ty).0;
        if pats.is_empty() {
            return;
        }
        let yes = Expr { kind: ExprKind::Bool(true), ty: Ty::bool(), span };
        let no = Expr { kind: ExprKind::Bool(false), ty: Ty::bool(), span };
        let arms = vec![Arm { pats, binding: None, guard: None, body: yes }, Arm { pats: vec![Pat::Wild], binding: None, guard: None, body: no }];
        got.tests.push(Expr { kind: ExprKind::Match { scrut: Box::new(value), arms }, ty: Ty::bool(), span });
    }
}

/// The arms with an `|` pattern that binds names at the top split into one arm per
/// alternative (the same guard and body: rustc has checked that each binds the same names).
fn split_alternatives(arms: &[syn::Arm]) -> Vec<syn::Arm> {
    let mut out = Vec::new();
    for arm in arms {
        match &arm.pat {
            syn::Pat::Or(o) if binds_names(&arm.pat) => {
                out.extend(o.cases.iter().map(|case| syn::Arm { pat: case.clone(), ..arm.clone() }));
            }
            _ => out.push(arm.clone()),
        }
    }
    out
}

fn if_then(cond: Expr, stmts: Vec<Stmt>) -> Expr {
    let span = cond.span;
    Expr { kind: ExprKind::If { cond: Box::new(cond), then: Block { stmts, tail: None }, els: None }, ty: Ty::Unit, span }
}

/// Whether a pattern binds a name anywhere.
fn binds_names(pat: &syn::Pat) -> bool {
    struct Finds(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finds {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0 |= !super::enums::names_a_constant(p);
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut f = Finds(false);
    syn::visit::Visit::visit_pat(&mut f, pat);
    f.0
}
