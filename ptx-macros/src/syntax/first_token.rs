//! The span of a syntax node as the compiler reports it, found without printing the node.
//!
//! `syn::spanned::Spanned::span` prints the node back to tokens and joins its first token's
//! span with its last's. Inside a macro on stable Rust `Span::join` gives nothing, so what it
//! returns is the first token tree's span, after a walk of the whole subtree that builds a
//! compiler token stream (a call into rustc per token). The front end takes the span of every
//! expression it checks, and of most statements, so a body nested `d` deep was printed `d`
//! times over; an inlined function's body (a labelled block around all of it) once more per
//! level. [`FirstToken::first_span`] goes to the first token tree directly: the same span
//! (a delimited group's first tree is the group, whose span covers it), at the cost of a walk
//! down the left edge.
//!
//! Where spans do join (the fallback implementation, in unit tests), `Spanned::span` covers the
//! whole node and this only its start; the front end uses spans for where an error or a line
//! starts, which agree.

use proc_macro2::Span;
use syn::spanned::Spanned;

/// The span of the node's first token tree.
pub trait FirstToken {
    fn first_span(&self) -> Span;
}

/// The first outer attribute's `#`, else `rest`.
fn after_attrs(attrs: &[syn::Attribute], rest: impl FnOnce() -> Span) -> Span {
    match attrs.first() {
        Some(a) => a.pound_token.span,
        None => rest(),
    }
}

fn label_or(label: &Option<syn::Label>, keyword: Span) -> Span {
    label.as_ref().map_or(keyword, |l| l.name.apostrophe)
}

impl FirstToken for syn::Path {
    fn first_span(&self) -> Span {
        match (&self.leading_colon, self.segments.first()) {
            (Some(c), _) => c.spans[0],
            (None, Some(s)) => s.ident.span(),
            (None, None) => self.span(),
        }
    }
}

fn qpath(qself: &Option<syn::QSelf>, path: &syn::Path) -> Span {
    qself.as_ref().map_or_else(|| path.first_span(), |q| q.lt_token.span)
}

impl FirstToken for syn::Block {
    fn first_span(&self) -> Span {
        self.brace_token.span.join()
    }
}

impl FirstToken for syn::Macro {
    fn first_span(&self) -> Span {
        self.path.first_span()
    }
}

impl FirstToken for syn::Local {
    fn first_span(&self) -> Span {
        after_attrs(&self.attrs, || self.let_token.span)
    }
}

impl FirstToken for syn::Stmt {
    fn first_span(&self) -> Span {
        match self {
            syn::Stmt::Local(l) => l.first_span(),
            syn::Stmt::Expr(e, _) => e.first_span(),
            syn::Stmt::Macro(m) => after_attrs(&m.attrs, || m.mac.first_span()),
            syn::Stmt::Item(i) => i.span(),
        }
    }
}

/// `FirstToken` for each `syn::Expr` variant's struct (its attributes, else the span `$first`
/// computes from `$e`, the struct) and for `syn::Expr` itself.
macro_rules! expr_variants {
    ($($variant:ident($ty:ident): |$e:ident| $first:expr;)*) => {
        $(impl FirstToken for syn::$ty {
            fn first_span(&self) -> Span {
                let $e = self;
                after_attrs(&$e.attrs, || $first)
            }
        })*

        impl FirstToken for syn::Expr {
            fn first_span(&self) -> Span {
                match self {
                    $(syn::Expr::$variant(x) => x.first_span(),)*
                    // `Verbatim` and variants syn may add.
                    _ => self.span(),
                }
            }
        }
    };
}

