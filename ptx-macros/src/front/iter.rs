//! Iterator chains compiled to counted loops (`iter_chain` reads them).
//!
//! A chain becomes one `for` over an index range (a slice, array, chunks or windows: `0..len`)
//! or over the range written (`(a..b)`), written as Rust and checked like the body's own code.
//! `skip`, `take`, `rev`, `step_by` right after the source change the index range; `enumerate`
//! and `zip` there use the index itself (so `a.iter().zip(b)` runs `0..min(a.len(), b.len())`).
//! Elsewhere adapters are statements in the loop: `map` a `let`, `filter` a `continue`,
//! `take_while` a `break`, and counters for the rest. An element is read without a bounds
//! check (`__ptx_elem!`): its index is below the length by construction. Items of `iter()`
//! are the elements' values (a shared reference reads the same bytes), those of `iter_mut()`
//! the elements themselves (`closure::Alias`). Closures given to adapters are inlined with
//! their parameters bound to the items (`closure`).

use crate::syntax::first_token::FirstToken;
use super::closure::strip_refs_ty;
use super::expr::strip;
use super::hir::Expr;
use super::iter_chain::{parse, Adapter, Chain, Chunks, Consumer, Mode, OptionUse, Source};
use super::ty::Ty;
use super::Checker;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// An item flowing through a chain.
#[derive(Clone)]
pub enum Item {
    /// A value held in a local (a shared reference is held as the value it refers to).
    Val(syn::Ident),
    /// A place (`iter_mut`), evaluated where it is used.
    Alias(TokenStream),
    Tup(Vec<Item>),
}

