//! Method syntax for a user trait's method on a primitive outside a generic instance:
//! `x.halve()` in a kernel, with `#[device_fn] trait Halve` and `#[device_fn] impl Halve for
//! f32` somewhere rustc sees them.
//!
//! The call names no trait, and the macro does not see the `use` that brings one into scope.
//! So the impl leaves, next to itself, one more name per method made of the primitive's and
//! the method's, as a `DeviceRepr` type's methods do
//! (`f32_has_no_built_in_method_halve__implement_a_device_fn_trait_for_f32_and_bring_its_module_into_scope`,
//! [`alias`], see `expand::method`): in the macro namespace the method's replay, in the type namespace
//! the hidden struct its node hangs on. The body fetches that name unqualified, which
//! resolves in the impl's module, where its items are glob-imported (`use num::*`) or where
//! the name itself is imported. Elsewhere rustc reports the name as missing at the call, with
//! its suggestion of the `use` that brings it. rustc resolves a primitive's inherent methods
//! before any trait's, so a name of those ([`is_inherent`]) is never a user trait's.

use super::hir::{Callee, Expr, ExprKind};
use super::ty::Ty;
use super::Checker;
use crate::link::info::{Info, MethodInfo, Recv};
use proc_macro2::Span;
use ptx_abi::Scalar;
use quote::quote;
use std::rc::Rc;

/// Inherent methods of the float and integer primitives (and of the prelude's traits) that a
/// user trait's method cannot shadow: these stay the body compiler's built-ins (or its errors).
const INHERENT: &[&str] = &[
    // floats
    "floor", "ceil", "round", "round_ties_even", "trunc", "fract", "abs", "signum", "copysign", "mul_add", "div_euclid", "rem_euclid", "powi", "powf", "sqrt", "exp", "exp2",
    "ln", "log", "log2", "log10", "abs_sub", "cbrt", "hypot", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sin_cos", "exp_m1", "ln_1p", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "is_nan", "is_infinite", "is_finite", "is_subnormal", "is_normal", "classify", "is_sign_positive", "is_sign_negative", "next_up",
    "next_down", "recip", "to_degrees", "to_radians", "maximum", "minimum", "midpoint", "to_int_unchecked", "to_bits", "total_cmp", "gamma", "ln_gamma",
    // integers
    "count_ones", "count_zeros", "leading_zeros", "trailing_zeros", "leading_ones", "trailing_ones", "rotate_left", "rotate_right", "swap_bytes", "reverse_bits",
    "pow", "isqrt", "ilog", "ilog2", "ilog10", "abs_diff", "is_positive", "is_negative", "div_floor", "div_ceil", "next_multiple_of", "next_power_of_two",
    "is_power_of_two", "unsigned_abs", "cast_signed", "cast_unsigned", "is_multiple_of", "to_be", "to_le", "to_be_bytes", "to_le_bytes", "to_ne_bytes",
    // the prelude's traits
    "clone", "clone_from", "to_owned", "into", "try_into", "eq", "ne", "partial_cmp", "lt", "le", "gt", "ge", "cmp", "max", "min", "clamp", "to_string",
];

/// Prefixes of the integer primitives' families of inherent methods.
const INHERENT_PREFIXES: &[&str] = & ["checked_", "saturating_", "wrapping_", "overflowing_", "strict_", "unchecked_", "carrying_"];

/// Whether `name` is an inherent method of a primitive (or of a prelude trait), which rustc
/// resolves before any user trait's.
pub fn is_inherent(name: &str) -> bool {
    INHERENT.contains(&name) || INHERENT_PREFIXES.iter().any(|p| name.starts_with(p)) || super::round::parse(name).is_some()
}

/// Whether `x.name(..)` on a value of type `s` may be a user trait's method.
pub fn is_user_candidate(s: Scalar, name: &str) -> bool {
    !matches!(s, Scalar::F16 | Scalar::BF16 | Scalar::Bool) && !is_inherent(name)
}

