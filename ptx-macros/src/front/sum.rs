//! `Option<T>` and `Result<T, E>` as values.
//!
//! A value is its tag (`u32`: Rust's discriminant, `None`/`Ok` 0 and `Some`/`Err` 1) and the
//! members of each variant, in registers (`ty::sum_repr`); the variant not held has zeros there
//! (immediates, no instruction). Constructors (`Some(x)`, `None`, `Ok(x)`, `Err(e)`) build it,
//! patterns (`destructure.rs`) test the tag and bind members. The rest is written in terms of
//! `match`, as Rust defines it: `if let`, `while let`, `let ... else`, `?` and the methods
//! (`unwrap_or`, `is_some`, `get`, `checked_add`, ...) are rewritten to the `match` they stand
//! for and checked as such, at the span of what they stand for.

use crate::syntax::first_token::FirstToken;
use super::hir::{Block, ExprKind, LetPat, Stmt};
use super::ty::{SumKind, Ty};
use super::{Checker, Expr, Position};
use proc_macro2::Span;
use ptx_abi::Scalar;
use quote::{format_ident, quote_spanned};

impl<'a> Checker<'a> {
    /// `Option<T>` / `Result<T, E>` written as a type (`None` for any other path).
    pub fn sum_type(&mut self, name: &str, last: &syn::PathSegment, pos: Position, in_pointer: bool) -> Option<Ty> {
        if name == "TryFromIntError" && matches!(last.arguments, syn::PathArguments::None) {
            // The error of integer `try_from`: no data.
            return Some(Ty::Unit);
        }
        let kind = match name {
            "Option" => SumKind::Option,
            "Result" => SumKind::Result,
            _ => return None,
        };
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else { return None };
        let tys: Vec<&syn::Type> = a.args.iter().filter_map(|g| if let syn::GenericArgument::Type(t) = g { Some(t) } else { None }).collect();
        if tys.len() != kind.arity() {
            return None;
        }
        if in_pointer {
            self.errors.error(last, format!("`{name}` has no device layout, so it cannot be behind a pointer; pass the value itself, or a flag and a value"));
            return Some(Ty::Error);
        }
        let args = tys.iter().map(|t| self.resolve_type(t, pos)).collect();
        Some(Ty::Sum { kind, args })
    }

    /// A fresh `Option<_>` or `Result<_, _>`.
    fn fresh_sum(&mut self, kind: SumKind) -> (Ty, Vec<Ty>) {
        let args: Vec<Ty> = (0..kind.arity()).map(|_| self.var(super::infer::VarKind::General)).collect();
        (Ty::Sum { kind, args: args.clone() }, args)
    }

    /// The value of variant `v` of a sum of type `ty` (with type arguments `args`) holding
    /// `members`.
    pub fn variant_value(&mut self, kind: SumKind, args: &[Ty], ty: Ty, v: usize, members: Vec<Expr>, span: Span) -> Expr {
        let mut parts = vec![Expr { kind: ExprKind::Int(v as u128), ty: Ty::Scalar(Scalar::U32), span }];
        let mut members = Some(members);
        for k in 0..2 {
            let mty = Ty::Tuple(kind.members(args, k));
            let part = if k == v { ExprKind::Tuple(members.take().unwrap_or_default()) } else { ExprKind::Zero };
            parts.push(Expr { kind: part, ty: mty, span });
        }
        Expr { kind: ExprKind::Tuple(parts), ty, span }
    }