expr_variants! {
    Array(ExprArray): |e| e.bracket_token.span.join();
    Assign(ExprAssign): |e| e.left.first_span();
    Async(ExprAsync): |e| e.async_token.span;
    Await(ExprAwait): |e| e.base.first_span();
    Binary(ExprBinary): |e| e.left.first_span();
    Block(ExprBlock): |e| label_or(&e.label, e.block.first_span());
    Break(ExprBreak): |e| e.break_token.span;
    Call(ExprCall): |e| e.func.first_span();
    Cast(ExprCast): |e| e.expr.first_span();
    Closure(ExprClosure): |e| {
        let later = || e.constness.map(|t| t.span).or(e.movability.map(|t| t.span)).or(e.asyncness.map(|t| t.span)).or(e.capture.map(|t| t.span));
        e.lifetimes.as_ref().map(|l| l.for_token.span).or_else(later).unwrap_or(e.or1_token.spans[0])
    };
    Const(ExprConst): |e| e.const_token.span;
    Continue(ExprContinue): |e| e.continue_token.span;
    Field(ExprField): |e| e.base.first_span();
    ForLoop(ExprForLoop): |e| label_or(&e.label, e.for_token.span);
    Group(ExprGroup): |e| e.group_token.span;
    If(ExprIf): |e| e.if_token.span;
    Index(ExprIndex): |e| e.expr.first_span();
    Infer(ExprInfer): |e| e.underscore_token.spans[0];
    Let(ExprLet): |e| e.let_token.span;
    Lit(ExprLit): |e| e.lit.span();
    Loop(ExprLoop): |e| label_or(&e.label, e.loop_token.span);
    Macro(ExprMacro): |e| e.mac.first_span();
    Match(ExprMatch): |e| e.match_token.span;
    MethodCall(ExprMethodCall): |e| e.receiver.first_span();
    Paren(ExprParen): |e| e.paren_token.span.join();
    Path(ExprPath): |e| qpath(&e.qself, &e.path);
    Range(ExprRange): |e| match (&e.start, &e.limits) {
        (Some(s), _) => s.first_span(),
        (None, syn::RangeLimits::HalfOpen(t)) => t.spans[0],
        (None, syn::RangeLimits::Closed(t)) => t.spans[0],
    };
    RawAddr(ExprRawAddr): |e| e.and_token.spans[0];
    Reference(ExprReference): |e| e.and_token.spans[0];
    Repeat(ExprRepeat): |e| e.bracket_token.span.join();
    Return(ExprReturn): |e| e.return_token.span;
    Struct(ExprStruct): |e| qpath(&e.qself, &e.path);
    Try(ExprTry): |e| e.expr.first_span();
    TryBlock(ExprTryBlock): |e| e.try_token.span;
    Tuple(ExprTuple): |e| e.paren_token.span.join();
    Unary(ExprUnary): |e| match e.op {
        syn::UnOp::Deref(t) => t.spans[0],
        syn::UnOp::Not(t) => t.spans[0],
        syn::UnOp::Neg(t) => t.spans[0],
        _ => e.span(),
    };
    Unsafe(ExprUnsafe): |e| e.unsafe_token.span;
    While(ExprWhile): |e| label_or(&e.label, e.while_token.span);
    Yield(ExprYield): |e| e.yield_token.span;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first token's start, as `Spanned::span` starts, for every kind of expression.
    #[test]
    fn starts_where_spanned_starts() {
        let body: syn::Block = syn::parse_str(
            "{ #[allow(x)] a; [1, 2]; a = 1; x.await; a + b * c; 'l: { 1 } { 2 } break; f(x); x as u8; |x| x; move |x| x;              for<'a> |x: &'a u8| x; const { 1 }; continue; s.f; 'm: for i in 0..n {} for i in 0..n {} if a {} a[i]; let _ = 1;              1.5; 'o: loop {} loop {} m!(x); ::m!(x); match a {} x.f(1); (a); a::b; ::a::b; <T as U>::f; a..b; ..b; ..=b; .. ;              &raw const a; &a; &&a; [0; 4]; return; S { x }; <T>::S { x }; f()?; (1, 2); *a; !a; -a; unsafe { 1 };              'w: while a {} while a {} let x = 1; }",
        )
        .unwrap();
        assert!(body.stmts.len() > 50);
        for s in &body.stmts {
            assert_eq!(s.first_span().start(), s.span().start(), "{}", quote::ToTokens::to_token_stream(s));
            if let syn::Stmt::Expr(e, _) = s {
                assert_eq!(e.first_span().start(), e.span().start(), "{}", quote::ToTokens::to_token_stream(e));
            }
        }
    }
}
