//! Iterator chains as the device compiler reads them: a source (a range, a slice or array,
//! its chunks or windows), a list of adapters and a consumer (a `for` loop, `sum`, `fold`, ...).
//! A chain is a static structure, read from the syntax; `iter` turns it into a counted loop.

use crate::syntax::first_token::FirstToken;
use super::expr::strip;
use proc_macro2::Span;

/// How the items of a slice or array are handed out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// `iter()`, `for x in &s`: a shared reference, held as the element's value.
    View,
    /// `iter_mut()`, `for x in &mut s`: the element itself, a place re-read at each use.
    Alias,
    /// `for x in s`: by the source's type (`&mut [T]` is `Alias`, the rest `View`).
    Auto,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Chunks {
    Exact,
    Last,
    Windows,
}

#[derive(Clone)]
pub enum Source {
    /// `a..b` / `a..=b`, as written.
    Range(syn::Expr),
    Seq { expr: syn::Expr, mode: Mode },
    Chunks { expr: syn::Expr, size: syn::Expr, kind: Chunks, mutable: bool },
    /// `a.chain(b)`: both chains as written (`iter_concat` checks they are two sequences).
    Concat(Box<Chain>, Box<Chain>),
}

#[derive(Clone)]
pub enum Adapter {
    Map(syn::Expr),
    Filter(syn::Expr),
    /// `filter_map(f)` and `map_while(f)`: `f` gives an `Option`; `None` skips the item
    /// (`filter_map`) or ends the loop (`map_while`).
    FilterMap { f: syn::Expr, stop: bool },
    TakeWhile(syn::Expr),
    Inspect(syn::Expr),
    Enumerate,
    Zip(syn::Expr),
    Rev,
    StepBy(syn::Expr),
    Skip(syn::Expr),
    Take(syn::Expr),
    Copied,
    /// `flat_map(|x| inner)` (the closure, its body a chain) and `flatten()` (`None`).
    FlatMap(Option<syn::Expr>),
}

#[derive(Clone)]
pub struct Chain {
    pub source: Source,
    pub adapters: Vec<(Adapter, Span)>,
    pub span: Span,
}

/// The chain `e` is, if it is one. `bare`: a plain expression is a sequence (`for x in s`, the
/// argument of `zip`); otherwise the chain must name its source (`s.iter()`, `(0..n)`).
pub fn parse(e: &syn::Expr, bare: bool) -> Option<Chain> {
    let span = e.first_span();
    let mut adapters = Vec::new();
    let mut cur = strip(e);
    let source = loop {
        match cur {
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                let arg = || m.args.first().cloned();
                let adapter = match (name.as_str(), m.args.len()) {
                    ("map", 1) => Some(Adapter::Map(arg()?)),
                    ("filter", 1) => Some(Adapter::Filter(arg()?)),
                    ("take_while", 1) => Some(Adapter::TakeWhile(arg()?)),
                    ("filter_map", 1) => Some(Adapter::FilterMap { f: arg()?, stop: false }),
                    ("map_while", 1) => Some(Adapter::FilterMap { f: arg()?, stop: true }),
                    ("inspect", 1) => Some(Adapter::Inspect(arg()?)),
                    ("enumerate", 0) => Some(Adapter::Enumerate),
                    ("zip", 1) => Some(Adapter::Zip(arg()?)),
                    ("rev", 0) => Some(Adapter::Rev),
                    ("step_by", 1) => Some(Adapter::StepBy(arg()?)),
                    ("skip", 1) => Some(Adapter::Skip(arg()?)),
                    ("take", 1) => Some(Adapter::Take(arg()?)),
                    ("copied" | "cloned", 0) => Some(Adapter::Copied),
                    ("flat_map", 1) => Some(Adapter::FlatMap(arg())),
                    ("flatten", 0) => Some(Adapter::FlatMap(None)),
                    _ => None,
                };
                if let Some(a) = adapter {
                    adapters.push((a, m.method.span()));
                    cur = strip(&m.receiver);
                    continue;
                }
                let recv = (*m.receiver).clone();
                let chunks = |kind, mutable| Source::Chunks { expr: recv.clone(), size: m.args[0].clone(), kind, mutable };
                break match (name.as_str(), m.args.len()) {
                    ("iter", 0) => Source::Seq { expr: recv, mode: Mode::View },
                    ("iter_mut", 0) => Source::Seq { expr: recv, mode: Mode::Alias },
                    ("into_iter", 0) if matches!(strip(&recv), syn::Expr::Range(_)) => Source::Range(strip(&recv).clone()),
                    ("into_iter", 0) => Source::Seq { expr: recv, mode: Mode::Auto },
                    ("chunks_exact", 1) => chunks(Chunks::Exact, false),
                    ("chunks_exact_mut", 1) => chunks(Chunks::Exact, true),
                    ("chunks", 1) => chunks(Chunks::Last, false),
                    ("chunks_mut", 1) => chunks(Chunks::Last, true),
                    ("windows", 1) => chunks(Chunks::Windows, false),
                    ("chain", 1) => match (parse(&recv, false), parse(&m.args[0], true)) {
                        (Some(a), Some(b)) => Source::Concat(Box::new(a), Box::new(b)),
                        _ => return None,
                    },
                    _ if bare && adapters.is_empty() => Source::Seq { expr: cur.clone(), mode: Mode::Auto },
                    _ => return None,
                };
            }
            syn::Expr::Range(_) => break Source::Range(cur.clone()),
            _ if bare && adapters.is_empty() => break Source::Seq { expr: cur.clone(), mode: Mode::Auto },
            _ => return None,
        }
    };
    adapters.reverse();
    Some(Chain { source, adapters, span })
}