impl Item {
    pub fn value(&self) -> TokenStream {
        match self {
            Item::Val(v) => quote!(#v),
            Item::Alias(e) => e.clone(),
            Item::Tup(xs) => {
                let vs: Vec<TokenStream> = xs.iter().map(Item::value).collect();
                quote!((#(#vs),*))
            }
        }
    }
}

/// The loop being written.
pub struct Gen {
    pub span: Span,
    base: usize,
    n: usize,
    /// Statements before the loop.
    pub pre: Vec<TokenStream>,
    /// Statements at the top of each trip (`take`'s test).
    pub top: Vec<TokenStream>,
    /// The trip's statements, in order.
    pub body: Vec<TokenStream>,
    /// `0usize..hi` for sequences, the range for ranges; with `.rev()`/`.step_by()`.
    pub range: TokenStream,
    ops: Vec<TokenStream>,
    /// The loop variable.
    pub p: syn::Ident,
    /// Index driver: the bounds so far (`lo` absent: 0), and whether the loop variable is
    /// still the position of the item (no skip, step or reversal yet).
    lo: Option<syn::Ident>,
    hi: Option<syn::Ident>,
    /// Whether every stage so far passes each item on (map): order and count unchanged.
    pub one_to_one: bool,
    /// Loops inside the loop (`flat_map`), outermost first: what the enclosing trip does
    /// before each (its `top` and `body`) and the loop's header.
    pub nest: Vec<super::iter_flat::Nest>,
    /// The label of the block around the loops that the chain's own `break`s leave (set once
    /// there is a loop inside, where a plain `break` would end only that one).
    pub exit: Option<syn::Lifetime>,
    /// `a.chain(b)`: the trip is written twice, after `a`'s element read in the first loop and
    /// after `b`'s in a second (`iter_concat`).
    pub concat: Option<super::iter_concat::Concat>,
}

impl Gen {
    pub fn fresh(&mut self, what: &str) -> syn::Ident {
        self.n += 1;
        format_ident!("__ptx_it{}_{}{}", self.base, what, self.n, span = self.span)
    }

    /// `break` out of the whole chain.
    pub fn brk(&self) -> TokenStream {
        match &self.exit {
            Some(l) => quote!(break #l),
            None => quote_spanned!(self.span=> break),
        }
    }

    fn position_is_index(&self) -> bool {
        self.hi.is_some() && self.lo.is_none() && self.ops.is_empty() && self.one_to_one
    }
}

impl<'a> Checker<'a> {
    /// `for pat in chain { body }` (any chain but a plain range, which `control` compiles).
    pub fn chain_for(&mut self, f: &syn::ExprForLoop, chain: &Chain) -> Expr {
        let sp = self.natural.span;
        let span = chain.span;
        let Some((mut g, item)) = self.chain_loop(chain) else { return self.error_expr(span) };
        let binds = self.bind_item(&f.pat, &item, None);
        let relabeled;
        let user = match &g.exit {
            Some(exit) => {
                relabeled = super::iter_flat::relabel_breaks(&f.body, exit, f.label.as_ref().map(|l| &l.name));
                &relabeled
            }
            None => &f.body,
        };
        g.body.extend(binds);
        g.body.push(quote_spanned!(sp=> #user));
        let label = f.label.as_ref().map(|l| quote_spanned!(sp=> #l));
        self.finish(g, label, quote_spanned!(sp=> ))
    }

    /// `chain.consumer(..)`, possibly followed by what is done with the `Option` it returns.
    pub fn chain_consume(&mut self, chain: &Chain, c: &Consumer, usage: Option<&OptionUse>, span: Span) -> Expr {
        let kept;
        let usage = match usage {
            None if c.is_option() => {
                if super::iter_chain::yields_values(chain, c) {
                    kept = super::iter_chain::kept_option(span);
                } else if let Some(k) = super::iter_kept::kept_ref_option(chain, span).filter(|_| !self.returns_reference()) {
                    kept = k;
                } else {
                    return self.error(span, "this iterator method returns an `Option` of a reference, which device code reads only where it is made when the items are tuples or places (`enumerate`, `zip`, `iter_mut`) or the function returns a reference: use it at once (`.unwrap()`, `.unwrap_or(v)`, `.is_some()`, `match`, `if let Some(x) = ...`), or add `.copied()` or a `map` to keep a value in a variable");
                }
                Some(&kept)
            }
            u => u,
        };
        let Some((mut g, item)) = self.chain_loop(chain) else { return self.error_expr(span) };
        let Some(tail) = self.consumer(&mut g, item, c, usage) else { return self.error_expr(span) };
        self.finish(g, None, tail)
    }

    /// A method call that consumes an iterator chain (`s.iter().sum()`,
    /// `s.iter().position(..).unwrap_or(n)`, `s.chunks_exact(4).remainder()`), compiled here.
    pub fn iterator_method(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.first_span();
        if let Some((chain, c, usage)) = super::iter_chain::option_method(m) {
            return Some(self.chain_consume(&chain, &c, Some(&usage), span));
        }
        if let Some((chain, c)) = super::iter_chain::consumed(m) {
            return Some(self.chain_consume(&chain, &c, None, span));
        }
        if let Some((chain, c)) = super::iter_chain::copied_option(m) {
            // `chain.max().copied()` kept as a value: the item is held as its value already.
            return Some(self.chain_consume(&chain, &c, Some(&super::iter_chain::kept_option(span)), span));
        }
        if matches!(m.method.to_string().as_str(), "remainder" | "into_remainder") && m.args.is_empty() {
            if let Some(Chain { source: Source::Chunks { expr, size, kind: Chunks::Exact, .. }, adapters, .. }) = parse(&m.receiver, false) {
                if adapters.is_empty() {
                    return Some(self.chunks_remainder(&expr, &size, span));
                }
            }
        }
        None
    }

    /// `s.chunks_exact(n).remainder()`: `&s[s.len() - s.len() % n..]`.
    pub fn chunks_remainder(&mut self, expr: &syn::Expr, size: &syn::Expr, span: Span) -> Expr {
        let tokens = quote_spanned! {span=> {
            let __ptx_rem_s = #expr;
            let __ptx_rem_n: usize = #size;
            assert!(__ptx_rem_n != 0, "chunk size must be non-zero");
            &__ptx_rem_s[__ptx_rem_s.len() - __ptx_rem_s.len() % __ptx_rem_n..]
        }};
        self.generated(tokens, span)
    }

    /// Checks generated code as the body's own.
    pub fn generated(&mut self, tokens: TokenStream, span: Span) -> Expr {
        match syn::parse2::<syn::Expr>(tokens) {
            Ok(e) => self.expr(&e),
            Err(e) => self.error(span, format!("internal: iterator code does not parse: {e}")),
        }
    }

    fn finish(&mut self, g: Gen, label: Option<TokenStream>, tail: TokenStream) -> Expr {
        let Gen { span, pre, top, body, range, ops, p, nest, exit, concat, .. } = g;
        let (label, content) = super::iter_flat::nested(label, nest, quote!(#(#top)* #(#body)*));
        let looped = match concat {
            None => quote_spanned! {span=>
                #label for #p in (#range) #(#ops)* {
                    #content
                }
            },
            Some(c) => c.loops(label, &p, &range, &content),
        };
        let looped = match exit {
            Some(l) => quote_spanned!(span=> #l: { #looped }),
            None => looped,
        };
        let tokens = quote_spanned! {span=> {
            #(#pre)*
            #looped
            #tail
        }};
        self.generated(tokens, span)
    }

    /// The loop over the chain's source, with its adapters applied: the item each trip has.
    pub(super) fn chain_loop(&mut self, chain: &Chain) -> Option<(Gen, Item)> {
        let sp = self.natural.span;
        self.natural.next += 1;
        let span = chain.span;
        self.natural.span = span;
        let base = self.natural.next;
        let p = format_ident!("__ptx_it{}_p", base, span = span);
        let mut g = Gen { span, base, n: 0, pre: Vec::new(), top: Vec::new(), body: Vec::new(), range: quote_spanned!(sp=> ), ops: Vec::new(), p: p.clone(), lo: None, hi: None, one_to_one: true, nest: Vec::new(), exit: None, concat: None };
        let mut item = match &chain.source {
            Source::Range(r) => {
                g.range = quote_spanned!(sp=> #r);
                Item::Val(p.clone())
            }
            Source::Concat(a, b) => self.concat_source(&mut g, a, b, &p)?,
            source => {
                let (item, len) = self.indexed(&mut g, source, &p)?;
                let hi = g.fresh("hi");
                g.pre.push(quote_spanned!(sp=> let #hi: usize = #len;));
                g.range = quote_spanned!(sp=> 0usize..#hi);
                g.hi = Some(hi);
                item
            }
        };
        for (a, aspan) in &chain.adapters {
            item = self.adapter(&mut g, item, a, *aspan)?;
        }
        if let (Some(hi), Some(lo)) = (&g.hi, &g.lo) {
            g.range = quote_spanned!(sp=> #lo..#hi);
        } else if let Some(hi) = &g.hi {
            g.range = quote_spanned!(sp=> 0usize..#hi);
        }
        Some((g, item))
    }

    /// A slice, array, chunks or windows: the item at index `p` (its statements go into the
    /// trip) and the length.
    fn indexed(&mut self, g: &mut Gen, source: &Source, p: &syn::Ident) -> Option<(Item, TokenStream)> {
        let sp = self.natural.span;
        match source {
            Source::Range(_) => None,
            Source::Concat(a, _) => {
                self.errors.at(a.span, "a `chain` is the first iterator of a `zip` here, not its argument: write `a.iter().chain(b).zip(c)`");
                None
            }
            Source::Seq { expr, mode } => {
                let (src, mode) = self.seq_source(g, expr, *mode)?;
                let elem = quote_spanned!(sp=> __ptx_elem!(#src, #p));
                let item = if mode == Mode::Alias {
                    Item::Alias(elem)
                } else {
                    let v = g.fresh("v");
                    g.body.push(quote_spanned!(sp=> let #v = #elem;));
                    Item::Val(v)
                };
                Some((item, quote_spanned!(sp=> #src.len())))
            }
            Source::Chunks { expr, size, kind, mutable } => {
                let (src, _) = self.seq_source(g, expr, if *mutable { Mode::Alias } else { Mode::View })?;
                let n = g.fresh("n");
                let msg = if *kind == Chunks::Windows { "window size must be non-zero" } else { "chunk size must be non-zero" };
                g.pre.push(quote_spanned!(sp=> let #n: usize = #size; assert!(#n != 0, #msg);));
                let v = g.fresh("v");
                let a = g.fresh("a");
                let r = if *mutable { quote_spanned!(sp=> &mut) } else { quote_spanned!(sp=> &) };
                let (len, stmt) = match kind {
                    Chunks::Exact => (quote_spanned!(sp=> #src.len() / #n), quote_spanned!(sp=> let #a = #p * #n; let #v = #r #src[#a..#a + #n];)),
                    Chunks::Last => (quote_spanned!(sp=> #src.len().div_ceil(#n)), quote_spanned!(sp=> let #a = #p * #n; let #v = #r #src[#a..(#a + #n).min(#src.len())];)),
                    Chunks::Windows => (quote_spanned!(sp=> (#src.len() + 1).saturating_sub(#n)), quote_spanned!(sp=> let #v = #r #src[#p..#p + #n];)),
                };
                g.body.push(stmt);
                Some((Item::Val(v), len))
            }
        }
    }

    /// A slice or array iterated over: the name its elements are read through, and how.
    pub(super) fn seq_source(&mut self, g: &mut Gen, expr: &syn::Expr, mode: Mode) -> Option<(TokenStream, Mode)> {
        let by = mode;
        let sp = self.natural.span;
        let sub_slice = |e: &syn::Expr| matches!(strip(e), syn::Expr::Index(i) if matches!(strip(&i.index), syn::Expr::Range(_)));
        let reborrowed: syn::Expr;
        let (inner, mode) = match strip(expr) {
            // `&s[a..b]` is a sub-slice, iterated by its type.
            syn::Expr::Reference(r) if sub_slice(&r.expr) => (strip(expr), mode),
            syn::Expr::Reference(r) if mode == Mode::Auto => (&*r.expr, if r.mutability.is_some() { Mode::Alias } else { Mode::View }),
            // `s[a..].iter()`: the receiver is borrowed.
            e if sub_slice(e) => {
                reborrowed = if mode == Mode::Alias { syn::parse_quote_spanned!(sp=> &mut #e) } else { syn::parse_quote_spanned!(sp=> &#e) };
                (&reborrowed, mode)
            }
            e => (e, mode),
        };
        let probe = self.expr(inner);
        let peeled = self.peel_refs(&probe.ty);
        let mode = match (&peeled, mode) {
            (Ty::Error, _) => return None,
            (Ty::Slice { mutable: true, .. }, Mode::Auto) => Mode::Alias,
            (Ty::Slice { .. } | Ty::Array { .. } | Ty::Shared { .. }, Mode::Auto) => Mode::View,
            (Ty::Slice { .. } | Ty::Array { .. } | Ty::Shared { .. }, m) => m,
            (Ty::Var(_), _) => {
                self.errors.at(probe.span, "type annotations needed: the type of what this loop iterates over is not known here");
                return None;
            }
            (t, _) => {
                let shown = self.infer.resolve(t);
                self.errors.at(probe.span, format!("device code iterates over ranges, slices and arrays, not `{shown}`; write `for i in 0..n` and index"));
                return None;
            }
        };
        // An array value is read in place (a copy would move it to memory); anything else is
        // bound once (a slice is its pointer and length).
        let is_place = |e: &syn::Expr| {
            let mut e = strip(e);
            loop {
                match e {
                    syn::Expr::Path(p) => return p.path.segments.len() == 1,
                    syn::Expr::Field(f) => e = strip(&f.base),
                    _ => return false,
                }
            }
        };
        // `for v in arr` iterates over a copy of the array: one the body may change is copied.
        let by_value = matches!(by, Mode::Auto) && !matches!(strip(expr), syn::Expr::Reference(_));
        let changeable = super::expr::root_local(&probe).is_some_and(|id| self.local(id).mutable);
        if matches!(self.shallow(&probe.ty), Ty::Array { .. }) && is_place(inner) && !(by_value && changeable) {
            return Some((quote_spanned!(sp=> #inner), mode));
        }
        let src = g.fresh("src");
        g.pre.push(quote_spanned!(sp=> let #src = #inner;));
        Some((quote_spanned!(sp=> #src), mode))
    }

    fn adapter(&mut self, g: &mut Gen, item: Item, a: &Adapter, span: Span) -> Option<Item> {
        let sp = self.natural.span;
        let foldable = g.hi.is_some() && g.one_to_one;
        match a {
            Adapter::Map(f) => {
                let v = g.fresh("m");
                let e = self.apply(g, f, std::slice::from_ref(&item))?;
                g.body.push(quote_spanned!(sp=> let #v = #e;));
                Some(Item::Val(v))
            }
            Adapter::Copied => Some(Item::Val(self.hold(g, &item))),
            Adapter::Inspect(f) => {
                let e = self.apply(g, f, std::slice::from_ref(&item))?;
                g.body.push(quote_spanned!(sp=> #e;));
                Some(item)
            }
            Adapter::FlatMap(f) => self.flat_map(g, item, f.as_ref(), span),
            Adapter::Filter(f) | Adapter::TakeWhile(f) => {
                let e = self.apply(g, f, std::slice::from_ref(&item))?;
                let leave = if matches!(a, Adapter::Filter(_)) { quote_spanned!(sp=> continue) } else { g.brk() };
                g.body.push(quote_spanned!(sp=> if !(#e) { #leave; }));
                g.one_to_one = false;
                Some(item)
            }
            Adapter::FilterMap { f, stop } => {
                let e = self.apply(g, f, std::slice::from_ref(&item))?;
                let (v, x) = (g.fresh("fm"), g.fresh("x"));
                let leave = if *stop { g.brk() } else { quote_spanned!(sp=> continue) };
                g.body.push(quote_spanned!(sp=> let #v = match #e { Some(#x) => #x, None => #leave };));
                g.one_to_one = false;
                Some(Item::Val(v))
            }
            Adapter::Enumerate if g.position_is_index() => Some(Item::Tup(vec![Item::Val(g.p.clone()), item])),
            Adapter::Enumerate => {
                let (c, e) = (g.fresh("c"), g.fresh("e"));
                g.pre.push(quote_spanned!(sp=> let mut #c = 0usize;));
                g.body.push(quote_spanned!(sp=> let #e = #c; #c += 1;));
                Some(Item::Tup(vec![Item::Val(e), item]))
            }
            Adapter::Zip(other) => {
                let Some(o) = parse(other, true).filter(|o| o.adapters.is_empty()) else {
                    self.errors.at(span, "`zip` takes a slice, an array, a range or `x.iter()` / `x.iter_mut()` / `x.chunks(n)` here; apply adapters after the `zip`");
                    return None;
                };
                let second = match &o.source {
                    Source::Range(r) => {
                        let syn::Expr::Range(r) = strip(r) else { return None };
                        let (Some(a), Some(b), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits) else {
                            self.errors.at(span, "`zip` over a range takes `a..b` here");
                            return None;
                        };
                        let (cur, end, w) = (g.fresh("r"), g.fresh("re"), g.fresh("w"));
                        g.pre.push(quote_spanned!(sp=> let mut #cur = #a; let #end = #b;));
                        let brk = g.brk();
                        g.body.push(quote_spanned!(sp=> if #cur >= #end { #brk; } let #w = #cur; #cur += 1;));
                        g.one_to_one = false;
                        Item::Val(w)
                    }
                    source if g.position_is_index() => {
                        let p = g.p.clone();
                        let (it, len) = self.indexed(g, source, &p)?;
                        let hi = g.hi.clone()?;
                        let hi2 = g.fresh("hi");
                        g.pre.push(quote_spanned!(sp=> let #hi2: usize = #hi.min(#len);));
                        g.hi = Some(hi2);
                        it
                    }
                    source => {
                        let (q, at, n) = (g.fresh("q"), g.fresh("at"), g.fresh("n"));
                        let mut inner = Vec::new();
                        std::mem::swap(&mut inner, &mut g.body);
                        let (it, len) = self.indexed(g, source, &at)?;
                        let elem_stmts = std::mem::replace(&mut g.body, inner);
                        g.pre.push(quote_spanned!(sp=> let mut #q = 0usize; let #n: usize = #len;));
                        let brk = g.brk();
                        g.body.push(quote_spanned!(sp=> if #q >= #n { #brk; } let #at = #q; #q += 1;));
                        g.body.extend(elem_stmts);
                        g.one_to_one = false;
                        it
                    }
                };
                Some(Item::Tup(vec![item, second]))
            }
            Adapter::Rev | Adapter::StepBy(_) if foldable || g.hi.is_none() && g.one_to_one && g.body.is_empty() => {
                match a {
                    Adapter::StepBy(s) => g.ops.push(quote_spanned!(sp=> .step_by(#s))),
                    _ => g.ops.push(quote_spanned!(sp=> .rev())),
                }
                Some(item)
            }
            Adapter::Skip(k) | Adapter::Take(k) if foldable && g.ops.is_empty() => {
                let (kk, hi2) = (g.fresh("k"), g.fresh("hi"));
                let hi = g.hi.clone()?;
                g.pre.push(quote_spanned!(sp=> let #kk: usize = #k;));
                let avail = match &g.lo {
                    Some(lo) => quote_spanned!(sp=> (#hi - #lo)),
                    None => quote_spanned!(sp=> #hi),
                };
                if matches!(a, Adapter::Skip(_)) {
                    let lo2 = g.fresh("lo");
                    let from = g.lo.as_ref().map(|lo| quote_spanned!(sp=> #lo +));
                    g.pre.push(quote_spanned!(sp=> let #lo2: usize = #from #kk.min(#avail);));
                    g.lo = Some(lo2);
                } else {
                    let from = g.lo.as_ref().map(|lo| quote_spanned!(sp=> #lo +));
                    g.pre.push(quote_spanned!(sp=> let #hi2: usize = #from #kk.min(#avail);));
                    g.hi = Some(hi2);
                }
                Some(item)
            }
            Adapter::Skip(k) => {
                let (kk, c) = (g.fresh("k"), g.fresh("c"));
                g.pre.push(quote_spanned!(sp=> let #kk: usize = #k; let mut #c = 0usize;));
                g.body.push(quote_spanned!(sp=> if #c < #kk { #c += 1; continue; }));
                g.one_to_one = false;
                Some(item)
            }
            Adapter::Take(k) => {
                let (kk, c) = (g.fresh("k"), g.fresh("c"));
                g.pre.push(quote_spanned!(sp=> let #kk: usize = #k; let mut #c = 0usize;));
                let brk = g.brk();
                g.top.push(quote_spanned!(sp=> if #c >= #kk { #brk; }));
                g.body.push(quote_spanned!(sp=> #c += 1;));
                g.one_to_one = false;
                Some(item)
            }
            Adapter::StepBy(s) => {
                let (ss, c, ok) = (g.fresh("s"), g.fresh("c"), g.fresh("ok"));
                g.pre.push(quote_spanned!(sp=> let #ss: usize = #s; assert!(#ss != 0, "assertion failed: step != 0"); let mut #c = 0usize;));
                g.body.push(quote_spanned!(sp=> let #ok = #c == 0; #c += 1; if #c == #ss { #c = 0; } if !#ok { continue; }));
                g.one_to_one = false;
                Some(item)
            }
            Adapter::Rev => {
                self.errors.at(span, "`.rev()` here would need the items before it stored: write it right after the source (`s.iter().rev().filter(..)`)");
                None
            }
        }
    }

    /// The item's value, in a local.
    fn hold(&mut self, g: &mut Gen, item: &Item) -> syn::Ident {
        let sp = self.natural.span;
        match item {
            Item::Val(v) => v.clone(),
            _ => {
                let v = g.fresh("h");
                let e = item.value();
                g.body.push(quote_spanned!(sp=> let #v = #e;));
                v
            }
        }
    }

    /// The consumer's statements; the chain's value.
    fn consumer(&mut self, g: &mut Gen, item: Item, c: &Consumer, usage: Option<&OptionUse>) -> Option<TokenStream> {
        let sp = self.natural.span;
        let acc = g.fresh("acc");
        let found = g.fresh("found");
        let brk = g.brk();
        let value = item.value();
        match c {
            Consumer::Sum(t) | Consumer::Product(t) => {
                let ann = t.as_ref().map(|t| quote_spanned!(sp=> : #t));
                let (init, op) = if matches!(c, Consumer::Sum(_)) { (quote_spanned!(sp=> __ptx_sum_zero!()), quote_spanned!(sp=> +=)) } else { (quote_spanned!(sp=> __ptx_one!()), quote_spanned!(sp=> *=)) };
                g.pre.push(quote_spanned!(sp=> let mut #acc #ann = #init;));
                g.body.push(quote_spanned!(sp=> #acc #op #value;));
                return Some(quote_spanned!(sp=> #acc));
            }
            Consumer::Count => {
                g.pre.push(quote_spanned!(sp=> let mut #acc = 0usize;));
                g.body.push(quote_spanned!(sp=> #acc += 1;));
                return Some(quote_spanned!(sp=> #acc));
            }
            Consumer::Fold(init, f) => {
                g.pre.push(quote_spanned!(sp=> let mut #acc = #init;));
                let e = self.apply(g, f, &[Item::Val(acc.clone()), item])?;
                g.body.push(quote_spanned!(sp=> #acc = #e;));
                return Some(quote_spanned!(sp=> #acc));
            }
            Consumer::ForEach(f) => {
                let e = self.apply(g, f, &[item])?;
                g.body.push(quote_spanned!(sp=> #e;));
                return Some(quote_spanned!(sp=> ));
            }
            Consumer::Any(f) | Consumer::All(f) => {
                let any = matches!(c, Consumer::Any(_));
                let e = self.apply(g, f, &[item])?;
                let (start, test) = if any { (quote_spanned!(sp=> false), quote_spanned!(sp=> #e)) } else { (quote_spanned!(sp=> true), quote_spanned!(sp=> !(#e))) };
                g.pre.push(quote_spanned!(sp=> let mut #acc = #start;));
                g.body.push(quote_spanned!(sp=> if #test { #acc = !#start; #brk; }));
                return Some(quote_spanned!(sp=> #acc));
            }
            Consumer::Min | Consumer::Max => {
                let x = self.hold(g, &item);
                let better = if matches!(c, Consumer::Min) { quote_spanned!(sp=> #x < #acc) } else { quote_spanned!(sp=> #x >= #acc) };
                g.pre.push(quote_spanned!(sp=> let mut #acc = __ptx_zero!(); let mut #found = false;));
                g.body.push(quote_spanned!(sp=> if !#found || #better { #acc = #x; } #found = true;));
            }
            Consumer::ByKey(f, max) => {
                let (x, k, best) = (self.hold(g, &item), g.fresh("k"), g.fresh("best"));
                let e = self.apply(g, f, &[Item::Val(x.clone())])?;
                let better = if *max { quote_spanned!(sp=> #k >= #best) } else { quote_spanned!(sp=> #k < #best) };
                g.pre.push(quote_spanned!(sp=> let mut #acc = __ptx_zero!(); let mut #best = __ptx_zero!(); let mut #found = false;));
                g.body.push(quote_spanned!(sp=> let #k = #e; if !#found || #better { #acc = #x; #best = #k; } #found = true;));
            }
            Consumer::By(f, max) => {
                let x = self.hold(g, &item);
                let gt = self.greater(g, f, &acc, &x)?;
                let replace = if *max { quote_spanned!(sp=> !#gt) } else { quote_spanned!(sp=> #gt) };
                g.pre.push(quote_spanned!(sp=> let mut #acc; let mut #found = false;));
                g.body.push(quote_spanned!(sp=> if !#found { #acc = #x; #found = true; } else if (#replace) { #acc = #x; }));
            }
            Consumer::Last => {
                g.pre.push(quote_spanned!(sp=> let mut #acc; let mut #found = false;));
                g.body.push(quote_spanned!(sp=> #acc = #value; #found = true;));
            }
            Consumer::Reduce(f) => {
                let e = self.apply(g, f, &[Item::Val(acc.clone()), item])?;
                g.pre.push(quote_spanned!(sp=> let mut #acc; let mut #found = false;));
                g.body.push(quote_spanned!(sp=> if #found { #acc = #e; } else { #acc = #value; #found = true; }));
            }
            Consumer::Position(f) => {
                let e = self.apply(g, f, &[item])?;
                g.pre.push(quote_spanned!(sp=> let mut #acc = 0usize; let mut #found = false;));
                g.body.push(quote_spanned!(sp=> if #e { #found = true; #brk; } #acc += 1;));
            }
            Consumer::Find(f) => {
                let x = self.hold(g, &item);
                let e = self.apply(g, f, &[item])?;
                g.pre.push(quote_spanned!(sp=> let mut #acc; let mut #found = false;));
                g.body.push(quote_spanned!(sp=> if #e { #acc = #x; #found = true; #brk; }));
            }
        }
        let span = g.span;
        Some(match usage? {
            OptionUse::Unwrap(msg) => {
                let msg = match msg {
                    Some(m) => quote_spanned!(sp=> #m),
                    None => quote_spanned!(sp=> "called `Option::unwrap()` on a `None` value"),
                };
                quote_spanned!(span=> if !#found { panic!(#msg); } #acc)
            }
            OptionUse::UnwrapOr(d) => {
                let dv = g.fresh("d");
                quote_spanned!(sp=> let #dv = #d; if #found { #acc } else { #dv })
            }
            OptionUse::IsSome(true) => quote_spanned!(sp=> #found),
            OptionUse::IsSome(false) => quote_spanned!(sp=> !#found),
            OptionUse::Branch { pat, some, none } => {
                let binds = self.bind_item(pat, &Item::Val(acc.clone()), None);
                // In parentheses, as a closure's body: an arm is an expression, not a statement.
                let none = none.as_ref().map(|n| quote_spanned!(sp=> (#n))).unwrap_or(quote_spanned!(sp=> {}));
                quote_spanned!(sp=> if #found { #(#binds)* (#some) } else { #none })
            }
        })
    }

    /// Binds a pattern to an item: names to values (marked as standing for references, so
    /// `*x` is `x`) or to places (`iter_mut`).
    pub fn bind_item(&mut self, pat: &syn::Pat, item: &Item, ann: Option<&syn::Type>) -> Vec<TokenStream> {
        let sp = self.natural.span;
        match (pat, item) {
            (syn::Pat::Ident(pi), _) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let (name, m) = (&pi.ident, &pi.mutability);
                let ann = ann.map(|t| {
                    let t = strip_refs_ty(t);
                    quote_spanned!(sp=> : #t)
                });
                match item {
                    Item::Val(v) => vec![quote_spanned!(sp=> #[__ptx_view] let #m #name #ann = #v;)],
                    Item::Alias(e) => vec![quote_spanned!(sp=> #[__ptx_alias] let #name = #e;)],
                    Item::Tup(_) => {
                        let v = item.value();
                        vec![quote_spanned!(sp=> let #m #name #ann = #v;)]
                    }
                }
            }
            (syn::Pat::Type(pt), _) => self.bind_item(&pt.pat, item, Some(&pt.ty)),
            (syn::Pat::Reference(r), _) => self.bind_item(&r.pat, item, ann),
            (syn::Pat::Paren(p), _) => self.bind_item(&p.pat, item, ann),
            (syn::Pat::Wild(_), _) => Vec::new(),
            (syn::Pat::Tuple(t), Item::Tup(xs)) if t.elems.len() == xs.len() && !t.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) => {
                t.elems.iter().zip(xs).flat_map(|(p, x)| self.bind_item(p, x, None)).collect()
            }
            (p, _) => {
                let v = item.value();
                // `let` takes an or-pattern only in parentheses (`for a | a in ..` may not).
                let p = if matches!(p, syn::Pat::Or(_)) { quote_spanned!(sp=> (#p)) } else { quote_spanned!(sp=> #p) };
                vec![quote_spanned!(sp=> let #p = #v;)]
            }
        }
    }
}
