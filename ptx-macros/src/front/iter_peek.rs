//! `let mut it = s.iter().peekable();` (or `(a..b).peekable()`) and its `next()`, `peek()`,
//! `next_if(f)` and `next_if_eq(&v)`, as the loops over a cursor one writes by hand.
//!
//! No iterator object exists on the device (`iter.rs`): the binding is a cursor, an index and
//! the end, held in registers, and each method is the few lines Rust's `Peekable` amounts to
//! over a slice or range — `next()` is `if i < n { i += 1; Some(&s[i - 1]) } else { None }`
//! (the element referenced where it is, as `s.get(i)` is; an array's is read from a copy in
//! `.local`). `peek()` returns `Option<&&T>` over a slice (`Option<&T>` over a range), as Rust's
//! does: a reference to the item, a `.local` slot holding it. The cursor is used only through
//! these methods: passing or storing it is an error that says so.

use crate::syntax::first_token::FirstToken;
use super::hir::Stmt;
use super::iter_chain::{Chain, Mode, Source};
use super::ty::Ty;
use super::Checker;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};

/// A peekable iterator bound to a local: the names of its cursor.
#[derive(Clone)]
pub struct Cursor {
    /// The slice or array (`None`: a range, whose items are the cursor's values).
    seq: Option<syn::Ident>,
    /// Whether `seq` is an array (a value in registers: referenced through a copy).
    array: bool,
    /// The next item's index (or value), and the end.
    i: syn::Ident,
    n: syn::Ident,
}

pub const CURSOR_USE: &str = "a `peekable()` iterator is compiled as a cursor over its slice or range and is used only through `it.next()`, `it.peek()`, `it.next_if(|x| ..)` and `it.next_if_eq(&v)` (in `while let Some(x) = it.next() { .. }`, say); it cannot be passed, stored, copied or iterated with `for` — write `while let Some(x) = it.next()`";

const SOURCES: &str = "`peekable()` is supported directly on `s.iter()` over a slice or array and on a range `a..b` (`let mut it = s.iter().peekable();`); for other chains, write an index loop reading `s[i + 1]`, or `windows(2)`";