/// Whether `e` is a range with only `.rev()`/`.step_by()`: the `for` loops the body compiler
/// had before iterators (`control::for_range`).
pub fn is_plain_range(e: &syn::Expr) -> bool {
    match strip(e) {
        syn::Expr::Range(_) => true,
        syn::Expr::MethodCall(m) => matches!((m.method.to_string().as_str(), m.args.len()), ("rev", 0) | ("step_by", 1)) && is_plain_range(&m.receiver),
        _ => false,
    }
}

/// What ends a chain when it is the receiver of a method call.
#[derive(Clone)]
pub enum Consumer {
    Sum(Option<syn::Type>),
    Product(Option<syn::Type>),
    Count,
    Fold(syn::Expr, syn::Expr),
    ForEach(syn::Expr),
    Any(syn::Expr),
    All(syn::Expr),
    /// Consumers whose result is an `Option`.
    Min,
    Max,
    /// `min_by_key(f)` (`false`) / `max_by_key(f)` (`true`): the first least / last greatest key.
    ByKey(syn::Expr, bool),
    /// `min_by(cmp)` (`false`) / `max_by(cmp)` (`true`), `cmp` as `iter_cmp` reads it.
    By(syn::Expr, bool),
    Last,
    Reduce(syn::Expr),
    Position(syn::Expr),
    Find(syn::Expr),
}

impl Consumer {
    pub fn of(m: &syn::ExprMethodCall) -> Option<Consumer> {
        let name = m.method.to_string();
        let arg = |i: usize| m.args.iter().nth(i).cloned();
        let turbofish = || {
            m.turbofish.as_ref().and_then(|t| match t.args.first() {
                Some(syn::GenericArgument::Type(t)) => Some(t.clone()),
                _ => None,
            })
        };
        Some(match (name.as_str(), m.args.len()) {
            ("sum", 0) => Consumer::Sum(turbofish()),
            ("product", 0) => Consumer::Product(turbofish()),
            ("count", 0) => Consumer::Count,
            ("fold", 2) => Consumer::Fold(arg(0)?, arg(1)?),
            ("for_each", 1) => Consumer::ForEach(arg(0)?),
            ("any", 1) => Consumer::Any(arg(0)?),
            ("all", 1) => Consumer::All(arg(0)?),
            ("min", 0) => Consumer::Min,
            ("max", 0) => Consumer::Max,
            ("min_by_key", 1) => Consumer::ByKey(arg(0)?, false),
            ("max_by_key", 1) => Consumer::ByKey(arg(0)?, true),
            ("min_by", 1) => Consumer::By(arg(0)?, false),
            ("max_by", 1) => Consumer::By(arg(0)?, true),
            ("last", 0) => Consumer::Last,
            ("reduce", 1) => Consumer::Reduce(arg(0)?),
            ("position", 1) => Consumer::Position(arg(0)?),
            ("find", 1) => Consumer::Find(arg(0)?),
            _ => return None,
        })
    }

    pub fn is_option(&self) -> bool {
        matches!(self, Consumer::Min | Consumer::Max | Consumer::ByKey(..) | Consumer::By(..) | Consumer::Last | Consumer::Reduce(_) | Consumer::Position(_) | Consumer::Find(_))
    }
}

/// What is done with an `Option` a chain returns.
#[derive(Clone)]
pub enum OptionUse {
    Unwrap(Option<syn::Expr>),
    UnwrapOr(syn::Expr),
    IsSome(bool),
    /// `if let Some(p) = .. { a } else { b }` and `match .. { Some(p) => a, None => b }`.
    Branch { pat: syn::Pat, some: syn::Expr, none: Option<syn::Expr> },
}

/// `chain.consumer()`, if `m` is one.
pub fn consumed(m: &syn::ExprMethodCall) -> Option<(Chain, Consumer)> {
    let c = Consumer::of(m)?;
    let chain = parse(&m.receiver, false)?;
    Some((chain, c))
}

