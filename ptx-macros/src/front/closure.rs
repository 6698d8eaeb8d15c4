//! Closures, inlined where they are called, and the names iterator chains bind.
//!
//! `let f = |x: f32| x * k;` defines no value: it records the closure with the names visible
//! where it is written, and each call `f(v)` checks the closure's body there again, its
//! parameters bound to the arguments (so it is compiled as if written at the call). A `move`
//! closure copies what it names when it is defined (its own state, kept across calls); any
//! other sees the variables themselves, as its borrows do (rustc forbids changing them while
//! the closure lives). A closure named anywhere but in a call, an iterator adapter's argument or a
//! generic device function's argument escapes, which is an error. A generic device function
//! called with a closure is inlined at the call (`generic_closure_call`), which is an error.
//!
//! The items of an iterator chain are bound as *views* (a local holding the value a shared
//! reference points to: `*x` is `x`) or *aliases* (a name for a place, `iter_mut`'s
//! `&mut s[i]`: each use is the place).

use crate::syntax::first_token::FirstToken;
use super::hir::{Expr, ExprKind, LetPat, LocalId, Stmt};
use super::iter::Item;
use super::ty::Ty;
use super::Checker;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::spanned::Spanned;

pub const ESCAPES: &str = "this closure escapes: device code inlines a closure where it is called, so a closure can only be bound to a local (`let f = |x| ...;`) and called, or passed to an iterator adapter (`map`, `filter`, `fold`, ...) or to a generic `#[device_fn]` with an `F: Fn(..)` bound; it cannot be stored, returned, copied or passed to a plain function (make that function generic over `F: Fn(..)`, or inline the code)";

type Scopes = Vec<HashMap<String, LocalId>>;

pub struct ClosureDef {
    pub closure: syn::ExprClosure,
    /// The names visible where it was written (captured copies in place of the originals for
    /// `move`).
    scopes: Scopes,
}

/// The checker's state for closures and iterator chains.
pub struct Natural {
    /// Numbers the loops and names of iterator chains and inlined closures.
    pub next: usize,
    pub views: HashSet<LocalId>,
    pub aliases: HashMap<LocalId, (syn::Expr, Scopes)>,
    pub closures: HashMap<LocalId, usize>,
    pub defs: Vec<Rc<ClosureDef>>,
    /// Where the chain or closure being written is (the span of the code generated for it).
    pub span: Span,
    /// Generic functions being inlined for closures, innermost last (recursion is refused).
    pub inlining: Vec<(String, Span)>,
    /// `peekable()` iterators bound to locals (see `iter_peek`).
    pub cursors: HashMap<LocalId, super::iter_peek::Cursor>,
}

impl Default for Natural {
    fn default() -> Self {
        Natural { next: 0, views: HashSet::new(), aliases: HashMap::new(), closures: HashMap::new(), defs: Vec::new(), span: Span::call_site(), inlining: Vec::new(), cursors: HashMap::new() }
    }
}

/// `&T`/`&mut T` as `T`: a view holds the value.
pub fn strip_refs_ty(t: &syn::Type) -> &syn::Type {
    match t {
        syn::Type::Reference(r) => strip_refs_ty(&r.elem),
        syn::Type::Paren(p) => strip_refs_ty(&p.elem),
        t => t,
    }
}

/// `return` in a closure body leaves the closure: `break 'label value`.
pub(super) struct Returns {
    pub(super) label: syn::Lifetime,
    pub(super) found: bool,
}

impl syn::visit_mut::VisitMut for Returns {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Closure(_) => {}
            syn::Expr::Return(r) => {
                self.found = true;
                let label = &self.label;
                // Built as a tree, the value in parentheses: `break 'l ::f` would read back as
                // `break ('l: ...)`, a labelled expression (rustc's own ambiguity).
                let expr = r.expr.take().map(|v| Box::new(syn::Expr::Paren(syn::ExprParen { attrs: Vec::new(), paren_token: Default::default(), expr: v })));
                *e = syn::Expr::Break(syn::ExprBreak {
                    attrs: std::mem::take(&mut r.attrs),
                    break_token: Default::default(),
                    label: Some(label.clone()),
                    expr,
                });
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// `'label: { block }`: an inlined body, which [`Returns`] has made `return` leave. Built as a
/// tree: printing the body and parsing it back cost about as much as checking it.
pub(super) fn labelled(label: syn::Lifetime, block: syn::Block, span: Span) -> syn::Expr {
    let label = Some(syn::Label { name: label, colon_token: syn::Token![:](span) });
    syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label, block })
}