    /// `Some(x)`, `Ok(x)`, `Err(e)` (also through `Option::`/`Result::`): `None` for any other
    /// call.
    pub fn variant_call(&mut self, last: &str, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Option<Expr> {
        let (kind, v) = SumKind::of_variant(last).filter(|(_, v)| !(last == "None" && *v == 0))?;
        if args.len() != 1 {
            return Some(self.error(span, format!("`{last}` takes one value")));
        }
        let (ty, targs) = self.fresh_sum(kind);
        let x = self.expr(&args[0]);
        let member = kind.members(&targs, v).remove(0);
        self.expect(x.span, &member, &x.ty);
        Some(self.variant_value(kind, &targs, ty, v, vec![x], span))
    }

    /// `None` (also `Option::None`) as a value.
    pub fn none_value(&mut self, span: Span) -> Expr {
        let (ty, targs) = self.fresh_sum(SumKind::Option);
        self.variant_value(SumKind::Option, &targs, ty, 0, vec![], span)
    }

    /// Checks `f(name)` with `value` bound to a fresh local `name`: `{ let name = value; f }`.
    pub fn with_local(&mut self, value: Expr, span: Span, f: impl FnOnce(&mut Self, &syn::Ident) -> Expr) -> Expr {
        self.push_scope();
        let name = format_ident!("__ptx_v{}", self.locals.len(), span = span);
        let id = self.declare(&name.to_string(), value.ty.clone(), false, span);
        let body = f(self, &name);
        self.pop_scope();
        let ty = body.ty.clone();
        let init = Stmt::Let { pat: LetPat::Bind(id), init: Some(value), span };
        Expr { kind: ExprKind::Block(Block { stmts: vec![init], tail: Some(Box::new(body)) }), ty, span }
    }

    /// A method of an `Option` or `Result` value, as the `match` it stands for.
    pub fn sum_method(&mut self, recv: Expr, kind: SumKind, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let (yes, no) = match kind {
            SumKind::Option => (quote_spanned!(span=> ::core::option::Option::Some), quote_spanned!(span=> ::core::option::Option::None)),
            SumKind::Result => (quote_spanned!(span=> ::core::result::Result::Ok), quote_spanned!(span=> ::core::result::Result::Err)),
        };
        let other = match kind {
            SumKind::Option => quote_spanned!(span=> #no),
            SumKind::Result => quote_spanned!(span=> #no(_)),
        };
        let arity = |c: &mut Self, n: usize| {
            if args.len() != n {
                c.errors.at(name_span, format!("`{name}` takes {n} argument(s)"));
                return false;
            }
            true
        };
        let a0 = args.first().map(|a| quote::quote!(#a));
        let text: Option<syn::Expr> = match name {
            "is_some" | "is_ok" | "is_none" | "is_err" if arity(self, 0) => {
                let holds = matches!(name, "is_some" | "is_ok");
                Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(_) => #holds, _ => !#holds }))
            }
            "unwrap" if arity(self, 0) => {
                let msg = match kind {
                    SumKind::Option => "called `Option::unwrap()` on a `None` value",
                    SumKind::Result => "called `Result::unwrap()` on an `Err` value",
                };
                Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => v, _ => ::core::panic!(#msg) }))
            }
            "unwrap_err" if kind == SumKind::Result && arity(self, 0) => {
                Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #no(e) => e, _ => ::core::panic!("called `Result::unwrap_err()` on an `Ok` value") }))
            }
            "expect" if arity(self, 1) => match args[0] {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => v, _ => ::core::panic!(#s) })),
                a => {
                    self.errors.error(a, "the message of `expect` in device code is a string literal");
                    None
                }
            },
            "unwrap_or" if arity(self, 1) => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => v, #other => #a0 })),
            "unwrap_or_default" if arity(self, 0) => {
                // The held value, or zeros (every `Default` a device type has is zero).
                let held = match kind {
                    SumKind::Option => 1,
                    SumKind::Result => 0,
                };
                return self.with_local(recv, span, |c, n| {
                    let v = c.expr(&syn::parse_quote_spanned!(span=> #n));
                    let Ty::Sum { args, .. } = c.shallow(&v.ty) else { return c.error_expr(span) };
                    let mty = kind.members(&args, held).remove(0);
                    let members = Ty::Tuple(kind.members(&args, held));
                    let u32t = Ty::Scalar(Scalar::U32);
                    let tag = Expr { kind: ExprKind::Field(Box::new(v), 0), ty: u32t.clone(), span };
                    let want = Expr { kind: ExprKind::Int(held as u128), ty: u32t, span };
                    let cond = Expr { kind: ExprKind::Binary(super::hir::BinOp::Eq, Box::new(tag), Box::new(want)), ty: Ty::bool(), span };
                    let v = c.expr(&syn::parse_quote_spanned!(span=> #n));
                    let part = Expr { kind: ExprKind::Field(Box::new(v), 1 + held), ty: members, span };
                    let value = Expr { kind: ExprKind::Field(Box::new(part), 0), ty: mty.clone(), span };
                    let zero = Expr { kind: ExprKind::Zero, ty: mty.clone(), span };
                    let els = Expr { kind: ExprKind::Block(Block { stmts: vec![], tail: Some(Box::new(zero)) }), ty: mty.clone(), span };
                    Expr { kind: ExprKind::If { cond: Box::new(cond), then: Block { stmts: vec![], tail: Some(Box::new(value)) }, els: Some(Box::new(els)) }, ty: mty, span }
                });
            }
            "ok" if kind == SumKind::Result && arity(self, 0) => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => ::core::option::Option::Some(v), _ => ::core::option::Option::None })),
            "err" if kind == SumKind::Result && arity(self, 0) => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #no(e) => ::core::option::Option::Some(e), _ => ::core::option::Option::None })),
            "copied" | "cloned" if arity(self, 0) => match kind {
                SumKind::Option => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => #yes(*v), _ => #no })),
                SumKind::Result => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => #yes(*v), #no(e) => #no(e) })),
            },
            "ok_or" if kind == SumKind::Option && arity(self, 1) => Some(syn::parse_quote_spanned!(span=> match __ptx_recv { #yes(v) => ::core::result::Result::Ok(v), _ => ::core::result::Result::Err(#a0) })),
            "map" | "and_then" | "or_else" | "unwrap_or_else" | "map_or" | "map_or_else" | "filter" | "is_some_and" | "is_none_or" | "is_ok_and" | "is_err_and" | "ok_or_else" | "map_err" => {
                return self.sum_closure_method(recv, kind, name, args, span, name_span);
            }
            "copied" | "cloned" | "unwrap" | "unwrap_err" | "expect" | "unwrap_or" | "unwrap_or_default" | "ok" | "err" | "ok_or" | "is_some" | "is_none" | "is_ok" | "is_err" => None,
            _ => {
                return self.error(name_span, format!("no method `{name}` on `{}` in device code; supported: is_some, is_none, is_ok, is_err, unwrap, expect, unwrap_or, unwrap_or_default, copied, ok, err, ok_or, map, map_err, and_then, or_else, unwrap_or_else, map_or, map_or_else, filter, is_some_and, is_none_or, is_ok_and, is_err_and, ok_or_else, and `match` / `if let` for the rest", kind.name()));
            }
        };
        let Some(text) = text else { return self.error_expr(span) };
        self.with_local(recv, span, |c, n| {
            let mut e = text;
            rename(&mut e, "__ptx_recv", n);
            c.expr(&e)
        })
    }

    /// `a == b` / `a != b` of tuples, `Option`s and `Result`s (derived `PartialEq`): member by
    /// member, and the same variant.
    pub fn compare_parts(&mut self, eq: bool, lhs: Expr, right: &syn::Expr, span: Span) -> Expr {
        let lhs = self.auto_deref_value(lhs);
        let lty = self.shallow(&lhs.ty);
        let cmp = self.with_local(lhs, span, |c, l| {
            let rhs = c.expr(right);
            let rhs = c.auto_deref_value(rhs);
            c.expect(rhs.span, &lty, &rhs.ty);
            c.with_local(rhs, span, |c, r| {
                let e: syn::Expr = match &lty {
                    Ty::Tuple(ts) if ts.is_empty() => syn::parse_quote_spanned!(span=> true),
                    Ty::Tuple(ts) => {
                        let terms = (0..ts.len()).map(|i| {
                            let i = syn::Index { index: i as u32, span };
                            quote_spanned!(span=> #l.#i == #r.#i)
                        });
                        syn::parse_quote_spanned!(span=> #(#terms)&&*)
                    }
                    Ty::Sum { kind: SumKind::Option, .. } => syn::parse_quote_spanned!(span=> match (#l, #r) {
                        (::core::option::Option::Some(a), ::core::option::Option::Some(b)) => a == b,
                        (::core::option::Option::None, ::core::option::Option::None) => true,
                        _ => false,
                    }),
                    _ => syn::parse_quote_spanned!(span=> match (#l, #r) {
                        (::core::result::Result::Ok(a), ::core::result::Result::Ok(b)) => a == b,
                        (::core::result::Result::Err(a), ::core::result::Result::Err(b)) => a == b,
                        _ => false,
                    }),
                };
                c.expr(&e)
            })
        });
        if eq {
            cmp
        } else {
            Expr { kind: ExprKind::Unary(super::hir::UnOp::Not, Box::new(cmp)), ty: Ty::bool(), span }
        }
    }

    /// `e?` in a function returning `Option` or `Result`. (In any other function rustc reports
    /// the `?`; the failing arm is then `unreachable!()`, so nothing else is reported.)
    pub fn try_expr(&mut self, t: &syn::ExprTry) -> Expr {
        let span = t.first_span();
        let inner = self.expr(&t.expr);
        let inner = self.auto_deref_value(inner);
        let kind = match self.shallow(&inner.ty) {
            Ty::Sum { kind, .. } => kind,
            Ty::Error | Ty::Var(_) => return self.error_expr(span),
            other => return self.error(span, format!("`?` applies to `Option` and `Result`, not `{}`", self.infer.resolve(&other))),
        };
        let returns = matches!(self.shallow(&self.ret.clone()), Ty::Sum { kind: k, .. } if k == kind);
        let convert = if kind == SumKind::Result && returns { self.try_error(&inner.ty) } else { super::from_user::TryError::Same };
        self.with_local(inner, span, |c, n| {
            let e: syn::Expr = match (kind, returns) {
                // `Err(e) => return Err(From::from(e))` (`from_user.rs`).
                (SumKind::Result, true) if !matches!(convert, super::from_user::TryError::Same) => {
                    let conv = match &convert {
                        super::from_user::TryError::From(path) => quote::quote_spanned!(span=> #path::from(__ptx_e)),
                        _ => quote::quote_spanned!(span=> __ptx_e.into()),
                    };
                    syn::parse_quote_spanned!(span=> match #n {
                        ::core::result::Result::Ok(__ptx_v) => __ptx_v,
                        ::core::result::Result::Err(__ptx_e) => return ::core::result::Result::Err(#conv),
                    })
                }
                (SumKind::Option, true) => syn::parse_quote_spanned!(span=> match #n {
                    ::core::option::Option::Some(__ptx_v) => __ptx_v,
                    ::core::option::Option::None => return ::core::option::Option::None,
                }),
                (SumKind::Result, true) => syn::parse_quote_spanned!(span=> match #n {
                    ::core::result::Result::Ok(__ptx_v) => __ptx_v,
                    ::core::result::Result::Err(__ptx_e) => return ::core::result::Result::Err(__ptx_e),
                }),
                (SumKind::Option, false) => syn::parse_quote_spanned!(span=> match #n {
                    ::core::option::Option::Some(__ptx_v) => __ptx_v,
                    _ => ::core::unreachable!(),
                }),
                (SumKind::Result, false) => syn::parse_quote_spanned!(span=> match #n {
                    ::core::result::Result::Ok(__ptx_v) => __ptx_v,
                    _ => ::core::unreachable!(),
                }),
            };
            c.expr(&e)
        })
    }

    /// `if let P = e { a } else { b }`: `match e { P => { a } _ => { b } }`.
    pub fn if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet) -> Expr {
        let span = i.first_span();
        let (pat, scrut, then) = (&l.pat, &l.expr, &i.then_branch);
        let els = match &i.else_branch {
            Some((_, e)) => quote::quote!(#e),
            None => quote_spanned!(span=> {}),
        };
        let e: syn::Expr = syn::parse_quote_spanned!(span=> match #scrut { #pat => #then, _ => #els });
        self.expr(&e)
    }

    /// `'l: while let P = e { a }`: `'l: loop { match e { P => { a } _ => break } }`.
    pub fn while_let(&mut self, w: &syn::ExprWhile, l: &syn::ExprLet) -> Expr {
        let span = w.first_span();
        let (pat, scrut, body, label) = (&l.pat, &l.expr, &w.body, &w.label);
        let e: syn::Expr = syn::parse_quote_spanned!(span=> #label loop { match #scrut { #pat => #body, _ => break } });
        self.expr(&e)
    }

    /// `let P = e else { d };`: `let (names...) = match e { P => (names...), _ => d };`.
    pub fn let_else(&mut self, l: &syn::Local, init: &syn::LocalInit) -> Option<Stmt> {
        let span = l.first_span();
        let Some((_, diverge)) = &init.diverge else { return None };
        // `let P: T = e else { d }`: the match arm takes `P` (a type ascription is no arm
        // pattern); rustc checks `T` on the host build.
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        let scrut = &init.expr;
        let mut names = Vec::new();
        collect_bindings(pat, &mut names);
        let values = names.iter().map(|(n, _)| n);
        let binds = names.iter().map(|(n, m)| if *m { quote::quote!(mut #n) } else { quote::quote!(#n) });
        let pat_plain = strip_mut(pat);
        // The scrutinee in parentheses: a struct literal (`w {}`) cannot start one bare.
        if names.is_empty() {
            let e: syn::Expr = syn::parse_quote_spanned!(span=> match (#scrut) { #pat_plain => {} _ => #diverge });
            return Some(Stmt::Expr(self.expr(&e)));
        }
        let rewritten: syn::Stmt = syn::parse_quote_spanned!(span=> let (#(#binds,)*) = match (#scrut) { #pat_plain => (#(#values,)*), _ => #diverge };);
        let syn::Stmt::Local(local) = rewritten else { return None };
        self.let_stmt(&local)
    }

    /// `s.get(i)`, `first()`, `last()` on a slice or array, and the integers' `checked_*`: the
    /// `Option` they return, without a trap.
    pub fn option_method(&mut self, recv: Expr, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let recv = self.auto_deref_value(recv);
        let seq = matches!(self.shallow(&recv.ty), Ty::Slice { .. } | Ty::Array { .. });
        let array = matches!(self.shallow(&recv.ty), Ty::Array { .. });
        let (slice, mutable_slice) = match self.shallow(&recv.ty) {
            Ty::Slice { mutable, .. } => (true, mutable),
            _ => (false, false),
        };
        // The element at an index already checked.
        let elem = |i: proc_macro2::TokenStream| {
            if array {
                quote_spanned!(span=> &__ptx_recv[#i])
            } else {
                quote_spanned!(span=> unsafe { __ptx_recv.get_unchecked(#i) })
            }
        };
        let (e0, en, ei) = (elem(quote_spanned!(span=> 0)), elem(quote_spanned!(span=> __ptx_n - 1)), elem(quote_spanned!(span=> __ptx_i)));
        let some = quote_spanned!(span=> ::core::option::Option::Some);
        let none = quote_spanned!(span=> ::core::option::Option::None);
        let text: syn::Expr = match (name, args) {
            // `Option<&T>`, as in Rust: a slice's element is referenced where it is; an array
            // (in registers) is read from a copy in a `.local` slot.
            ("get", [i]) if seq => syn::parse_quote_spanned!(span=> { let __ptx_i: usize = #i; if __ptx_i < __ptx_recv.len() { #some(#ei) } else { #none } }),
            ("first", []) if seq => syn::parse_quote_spanned!(span=> if 0 < __ptx_recv.len() { #some(#e0) } else { #none }),
            ("last", []) if seq => syn::parse_quote_spanned!(span=> { let __ptx_n = __ptx_recv.len(); if __ptx_n > 0 { #some(#en) } else { #none } }),
            // A slice's element and rest are referenced where they are.
            ("get_mut", [i]) if mutable_slice => syn::parse_quote_spanned!(span=> { let __ptx_i: usize = #i; if __ptx_i < __ptx_recv.len() { #some(&mut __ptx_recv[__ptx_i]) } else { #none } }),
            ("split_first", []) if slice => syn::parse_quote_spanned!(span=> if 0 < __ptx_recv.len() { #some((#e0, &__ptx_recv[1..])) } else { #none }),
            ("split_last", []) if slice => syn::parse_quote_spanned!(span=> { let __ptx_n = __ptx_recv.len(); if __ptx_n > 0 { #some((#en, &__ptx_recv[..__ptx_n - 1])) } else { #none } }),
            ("get_mut" | "split_first" | "split_last", _) if seq => return self.error(name_span, format!("`{name}` is supported on slices (`get_mut` on `&mut [T]`) in device code; for an array, test the index and index it (`if i < a.len() {{ a[i] += 1 }}`)")),
            ("checked_add" | "checked_sub" | "checked_mul" | "checked_div" | "checked_rem", [b]) if !seq => return self.checked_int(recv, name, b, span, name_span),
            _ => return self.error(name_span, format!("`{name}` is supported on slices and arrays (`get(i)`, `first()`, `last()`) and integers (`checked_add(b)`, ...)")),
        };
        self.with_local(recv, span, |c, n| {
            let mut e = text;
            rename(&mut e, "__ptx_recv", n);
            c.expr(&e)
        })
    }

    /// `a.checked_op(b)`: `None` where Rust's would overflow or divide by zero.
    fn checked_int(&mut self, recv: Expr, name: &str, b: &syn::Expr, span: Span, name_span: Span) -> Expr {
        let s = match self.shallow(&recv.ty) {
            Ty::Scalar(s) if recv.ty.is_integer() || s.is_integral() && s != Scalar::Bool => s,
            Ty::Error => return self.error_expr(span),
            Ty::Var(_) => return self.error(name_span, format!("can't call method `{name}` on a value whose type is not known yet; annotate it (`let x: u32 = ...` or a literal suffix `1u32`)")),
            t => return self.error(name_span, format!("`{name}` is an integer method, not one of `{}`", self.infer.resolve(&t))),
        };
        let t = format_ident!("{}", super::ty::scalar_name(s));
        let some = quote_spanned!(span=> ::core::option::Option::Some);
        let none = quote_spanned!(span=> ::core::option::Option::None);
        let signed = s.is_signed();
        let overflow: proc_macro2::TokenStream = match (name, signed) {
            ("checked_add", false) => quote_spanned!(span=> __ptx_r < __ptx_a),
            ("checked_add", true) => quote_spanned!(span=> ((__ptx_a ^ __ptx_r) & (__ptx_b ^ __ptx_r)) < 0),
            ("checked_sub", false) => quote_spanned!(span=> __ptx_a < __ptx_b),
            ("checked_sub", true) => quote_spanned!(span=> ((__ptx_a ^ __ptx_b) & (__ptx_a ^ __ptx_r)) < 0),
            ("checked_mul", false) => quote_spanned!(span=> __ptx_a != 0 && __ptx_r / __ptx_a != __ptx_b),
            ("checked_mul", true) => quote_spanned!(span=> __ptx_a != 0 && (__ptx_r.wrapping_div(__ptx_a) != __ptx_b || (__ptx_a == -1 && __ptx_b == #t::MIN))),
            (_, false) => quote_spanned!(span=> __ptx_b == 0),
            (_, true) => quote_spanned!(span=> __ptx_b == 0 || (__ptx_a == #t::MIN && __ptx_b == -1)),
        };
        let value = match name {
            "checked_add" => quote_spanned!(span=> __ptx_a.wrapping_add(__ptx_b)),
            "checked_sub" => quote_spanned!(span=> __ptx_a.wrapping_sub(__ptx_b)),
            "checked_mul" => quote_spanned!(span=> __ptx_a.wrapping_mul(__ptx_b)),
            "checked_div" => quote_spanned!(span=> 0),
            _ => quote_spanned!(span=> 0),
        };
        let result = match name {
            "checked_div" => quote_spanned!(span=> __ptx_a.wrapping_div(__ptx_b)),
            "checked_rem" => quote_spanned!(span=> __ptx_a.wrapping_rem(__ptx_b)),
            _ => quote_spanned!(span=> __ptx_r),
        };
        let text: syn::Expr = syn::parse_quote_spanned!(span=> {
            let __ptx_b: #t = #b;
            let __ptx_r: #t = #value;
            if #overflow { #none } else { #some(#result) }
        });
        self.with_local(recv, span, |c, n| {
            let mut e = text;
            rename(&mut e, "__ptx_a", n);
            c.expr(&e)
        })
    }

    /// `x.try_into()`: the target is known only once the body is checked, so the range test
    /// is made by the lowering (`lower::try_int`).
    pub fn try_into_call(&mut self, x: Expr, span: Span) -> Expr {
        let ok = match self.shallow(&x.ty) {
            Ty::Var(v) => self.infer.kind_of(v) == super::infer::VarKind::Int,
            Ty::Error => return self.error_expr(span),
            t => t.is_integer(),
        };
        if !ok {
            return self.error(span, "`try_into` in device code converts between integer types");
        }
        let to = self.var(super::infer::VarKind::Int);
        let ty = Ty::Sum { kind: SumKind::Result, args: vec![to, Ty::Unit] };
        Expr { kind: ExprKind::Intrinsic { op: super::intrinsic::Intrinsic::TryInt, args: vec![x] }, ty, span }
    }

    /// `u8::try_from(x)` / `x.try_into()` between integer types: `Ok(x as T)` when `x` is in
    /// `T`'s range, else `Err(TryFromIntError)` (no data, `()` here).
    pub fn try_from_int(&mut self, x: Expr, to: Ty, span: Span) -> Expr {
        let (Ty::Scalar(from), Ty::Scalar(t)) = (self.shallow(&x.ty), self.shallow(&to)) else {
            if matches!(self.shallow(&x.ty), Ty::Error) || matches!(self.shallow(&to), Ty::Error) {
                return self.error_expr(span);
            }
            return self.error(span, "`try_from` / `try_into` in device code convert between integer types; annotate both types");
        };
        if !from.is_integral() || !t.is_integral() || from == Scalar::Bool || t == Scalar::Bool {
            return self.error(span, "`try_from` / `try_into` in device code convert between integer types");
        }
        let tt = format_ident!("{}", super::ty::scalar_name(t));
        let ft = format_ident!("{}", super::ty::scalar_name(from));
        // In range: compared in `i128`-free terms, each bound only where it can be crossed.
        let (fmin, fmax) = int_range(from);
        let (tmin, tmax) = int_range(t);
        let lit = |v: i128| {
            let l = syn::LitInt::new(&format!("{}{ft}", v.unsigned_abs()), span);
            if v < 0 {
                quote_spanned!(span=> (-#l))
            } else {
                quote_spanned!(span=> #l)
            }
        };
        let mut conds = Vec::new();
        if fmin < tmin {
            let lo = lit(tmin);
            conds.push(quote_spanned!(span=> __ptx_x >= #lo));
        }
        if fmax > tmax {
            let hi = lit(tmax);
            conds.push(quote_spanned!(span=> __ptx_x <= #hi));
        }
        let ok = if conds.is_empty() { quote_spanned!(span=> true) } else { quote_spanned!(span=> #(#conds)&&*) };
        let text: syn::Expr = syn::parse_quote_spanned!(span=> if #ok { ::core::result::Result::Ok(__ptx_x as #tt) } else { ::core::result::Result::Err(()) });
        self.with_local(x, span, |c, n| {
            let mut e = text;
            rename(&mut e, "__ptx_x", n);
            c.expr(&e)
        })
    }
}

fn int_range(s: Scalar) -> (i128, i128) {
    let bits = s.bits() as u32;
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Renames every path `from` in `e` to `to` (a local the rewrite was given).
fn rename(e: &mut syn::Expr, from: &str, to: &syn::Ident) {
    struct R<'a>(&'a str, &'a syn::Ident);
    impl syn::visit_mut::VisitMut for R<'_> {
        fn visit_path_mut(&mut self, p: &mut syn::Path) {
            if p.segments.len() == 1 && p.segments[0].ident == self.0 {
                p.segments[0].ident = self.1.clone();
            }
            syn::visit_mut::visit_path_mut(self, p);
        }
    }
    syn::visit_mut::VisitMut::visit_expr_mut(&mut R(from, to), e);
}

/// The names a pattern binds, with whether each is `mut`.
fn collect_bindings(pat: &syn::Pat, out: &mut Vec<(syn::Ident, bool)>) {
    struct B<'a>(&'a mut Vec<(syn::Ident, bool)>);
    impl<'ast> syn::visit::Visit<'ast> for B<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if !super::enums::names_a_constant(p) && !matches!(p.ident.to_string().as_str(), "None") {
                self.0.push((p.ident.clone(), p.mutability.is_some()));
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut B(out), pat);
}

/// The pattern without `mut` on its bindings (the `let` that receives them has it).
fn strip_mut(pat: &syn::Pat) -> syn::Pat {
    struct S;
    impl syn::visit_mut::VisitMut for S {
        fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
            p.mutability = None;
            syn::visit_mut::visit_pat_ident_mut(self, p);
        }
    }
    let mut p = pat.clone();
    syn::visit_mut::VisitMut::visit_pat_mut(&mut S, &mut p);
    p
}