/// `chain.min().unwrap_or(x)` and the like, if `m` is one.
pub fn option_method(m: &syn::ExprMethodCall) -> Option<(Chain, Consumer, OptionUse)> {
    let name = m.method.to_string();
    let mut inner = match strip(&m.receiver) {
        syn::Expr::MethodCall(inner) => inner,
        _ => return None,
    };
    // `Option<&T>::copied()`: the same value here (an item is held as its value).
    while matches!(inner.method.to_string().as_str(), "copied" | "cloned") && inner.args.is_empty() {
        match strip(&inner.receiver) {
            syn::Expr::MethodCall(m) if Consumer::of(m).is_some_and(|c| c.is_option()) => inner = m,
            _ => break,
        }
    }
    let (chain, c) = consumed(inner)?;
    if !c.is_option() {
        return None;
    }
    let arg = m.args.first().cloned();
    let usage = match (name.as_str(), m.args.len()) {
        ("unwrap", 0) => OptionUse::Unwrap(None),
        ("expect", 1) => OptionUse::Unwrap(arg),
        ("unwrap_or", 1) => OptionUse::UnwrapOr(arg?),
        ("is_some", 0) => OptionUse::IsSome(true),
        ("is_none", 0) => OptionUse::IsSome(false),
        _ => return None,
    };
    Some((chain, c, usage))
}

/// Whether the `Option` consumer `c` of `chain` holds a value, not a reference (an item of a
/// slice is held as its value, so an `Option<&T>` cannot be kept): `position`, a range's items,
/// items made by `map` or `copied`.
pub fn yields_values(chain: &Chain, c: &Consumer) -> bool {
    if matches!(c, Consumer::Position(_)) {
        return true;
    }
    for (a, _) in chain.adapters.iter().rev() {
        match a {
            Adapter::Map(_) | Adapter::FilterMap { .. } | Adapter::Copied => return true,
            Adapter::Enumerate | Adapter::Zip(_) => return false,
            _ => {}
        }
    }
    matches!(chain.source, Source::Range(_))
}

/// `chain.min().copied()` (or `cloned`) not used at once, if `m` is one.
pub fn copied_option(m: &syn::ExprMethodCall) -> Option<(Chain, Consumer)> {
    if !matches!(m.method.to_string().as_str(), "copied" | "cloned") || !m.args.is_empty() {
        return None;
    }
    let syn::Expr::MethodCall(inner) = strip(&m.receiver) else { return None };
    let (chain, c) = consumed(inner)?;
    c.is_option().then_some((chain, c))
}

/// An `Option` a chain returns, kept as a value: `match .. { Some(x) => Some(x), None => None }`.
pub fn kept_option(span: Span) -> OptionUse {
    let pat: syn::Pat = syn::parse_quote_spanned!(span=> __ptx_kept);
    let some: syn::Expr = syn::parse_quote_spanned!(span=> ::core::option::Option::Some(__ptx_kept));
    let none: syn::Expr = syn::parse_quote_spanned!(span=> ::core::option::Option::None);
    OptionUse::Branch { pat, some, none: Some(none) }
}

/// `Some(p)` as a pattern: `p`.
pub fn some_pattern(p: &syn::Pat) -> Option<syn::Pat> {
    match p {
        syn::Pat::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => ts.elems.first().cloned(),
        _ => None,
    }
}

/// `None` (or `_`) as a pattern.
pub fn none_pattern(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(i) => i.ident == "None" && i.subpat.is_none(),
        syn::Pat::Path(pp) => pp.path.is_ident("None"),
        syn::Pat::Wild(_) => true,
        _ => false,
    }
}

/// `if let Some(p) = chain.find(..) { .. } else { .. }`.
pub fn if_let(i: &syn::ExprIf) -> Option<(Chain, Consumer, OptionUse)> {
    let syn::Expr::Let(l) = strip(&i.cond) else { return None };
    let pat = some_pattern(&l.pat)?;
    let syn::Expr::MethodCall(m) = strip(&l.expr) else { return None };
    let (chain, c) = consumed(uncopied(m))?;
    if !c.is_option() {
        return None;
    }
    let some = syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: i.then_branch.clone() });
    let none = i.else_branch.as_ref().map(|(_, e)| (**e).clone());
    Some((chain, c, OptionUse::Branch { pat, some, none }))
}

/// `match chain.position(..) { Some(p) => .., None => .. }`.
pub fn match_option(m: &syn::ExprMatch) -> Option<(Chain, Consumer, OptionUse)> {
    let syn::Expr::MethodCall(call) = strip(&m.expr) else { return None };
    let (chain, c) = consumed(uncopied(call))?;
    if !c.is_option() || m.arms.len() != 2 || m.arms.iter().any(|a| a.guard.is_some()) {
        return None;
    }
    let (some_arm, none_arm) = if some_pattern(&m.arms[0].pat).is_some() { (&m.arms[0], &m.arms[1]) } else { (&m.arms[1], &m.arms[0]) };
    let pat = some_pattern(&some_arm.pat)?;
    if !none_pattern(&none_arm.pat) {
        return None;
    }
    Some((chain, c, OptionUse::Branch { pat, some: (*some_arm.body).clone(), none: Some((*none_arm.body).clone()) }))
}

/// `x.copied()` / `x.cloned()` of an `Option` a chain returns: `x`.
fn uncopied(m: &syn::ExprMethodCall) -> &syn::ExprMethodCall {
    match (m.method.to_string().as_str(), strip(&m.receiver)) {
        ("copied" | "cloned", syn::Expr::MethodCall(inner)) if m.args.is_empty() && Consumer::of(inner).is_some_and(|c| c.is_option()) => inner,
        _ => m,
    }
}