impl<'a> Checker<'a> {
    /// A `let` the front end handles itself: a closure definition, or a name an iterator chain
    /// binds (`#[__ptx_alias]`). `None`: an ordinary `let`.
    pub fn natural_let(&mut self, l: &syn::Local) -> Option<Vec<Stmt>> {
        if let Some(stmts) = self.peekable_let(l) {
            return Some(stmts);
        }
        let init = l.init.as_ref()?;
        let name = match &l.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.to_string(),
            _ => return None,
        };
        if l.attrs.iter().any(|a| a.path().is_ident("__ptx_alias")) {
            let probe = self.expr(&init.expr);
            let snapshot = self.scopes.clone();
            let id = self.declare(&name, probe.ty, true, l.pat.span());
            self.natural.aliases.insert(id, ((*init.expr).clone(), snapshot));
            return Some(Vec::new());
        }
        let syn::Expr::Closure(c) = super::expr::strip(&init.expr) else { return None };
        let mut stmts = Vec::new();
        let mut scopes = self.scopes.clone();
        if c.capture.is_some() {
            // `move`: a copy of each local the body names, made now.
            let mut names = Names(Vec::new());
            syn::visit::Visit::visit_expr(&mut names, &c.body);
            let mut copied = HashMap::new();
            for n in names.0 {
                let Some(id) = self.lookup(&n) else { continue };
                if copied.contains_key(&n) || self.natural.closures.contains_key(&id) || self.natural.aliases.contains_key(&id) {
                    continue;
                }
                let (ty, span) = (self.local(id).ty.clone(), self.local(id).span);
                self.push_scope();
                let copy = self.declare(&format!("__ptx_cap{}", copied.len()), ty.clone(), true, span);
                self.pop_scope();
                if self.natural.views.contains(&id) {
                    self.natural.views.insert(copy);
                }
                stmts.push(Stmt::Let { pat: LetPat::Bind(copy), init: Some(Expr { kind: ExprKind::Local(id), ty, span }), span });
                copied.insert(n, copy);
            }
            scopes.push(copied);
        }
        let def = ClosureDef { closure: c.clone(), scopes };
        self.natural.defs.push(Rc::new(def));
        let id = self.declare(&name, Ty::Unit, false, l.pat.span());
        self.natural.closures.insert(id, self.natural.defs.len() - 1);
        Some(stmts)
    }

    /// A name bound by an iterator chain or a closure: what it stands for.
    pub fn natural_name(&mut self, id: LocalId, span: Span) -> Option<Expr> {
        if let Some((e, scopes)) = self.natural.aliases.get(&id).cloned() {
            return Some(self.in_scopes(scopes, |c| c.expr(&e)));
        }
        if self.natural.closures.contains_key(&id) {
            return Some(self.error(span, ESCAPES));
        }
        self.cursor_escapes(id, span)
    }

    /// `*x`, `**x` of a view or alias: the name itself.
    pub fn view_deref(&mut self, e: &syn::Expr) -> Option<Expr> {
        let mut root = super::expr::strip(e);
        while let syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. }) = root {
            root = super::expr::strip(expr);
        }
        if let syn::Expr::MethodCall(m) = root {
            // `*s.iter().max().unwrap()`: the item is held as its value.
            return super::iter_chain::option_method(m).map(|_| self.expr(root));
        }
        let syn::Expr::Path(p) = root else { return None };
        let ident = p.path.get_ident()?;
        let id = self.lookup(&ident.to_string())?;
        if self.natural.views.contains(&id) || self.natural.aliases.contains_key(&id) {
            let e = self.expr(root);
            // A view bound to a reference itself (a closure's parameter taking an `Option<&T>`'s
            // value, `o.map_or(0.0, |v| *v)`): the value it refers to.
            if self.natural.views.contains(&id) && matches!(self.shallow(&e.ty), Ty::Ptr { reference: true, .. }) {
                return Some(self.auto_deref_value(e));
            }
            return Some(e);
        }
        None
    }

    /// `f(args)` of a closure bound to a local.
    pub fn call_closure(&mut self, id: LocalId, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Option<Expr> {
        let k = *self.natural.closures.get(&id)?;
        self.natural.next += 1;
        let n = self.natural.next;
        let names: Vec<syn::Ident> = (0..args.len()).map(|i| quote::format_ident!("__ptx_arg{}_{}", n, i)).collect();
        let a = args.iter();
        let kk = syn::LitInt::new(&k.to_string(), span);
        let tokens = quote_spanned! {span=> { #(let #names = #a;)* __ptx_closure!(#kk #(, #names)*) }};
        Some(self.generated(tokens, span))
    }

    /// `__ptx_closure!(k, args..)`: closure `k`'s body, its parameters bound to the locals
    /// named, checked among the names visible where it was written.
    pub fn closure_marker(&mut self, m: &syn::Macro) -> Expr {
        let span = m.first_span();
        let parsed = m.parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
        let Ok(parts) = parsed else { return self.error(span, "internal: bad closure marker") };
        let mut parts = parts.into_iter();
        let k = match parts.next() {
            Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) => i.base10_parse::<usize>().unwrap_or(usize::MAX),
            _ => usize::MAX,
        };
        let Some(def) = self.natural.defs.get(k).cloned() else { return self.error(span, "internal: no such closure") };
        let mut frame = HashMap::new();
        let mut items = Vec::new();
        for p in parts {
            let syn::Expr::Path(p) = p else { continue };
            let Some(ident) = p.path.get_ident() else { continue };
            if let Some(id) = self.lookup(&ident.to_string()) {
                frame.insert(ident.to_string(), id);
            }
            items.push(Item::Val(ident.clone()));
        }
        self.natural.span = span;
        let Some(tokens) = self.inline_closure(&def.closure, &items, span) else { return self.error_expr(span) };
        let mut scopes = def.scopes.clone();
        scopes.push(frame);
        let e = match syn::parse2::<syn::Expr>(tokens) {
            Ok(e) => e,
            Err(e) => return self.error(span, format!("internal: closure code does not parse: {e}")),
        };
        self.in_scopes(scopes, |c| c.expr(&e))
    }

    /// Applies a function argument of an adapter (a closure, a closure's name, a path to a
    /// function) to items: the expression.
    pub fn apply(&mut self, g: &mut super::iter::Gen, f: &syn::Expr, args: &[Item]) -> Option<TokenStream> {
        match super::expr::strip(f) {
            syn::Expr::Closure(c) => self.inline_closure(c, args, g.span),
            syn::Expr::Path(p) => {
                let vals: Vec<TokenStream> = args.iter().map(Item::value).collect();
                Some(quote!(#p(#(#vals),*)))
            }
            other => {
                self.errors.error(other, "pass a closure (`|x| ...`), a closure bound to a local or a function's path here");
                None
            }
        }
    }

    /// A closure's body with its parameters bound to `args`: `{ let p = a; ...; body }`.
    fn inline_closure(&mut self, c: &syn::ExprClosure, args: &[Item], span: Span) -> Option<TokenStream> {
        if c.inputs.len() != args.len() {
            self.errors.at(span, format!("this closure takes {} arguments here, not {}", args.len(), c.inputs.len()));
            return None;
        }
        let mut stmts = Vec::new();
        for (p, a) in c.inputs.iter().zip(args) {
            stmts.extend(self.bind_item(p, a, None));
        }
        self.natural.next += 1;
        let label = syn::Lifetime::new(&format!("'__ptx_cl{}", self.natural.next), span);
        let mut body = (*c.body).clone();
        let mut r = Returns { label: label.clone(), found: false };
        syn::visit_mut::VisitMut::visit_expr_mut(&mut r, &mut body);
        let out = match &c.output {
            syn::ReturnType::Type(_, t) => quote_spanned!(span=> { let __ptx_ret: #t = #body; __ptx_ret }),
            // In parentheses: an expression statement's rules (`{} = x` is a block and then
            // `= x`) do not apply to a closure's body.
            syn::ReturnType::Default => quote!((#body)),
        };
        let label = r.found.then(|| quote!(#label:));
        Some(quote_spanned!(span=> #label { #(#stmts)* #out }))
    }

    /// Whether a call's argument is a closure (written there, or a local's name).
    pub fn is_closure_arg(&self, a: &syn::Expr) -> Option<usize> {
        match super::expr::strip(a) {
            syn::Expr::Closure(_) => Some(usize::MAX),
            syn::Expr::Path(p) => {
                let id = self.lookup(&p.path.get_ident()?.to_string())?;
                self.natural.closures.get(&id).copied()
            }
            _ => None,
        }
    }

    /// A call of a generic `#[device_fn]` with closure arguments (`F: Fn(f32) -> f32`): the
    /// function is inlined at the call, its parameters bound to the arguments (the closures as
    /// closures), as rustc's monomorphization followed by inlining would give. Its body is
    /// checked among its own names only, its paths named through the callee's path. `None`: no
    /// closure argument (an ordinary instance, `generic`).
    pub fn generic_closure_call(&mut self, info: &crate::link::info::GenericFnInfo, fetch_path: &TokenStream, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Option<Expr> {
        let Some(item) = info.item.parsed() else { return Some(self.error(span, format!("internal: the replay of `{}` does not parse", info.name))) };
        // `#[inline(always)]` (`front::force_inline`): inlined whatever its arguments.
        if !super::force_inline::is_forced_inline(&item.attrs) && !args.iter().any(|a| self.is_closure_arg(a).is_some()) {
            return None;
        }
        let Ok(callee) = syn::parse2::<syn::Path>(fetch_path.clone()) else { return Some(self.error_expr(span)) };
        let inputs: Vec<&syn::PatType> = item.sig.inputs.iter().filter_map(|a| if let syn::FnArg::Typed(pt) = a { Some(pt) } else { None }).collect();
        if inputs.len() != args.len() {
            return Some(self.error(span, format!("`{}` takes {} arguments but {} were given", info.name, inputs.len(), args.len())));
        }
        let why = if super::force_inline::is_forced_inline(&item.attrs) { "is `#[inline(always)]`" } else { "is called with a closure" };
        // The body is checked without the types of its parameters: it may not name them.
        let tparams: Vec<String> = item.sig.generics.type_params().map(|t| t.ident.to_string()).collect();
        let mut named = TypeNames(Vec::new());
        syn::visit::Visit::visit_block(&mut named, &item.block);
        if let Some(t) = named.0.iter().find(|n| tparams.contains(n)) {
            return Some(self.error(span, format!("`{}` {why}, so it is inlined here, and its body names its type parameter `{t}`, which an inlined body is checked without: leave the type to inference there (`let acc = init;`, not `let acc: {t} = init;`)", info.name)));
        }
        let mut known: HashSet<String> = self.mentioned.clone();
        known.extend(tparams.iter().cloned());
        // Its parameters and locals (a closure parameter `f` is called `f(x)`) are its own.
        let mut locals = Bindings(Vec::new());
        for pt in &inputs {
            syn::visit::Visit::visit_pat(&mut locals, &pt.pat);
        }
        syn::visit::Visit::visit_block(&mut locals, &item.block);
        known.extend(locals.0);
        crate::ir::loc::note_replayed(item.block.brace_token.span.join(), None);
        let mut block = (*item.block).clone();
        syn::visit_mut::VisitMut::visit_block_mut(&mut super::generic::ThroughCalleeBody { callee: &callee, known: &known }, &mut block);
        self.natural.next += 1;
        let n = self.natural.next;
        let mut stmts = Vec::new();
        let mut frame = HashMap::new();
        self.push_scope();
        for (i, (pt, a)) in inputs.iter().zip(args).enumerate() {
            let syn::Pat::Ident(pi) = &*pt.pat else {
                self.pop_scope();
                return Some(self.error(pt.pat.span(), format!("`{}` {why}, so it is inlined here: its parameters must be plain names", info.name)));
            };
            let name = pi.ident.to_string();
            let id = match self.is_closure_arg(a) {
                Some(usize::MAX) => {
                    let syn::Expr::Closure(c) = super::expr::strip(a) else { continue };
                    self.natural.defs.push(Rc::new(ClosureDef { closure: c.clone(), scopes: self.scopes.clone() }));
                    let id = self.declare(&format!("__ptx_g{n}_{i}"), Ty::Unit, false, a.span());
                    self.natural.closures.insert(id, self.natural.defs.len() - 1);
                    id
                }
                Some(_) => {
                    let syn::Expr::Path(p) = super::expr::strip(a) else { continue };
                    self.lookup(&p.path.get_ident()?.to_string())?
                }
                None => {
                    let x = self.expr(a);
                    // Typed by the parameter, so that `atan2f(y, 2.0)`'s literal is an `f32`
                    // before the body reads it.
                    if let Some(want) = self.declared_type(&pt.ty, &callee, &known, &tparams) {
                        self.expect(x.span, &want, &x.ty);
                    }
                    let id = self.declare(&format!("__ptx_g{n}_{i}"), x.ty.clone(), true, a.span());
                    stmts.push(Stmt::Let { pat: LetPat::Bind(id), init: Some(x), span: a.span() });
                    id
                }
            };
            frame.insert(name, id);
        }
        self.pop_scope();
        // `return` leaves the inlined body.
        let label = syn::Lifetime::new(&format!("'__ptx_inl{n}"), span);
        let mut r = Returns { label: label.clone(), found: false };
        syn::visit_mut::VisitMut::visit_block_mut(&mut r, &mut block);
        let body = labelled(label, block, span);
        let key = crate::link::key(fetch_path);
        if let Some((_, outer)) = self.natural.inlining.iter().find(|(k, _)| *k == key) {
            // Reported at the call in the body being compiled.
            let at = self.natural.inlining.first().map(|(_, s)| *s).unwrap_or(*outer);
            if super::force_inline::is_forced_inline(&item.attrs) {
                return Some(self.error(at, format!("`{}` is `#[inline(always)]` and calls itself, which cannot be inlined: remove `#[inline(always)]` (a call of its own `.func`), or write the recursion as a loop", info.name)));
            }
            return Some(self.error(at, format!("`{}` calls itself with a closure, which cannot be inlined: pass the values the closure computes, or write the recursion as a loop", info.name)));
        }
        self.natural.inlining.push((key, span));
        let value = self.in_scopes(vec![frame], |c| c.expr(&body));
        self.natural.inlining.pop();
        // The declared result type.
        if let syn::ReturnType::Type(_, t) = &item.sig.output {
            if let Some(ret) = self.declared_type(t, &callee, &known, &tparams) {
                self.expect(value.span, &ret, &value.ty);
            }
        }
        let ty = value.ty.clone();
        Some(Expr { kind: ExprKind::Block(super::hir::Block { stmts, tail: Some(Box::new(value)) }), ty, span })
    }

    /// A type of an inlined function's signature, its paths named through the callee's path;
    /// `None` where it names one of the function's type parameters (the body is checked without
    /// them).
    fn declared_type(&mut self, t: &syn::Type, callee: &syn::Path, known: &HashSet<String>, tparams: &[String]) -> Option<Ty> {
        let mut names = TypeNames(Vec::new());
        syn::visit::Visit::visit_type(&mut names, t);
        if names.0.iter().any(|n| tparams.contains(n)) {
            return None;
        }
        let mut t = t.clone();
        syn::visit_mut::VisitMut::visit_type_mut(&mut super::generic::ThroughCalleeBody { callee, known }, &mut t);
        Some(self.resolve_type(&t, super::Position::Signature))
    }

    pub(super) fn in_scopes<T>(&mut self, scopes: Scopes, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.scopes, scopes);
        let r = f(self);
        self.scopes = saved;
        r
    }

    /// `__ptx_elem!(s, i)`: `s[i]` without a bounds check (an iterator's index is in bounds
    /// by construction); `__ptx_zero!()`, `__ptx_one!()`: `0`/`1` of the type the context gives;
    /// `__ptx_sum_zero!()`: what `Sum` starts from, `-0.0` for floats (so an empty or all `-0.0`
    /// float sum is `-0.0`, as Rust's), `0` for integers.
    pub fn natural_macro(&mut self, name: &str, m: &syn::Macro) -> Expr {
        let span = m.first_span();
        match name {
            "__ptx_elem" => {
                let parsed = m.parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
                let Ok(parts) = parsed else { return self.error(span, "internal: bad element marker") };
                let parts: Vec<syn::Expr> = parts.into_iter().collect();
                let [base, index] = parts.as_slice() else { return self.error(span, "internal: bad element marker") };
                let base = self.expr(base);
                let index = self.expr(index);
                self.index_of(base, index, false, span)
            }
            "__ptx_zero" | "__ptx_one" => {
                let ty = self.var(super::infer::VarKind::General);
                Expr { kind: ExprKind::Int((name == "__ptx_one") as u128), ty, span }
            }
            "__ptx_sum_zero" => {
                let ty = self.var(super::infer::VarKind::General);
                let zero = Expr { kind: ExprKind::Int(0), ty: ty.clone(), span };
                Expr { kind: ExprKind::Unary(super::hir::UnOp::Neg, Box::new(zero)), ty, span }
            }
            "__ptx_closure" => self.closure_marker(m),
            "__ptx_total_key" => self.total_key(m),
            _ => self.error(span, format!("the macro `{name}!` is not supported in device code")),
        }
    }

    /// A view: a `let` marked `#[__ptx_view]` bound `id`.
    pub fn mark_view(&mut self, l: &syn::Local, pat: &LetPat) {
        if let LetPat::Bind(id) = pat {
            if l.attrs.iter().any(|a| a.path().is_ident("__ptx_view")) {
                self.natural.views.insert(*id);
            }
        }
    }
}

/// The single names a closure body mentions (what a `move` closure may capture).
struct Names(Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            self.0.push(i.to_string());
        }
    }
}

/// The single-segment names used as types or paths' first segments (type parameters named in
/// a body).
struct TypeNames(Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for TypeNames {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(first) = p.segments.first() {
            if p.segments.len() > 1 || p.leading_colon.is_none() {
                self.0.push(first.ident.to_string());
            }
        }
        syn::visit::visit_path(self, p);
    }
}

/// The names patterns bind.
struct Bindings(Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for Bindings {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}
