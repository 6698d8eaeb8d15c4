//! The receiver of a called method and the arguments that remain: one rule for every call
//! whose callee's signature the front end reads itself (a generic function, a generic method,
//! a generic trait's method).
//!
//! A signature splits into how it takes the receiver ([`Recv`]) and its other parameters'
//! types ([`split_receiver`]); a call splits into its receiver and its other arguments
//! ([`Checker::split_call`]): method syntax gives the receiver (`v.scale(2.0)`), a path call
//! passes it first (`Vec3::scale(v, 2.0)`), and an associated function has none.

use super::hir::Expr;
use super::Checker;
use crate::link::info::Recv;
use proc_macro2::Span;

/// How `sig` takes its receiver ([`Recv::Assoc`]: none), and the types of its other parameters.
pub(super) fn split_receiver(sig: &syn::Signature) -> (Recv, Vec<&syn::Type>) {
    let mut recv = Recv::Assoc;
    let mut inputs = Vec::new();
    for a in &sig.inputs {
        match a {
            syn::FnArg::Receiver(r) => recv = Recv::of(r),
            syn::FnArg::Typed(pt) => inputs.push(&*pt.ty),
        }
    }
    (recv, inputs)
}

impl Checker<'_> {
    /// A call's receiver and remaining arguments for a callee taking its receiver as `recv_kind`:
    /// `recv` from method syntax, else the first argument. `owner`: the type or trait the
    /// function belongs to, named in the errors. `Err`: the call's expression, an error reported.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_call<'x>(&mut self, recv: Option<Expr>, recv_kind: Recv, args: &'x [&'x syn::Expr], owner: &str, ty: &str, name: &str, name_span: Span) -> Result<(Option<Expr>, &'x [&'x syn::Expr]), Expr> {
        match (recv, recv_kind) {
            (Some(_), Recv::Assoc) => Err(self.error(name_span, format!("`{name}` is an associated function of `{owner}`, not a method: call it as `{ty}::{name}(..)`"))),
            (Some(r), _) => Ok((Some(r), args)),
            (None, Recv::Assoc) => Ok((None, args)),
            (None, Recv::Mut) => Err(self.error(name_span, format!("call `&mut self` methods with method syntax (`v.{name}(..)`): the receiver is written back to its place"))),
            (None, _) => match args.split_first() {
                Some((first, rest)) => Ok((Some(self.expr(first)), rest)),
                None => Err(self.error(name_span, format!("`{name}` takes the receiver as its first argument"))),
            },
        }
    }
}