/// The name that method syntax on the primitive `prim` fetches a user trait's method `method`
/// by, and that the impl leaves next to itself (`expand::method`). It reads as the message
/// rustc shows when no impl is in scope: ``cannot find macro
/// `f32_has_no_built_in_method_frobnicate__implement_a_device_fn_trait_for_f32_and_bring_its_module_into_scope` ``.
pub fn alias(prim: &str, method: &str, span: Span) -> proc_macro2::Ident {
    let method = method.trim_start_matches("r#");
    proc_macro2::Ident::new(&format!("{prim}_has_no_built_in_method_{method}__implement_a_device_fn_trait_for_{prim}_and_bring_its_module_into_scope"), span)
}

impl Checker<'_> {
    /// `recv.name(args)` with `recv` of primitive type `s`: the method of the `#[device_fn]`
    /// impl of a user trait for `s` that its [`alias`]
    /// reaches here (fetched when not known yet).
    pub fn prim_method_syntax(&mut self, recv: Expr, s: Scalar, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let prim = format!("{s:?}").to_lowercase();
        let alias = alias(&prim, name, name_span);
        let path = quote!(#alias);
        let info = match self.env.get(&path).cloned() {
            Some(Info::Method(m)) => m,
            // A generic trait's method (`impl Scale<f32> for f32`): its arguments pick the impl.
            Some(Info::GenericTrait(g)) => return self.prim_generic_call(s, &g, proc_macro2::TokenStream::new(), None, Some(recv), name, args, span, name_span),
            Some(_) => return self.error(name_span, format!("`{alias}` is not the replay of a method of a `#[device_fn]` impl for `{prim}`")),
            None => {
                if !self.prim_method_reported(&prim, name, &alias.to_string(), name_span) {
                    self.needs.need(&path);
                }
                for a in args {
                    self.expr(a);
                }
                return self.error_expr(span);
            }
        };
        match info.recv {
            Recv::Value | Recv::Ref => {}
            Recv::Assoc => return self.error(name_span, format!("`{name}` is an associated function: call it as `<{prim} as Trait>::{name}(..)`")),
            Recv::Mut => return self.error(name_span, format!("`&mut self` methods of a trait for a primitive are not supported in device code: return the new value (`fn {name}(self) -> Self`)")),
        }
        if args.len() != info.params.len() {
            return self.error(name_span, format!("`{name}` takes {} argument(s) but {} were given", info.params.len(), args.len()));
        }
        let xs: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        // The alias is also the hidden struct's name: `<alias>::__PTX_NODE__halve`.
        self.prim_impl_call(path, &info, s, Some(recv), xs, span)
    }

    /// The call of a trait method of an impl for the primitive `s` (`info`, reached by `path`,
    /// whose hidden struct carries the method's node): the receiver, when there is one, is `s`;
    /// the arguments are typed against the impl's parameters (its module's types: primitives or
    /// paths the body resolves as written, `Self` being the primitive).
    pub(super) fn prim_impl_call(&mut self, path: proc_macro2::TokenStream, info: &MethodInfo, s: Scalar, recv: Option<Expr>, xs: Vec<Expr>, span: Span) -> Expr {
        let mut all = Vec::new();
        if let Some(r) = recv {
            let r = self.auto_deref_value(r);
            self.expect(r.span, &Ty::Scalar(s), &r.ty);
            all.push(r);
        }
        for (x, t) in xs.into_iter().zip(&info.params) {
            let pt = self.prim_method_type(t);
            let x = self.auto_deref_value(x);
            self.expect(x.span, &pt, &x.ty);
            all.push(x);
        }
        let ret = match &info.ret {
            Some(t) => self.prim_method_type(t),
            None => Ty::Unit,
        };
        let callee = Rc::new(Callee { path, assoc: Some(info.name.clone()), ret: ret.clone() });
        Expr { kind: ExprKind::Call { callee, args: all }, ty: ret, span }
    }

    pub(super) fn prim_method_type(&mut self, tokens: &proc_macro2::TokenStream) -> Ty {
        let Ok(t) = syn::parse2::<syn::Type>(tokens.clone()) else { return Ty::Error };
        let ty = self.resolve_type(&t, super::Position::Signature);
        self.describe(&ty, syn::spanned::Spanned::span(&t))
    }
}
