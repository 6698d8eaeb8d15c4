//! An `Option` of a reference that an iterator chain returns, kept as a value
//! (`let best = s.iter().max_by(|a, b| a.total_cmp(b));`, `let f = s.iter().find(..);`).
//!
//! The chain's items are the elements' values (`iter.rs`), so the consumer holds the chosen
//! element's value. Kept as `Option<&T>`, it is the reference to a copy of that value in a
//! `.local` slot, as `get` on an array is (`sum.rs`): a shared reference reads the same bytes,
//! within the function that made it. A function whose return type can hold a reference keeps
//! the rule to use the `Option` at once or `.copied()` it, so the copy never outlives its frame.
//! Items that are references already (`chunks`, `windows`: `&[T]`) are kept as they are. Chains whose items hold references inside a tuple (`enumerate`, `zip`) or places
//! (`iter_mut`) are not kept (`iter.rs` says to use the `Option` at once or copy it).

use super::iter_chain::{Adapter, Chain, Mode, OptionUse, Source};
use proc_macro2::Span;

/// How the `Option` of a reference a chain returns is kept, when it can be.
pub fn kept_ref_option(chain: &Chain, span: Span) -> Option<OptionUse> {
    for (a, _) in &chain.adapters {
        if matches!(a, Adapter::Enumerate | Adapter::Zip(_) | Adapter::FlatMap(_)) {
            return None;
        }
    }
    let pat: syn::Pat = syn::parse_quote_spanned!(span=> __ptx_kept);
    let some: syn::Expr = match &chain.source {
        Source::Seq { mode: Mode::View, .. } | Source::Concat(..) => {
            syn::parse_quote_spanned!(span=> { let __ptx_kept_copy = #pat; ::core::option::Option::Some(&__ptx_kept_copy) })
        }
        Source::Chunks { mutable: false, .. } => syn::parse_quote_spanned!(span=> ::core::option::Option::Some(#pat)),
        _ => return None,
    };
    let none: syn::Expr = syn::parse_quote_spanned!(span=> ::core::option::Option::None);
    Some(OptionUse::Branch { pat, some, none: Some(none) })
}

impl<'a> super::Checker<'a> {
    /// Whether the function returns a type that can hold a reference: a kept reference to a
    /// `.local` copy must not leave the function that made it (its frame ends there), so such a
    /// function keeps the rule to use the `Option` at once or `.copied()` it.
    pub fn returns_reference(&self) -> bool {
        fn holds(t: &super::ty::Ty) -> bool {
            match t {
                super::ty::Ty::Ptr { .. } | super::ty::Ty::Slice { .. } | super::ty::Ty::Var(_) => true,
                super::ty::Ty::Tuple(ts) | super::ty::Ty::Sum { args: ts, .. } => ts.iter().any(holds),
                _ => false,
            }
        }
        holds(&self.infer.resolve(&self.ret))
    }
}