impl<'a> Checker<'a> {
    /// `let mut it = <source>.peekable();`: the cursor's statements, or `None` when `l` is not
    /// such a `let`.
    pub fn peekable_let(&mut self, l: &syn::Local) -> Option<Vec<Stmt>> {
        let init = l.init.as_ref()?;
        let syn::Expr::MethodCall(m) = super::expr::strip(&init.expr) else { return None };
        if m.method != "peekable" || !m.args.is_empty() || init.diverge.is_some() {
            return None;
        }
        let name = match &l.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
                _ => return None,
            },
            _ => return None,
        };
        let span = m.first_span();
        let chain = super::iter_chain::parse(&m.receiver, false);
        self.natural.next += 1;
        let k = self.natural.next;
        let (i, n) = (format_ident!("__ptx_pk{}_i", k, span = span), format_ident!("__ptx_pk{}_n", k, span = span));
        let (lets, seq): (TokenStream, Option<syn::Ident>) = match chain {
            Some(Chain { source: Source::Seq { expr, mode: Mode::View }, adapters, .. }) if adapters.is_empty() => {
                let s = format_ident!("__ptx_pk{}_s", k, span = span);
                (quote_spanned! {span=> let #s = #expr; let #n: usize = #s.len(); let mut #i: usize = 0; }, Some(s))
            }
            Some(Chain { source: Source::Range(r), adapters, .. }) if adapters.is_empty() => match super::expr::strip(&r) {
                syn::Expr::Range(syn::ExprRange { start: Some(a), end: Some(b), limits: syn::RangeLimits::HalfOpen(_), .. }) => {
                    (quote_spanned! {span=> let #n = #b; let mut #i = #a; }, None)
                }
                _ => return Some(self.peekable_refused(&name, span)),
            },
            _ => return Some(self.peekable_refused(&name, span)),
        };
        let stmts: syn::Block = match syn::parse2(quote_spanned!(span=> { #lets })) {
            Ok(b) => b,
            Err(e) => {
                self.errors.at(span, format!("internal: peekable code does not parse: {e}"));
                return Some(Vec::new());
            }
        };
        let mut out = Vec::new();
        for s in &stmts.stmts {
            if let syn::Stmt::Local(l) = s {
                out.extend(self.let_stmt(l));
            }
        }
        let array = match &seq {
            Some(s) => match self.lookup(&s.to_string()) {
                Some(id) => {
                    let t = self.local(id).ty.clone();
                    matches!(self.peel_refs(&t), Ty::Array { .. })
                }
                None => false,
            },
            None => false,
        };
        let id = self.declare(&name.to_string(), Ty::Unit, true, name.span());
        self.natural.cursors.insert(id, Cursor { seq, array, i, n });
        Some(out)
    }

    /// `peekable()` on a source it does not support: one error; the name is bound with no
    /// type, so its uses report nothing more.
    fn peekable_refused(&mut self, name: &syn::Ident, span: Span) -> Vec<Stmt> {
        self.errors.at(span, SOURCES);
        self.declare(&name.to_string(), Ty::Error, true, name.span());
        Vec::new()
    }

    /// `it.next()`, `it.peek()`, `it.next_if(f)`, `it.next_if_eq(&v)` on a cursor.
    pub fn cursor_method(&mut self, m: &syn::ExprMethodCall) -> Option<super::hir::Expr> {
        let syn::Expr::Path(p) = super::expr::strip(&m.receiver) else { return None };
        let id = self.lookup(&p.path.get_ident()?.to_string())?;
        let c = self.natural.cursors.get(&id)?.clone();
        let span = m.first_span();
        let Cursor { seq, array, i, n } = &c;
        let elem = |at: TokenStream| match seq {
            Some(s) if *array => quote_spanned!(span=> &#s[#at]),
            Some(s) => quote_spanned!(span=> unsafe { #s.get_unchecked(#at) }),
            None => at,
        };
        let some = quote_spanned!(span=> ::core::option::Option::Some);
        let none = quote_spanned!(span=> ::core::option::Option::None);
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let at = elem(quote_spanned!(span=> #i));
        let tokens = match (m.method.to_string().as_str(), args.as_slice()) {
            ("next", []) => {
                let prev = elem(quote_spanned!(span=> #i - 1));
                quote_spanned!(span=> if #i < #n { #i += 1; #some(#prev) } else { #none })
            }
            ("peek", []) => quote_spanned!(span=> if #i < #n { #some(&{ #at }) } else { #none }),
            ("next_if", [f]) => {
                let x = format_ident!("__ptx_pk_x", span = span);
                let g = format_ident!("__ptx_pk_f", span = span);
                // A closure written here is bound to a local to be inlined; a closure's name or
                // a function's path is called as it is.
                let bind = matches!(super::expr::strip(f), syn::Expr::Closure(_)).then(|| quote_spanned!(span=> let #g = #f;));
                let callee = if bind.is_some() { quote_spanned!(span=> #g) } else { quote_spanned!(span=> #f) };
                quote_spanned!(span=> {
                    #bind
                    if #i < #n {
                        let #x = #at;
                        if #callee(&#x) { #i += 1; #some(#x) } else { #none }
                    } else { #none }
                })
            }
            ("next_if_eq", [v]) => {
                let x = format_ident!("__ptx_pk_x", span = span);
                let e = format_ident!("__ptx_pk_e", span = span);
                // Rust compares the item with `*expected` by value (`&T == &T` compares the `T`s).
                let cmp = match seq {
                    Some(_) => quote_spanned!(span=> *#x == **#e),
                    None => quote_spanned!(span=> #x == *#e),
                };
                quote_spanned!(span=> {
                    let #e = #v;
                    if #i < #n {
                        let #x = #at;
                        if #cmp { #i += 1; #some(#x) } else { #none }
                    } else { #none }
                })
            }
            (other, _) => {
                let msg = format!("`{other}` on a `peekable()` iterator is not supported in device code: it is a cursor used through `next()`, `peek()`, `next_if(|x| ..)` and `next_if_eq(&v)`; write the rest as an index loop over the slice or range");
                return Some(self.error(m.method.span(), msg));
            }
        };
        Some(self.generated(tokens, span))
    }

    /// The error for a cursor used as a value.
    pub fn cursor_escapes(&mut self, id: super::hir::LocalId, span: Span) -> Option<super::hir::Expr> {
        self.natural.cursors.contains_key(&id).then(|| self.error(span, CURSOR_USE))
    }
}
