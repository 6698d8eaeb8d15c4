//! Methods, associated functions and operators of `#[derive(DeviceRepr)]` types, from their
//! `#[device_fn] impl` blocks (see `expand::method`): each resolves, as rustc resolves it, to
//! an ordinary [`ExprKind::Call`] of the method's device function with the receiver first.
//!
//! Receivers reach the callee by value (`self`, `&self`: auto-ref and auto-deref of one level
//! are the same copy); a `&mut self` method returns the updated receiver, stored back into the
//! place it was called on (`v.bump()` is `v = Vec3::bump(v)`; the place is evaluated twice, so
//! the read and the write see the same index expressions).

use super::hir::{Callee, Expr, ExprKind};
use super::ty::{StructDef, Ty};
use super::Checker;
use crate::expand::method::{op_key, replay_name, OPS};
use crate::link::info::{Info, MethodInfo, Recv};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::rc::Rc;
use syn::visit_mut::VisitMut;

impl<'a> Checker<'a> {
    /// The description of the method `key` of `def`, fetching its replay (next to the type)
    /// when it is not known yet (`None`: fetched, or an error reported).
    pub(super) fn method_info(&mut self, def: &StructDef, key: &str, span: Span) -> Option<MethodInfo> {
        let mut path = method_path(def, key, span);
        // An impl for one instance (`impl Pair<f32>`): the instance's name (see
        // `expand::instance_impl`).
        let mut per_instance = false;
        if let (Some(Info::PerInstance), Some(p)) = (self.env.get(&path), instance_method_path(def, key, span)) {
            path = p;
            per_instance = true;
        }
        match self.env.get(&path).cloned() {
            Some(Info::Method(mut m)) => {
                if m.inlinable && !per_instance {
                    m.fetched = Some(path);
                }
                Some(m)
            }
            Some(Info::GenericMethod(g)) => self.instantiate_method(def, &g, None, span),
            Some(_) => {
                self.errors.at(span, format!("`{}` is not a method of `{}`", key, def.name));
                None
            }
            None => {
                if !self.method_reported(def, key, &path.to_string(), per_instance, span) {
                    self.needs.need(&path);
                }
                None
            }
        }
    }

    /// A type from a method's signature, written in its impl's module: a relative path the
    /// item being compiled does not mention is named through the type's own module.
    pub(super) fn method_type(&mut self, tokens: &TokenStream, def: &StructDef) -> Ty {
        let Ok(mut t) = syn::parse2::<syn::Type>(tokens.clone()) else { return Ty::Error };
        if let Ok(mut module) = syn::parse2::<syn::Path>(def.path.clone()) {
            module.segments.pop();
            if let Some(p) = module.segments.pop() {
                module.segments.push(p.into_value());
                super::call::ThroughCallee { callee: &module, known: &self.mentioned }.visit_type_mut(&mut t);
            }
        }
        let ty = self.resolve_type(&t, super::Position::Signature);
        self.describe(&ty, syn::spanned::Spanned::span(&t))
    }

    /// The struct a receiver or operand is (through references), described; `None` when it is
    /// not known yet (fetched) or not a struct (reported).
    pub(super) fn struct_of(&mut self, ty: &Ty, span: Span) -> Option<Rc<StructDef>> {
        let t = self.peel_refs(ty);
        match self.describe(&t, span) {
            Ty::Struct(d) => Some(d),
            Ty::Error => None,
            t => {
                let shown = self.infer.resolve(&t);
                self.errors.at(span, format!("`{shown}` has no device methods or operators"));
                None
            }
        }
    }

    /// `recv.name(args)` on a value of a `DeviceRepr` type. `recv_syn`: the receiver's
    /// expression, checked again as the place a `&mut self` method writes back to.
    pub fn user_method(&mut self, recv: Expr, recv_syn: Option<&syn::Expr>, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        let written = self.method_generics.take();
        let Some(def) = self.struct_of(&recv.ty, recv.span) else {
            for a in args {
                self.expr(a);
            }
            return self.error_expr(span);
        };
        if let Some(g) = self.generic_trait_of(&def, name, name_span) {
            return self.generic_trait_call(def, &g, written, Some(recv), recv_syn, name, args, span, name_span);
        }
        if let Some(g) = self.own_generic_method(&def, name, name_span) {
            return self.generic_method_call(def, &g, written, Some(recv), recv_syn, args, span, name_span);
        }
        let Some(info) = self.method_info(&def, name, name_span) else {
            for a in args {
                self.expr(a);
            }
            return self.error_expr(span);
        };
        if info.recv == Recv::Assoc {
            return self.error(name_span, format!("`{name}` is an associated function of `{}`, not a method: call it as `{}::{name}(..)`", def.name, def.name));
        }
        let args = self.check_args(&info, &def, args, name_span);
        self.finish_method(def, info, recv, recv_syn, args, span)
    }

    fn check_args(&mut self, info: &MethodInfo, def: &StructDef, args: &[&syn::Expr], span: Span) -> Option<Vec<Expr>> {
        if args.len() != info.params.len() {
            self.errors.at(span, format!("`{}` takes {} argument(s) but {} were given", info.name, info.params.len(), args.len()));
            return None;
        }
        let mut out = Vec::new();
        for (a, t) in args.iter().zip(&info.params) {
            let pt = self.method_type(t, def);
            let x = self.expr(a);
            let x = self.auto_deref_value(x);
            self.expect(x.span, &pt, &x.ty);
            out.push(x);
        }
        Some(out)
    }

    /// The call, with a `&mut self` method's result stored back into the receiver's place.
    /// A call whose method is resolved (`info`, an instance of a generic method or the impl a
    /// generic trait's arguments chose): the arguments checked against its parameters, then
    /// method syntax (`recv` given) or a path call (`Type::name(..)`).
    pub(super) fn finish_resolved_call(&mut self, def: Rc<StructDef>, info: MethodInfo, recv: Option<Expr>, recv_syn: Option<&syn::Expr>, xs: Vec<Expr>, span: Span) -> Expr {
        let mut out = Vec::new();
        for (x, t) in xs.into_iter().zip(&info.params) {
            let pt = self.method_type(t, &def);
            let x = self.auto_deref_value(x);
            self.expect(x.span, &pt, &x.ty);
            out.push(x);
        }
        match recv {
            Some(r) => self.finish_method(def, info, r, recv_syn, Some(out), span),
            None => {
                let ret = match &info.ret {
                    Some(t) => self.method_type(t, &def),
                    None => Ty::Unit,
                };
                self.call_user_method(&def, &info, None, out, ret, span)
            }
        }
    }

    pub(super) fn finish_method(&mut self, def: Rc<StructDef>, info: MethodInfo, recv: Expr, recv_syn: Option<&syn::Expr>, args: Option<Vec<Expr>>, span: Span) -> Expr {
        let Some(args) = args else { return self.error_expr(span) };
        let recv = self.auto_deref_value(recv);
        let self_ty = Ty::Struct(def.clone());
        self.expect(recv.span, &self_ty, &recv.ty);
        let ret = match (&info.ret, info.recv) {
            (_, Recv::Mut) => self_ty.clone(),
            (Some(t), _) => self.method_type(t, &def),
            (None, _) => Ty::Unit,
        };
        let call = self.call_user_method(&def, &info, Some(recv), args, ret, span);
        if info.recv != Recv::Mut {
            return call;
        }
        // Copy-out: the place the method was called on receives the updated value.
        let place = recv_syn.map(|e| {
            let p = self.expr(e);
            self.auto_deref_value(p)
        });
        match place {
            Some(p) if is_place(&p) => Expr { kind: ExprKind::Assign(Box::new(p), Box::new(call)), ty: Ty::Unit, span },
            // A temporary: the update is dropped, as rustc drops the temporary.
            _ => Expr { kind: ExprKind::Block(super::hir::Block { stmts: vec![super::hir::Stmt::Expr(call)], tail: None }), ty: Ty::Unit, span },
        }
    }

    /// The call of `info` (receiver first), or its body inlined (`inline_method`).
    fn call_user_method(&mut self, def: &StructDef, info: &MethodInfo, recv: Option<Expr>, args: Vec<Expr>, ret: Ty, span: Span) -> Expr {
        match self.inline_method(def, info, recv, args, &ret, span) {
            Ok(inlined) => inlined,
            Err((recv, args)) => {
                let callee = Rc::new(method_callee(def, info, ret.clone()));
                let all = recv.into_iter().chain(args).collect();
                Expr { kind: ExprKind::Call { callee, args: all }, ty: ret, span }
            }
        }
    }

    /// `Type::name(args)`: an associated function, or a method called with its receiver first.
    pub fn assoc_call(&mut self, def: Rc<StructDef>, name: &str, args: &[&syn::Expr], span: Span, name_span: Span) -> Expr {
        if name == "from" {
            return self.user_from(def, args, span, name_span);
        }
        if name == "try_from" {
            return self.user_conversion(def, args, true, span, name_span);
        }
        let written = self.method_generics.take();
        if let Some(g) = self.generic_trait_of(&def, name, name_span) {
            return self.generic_trait_call(def, &g, written, None, None, name, args, span, name_span);
        }
        if let Some(g) = self.own_generic_method(&def, name, name_span) {
            return self.generic_method_call(def, &g, written, None, None, args, span, name_span);
        }
        let Some(info) = self.method_info(&def, name, name_span) else {
            for a in args {
                self.expr(a);
            }
            return self.error_expr(span);
        };
        match info.recv {
            Recv::Assoc => {
                let args = self.check_args(&info, &def, args, name_span);
                let Some(args) = args else { return self.error_expr(span) };
                let ret = match &info.ret {
                    Some(t) => self.method_type(t, &def),
                    None => Ty::Unit,
                };
                self.call_user_method(&def, &info, None, args, ret, span)
            }
            Recv::Mut => self.error(name_span, format!("call `&mut self` methods with method syntax (`v.{name}(..)`): the receiver is written back to its place")),
            Recv::Value | Recv::Ref => {
                let Some((first, rest)) = args.split_first() else {
                    return self.error(name_span, format!("`{name}` takes the receiver as its first argument"));
                };
                let recv = self.expr(first);
                let args = self.check_args(&info, &def, rest, name_span);
                self.finish_method(def, info, recv, None, args, span)
            }
        }
    }

    /// `lhs op rhs` (`op_assign`: `lhs op= rhs`) where `lhs` is a `DeviceRepr` type: a call of
    /// its `core::ops` impl. `lhs_syn`: the left operand, the place a compound assignment
    /// writes back to.
    /// `op_span`: the operator token, where a missing impl is reported.
    pub fn user_operator(&mut self, trait_name: &str, lhs: Expr, lhs_syn: &syn::Expr, rhs: Option<&syn::Expr>, span: Span, op_span: Span) -> Expr {
        let lhs = self.auto_deref_value(lhs);
        let Some(def) = self.struct_of(&lhs.ty, lhs.span) else {
            if let Some(r) = rhs {
                self.expr(r);
            }
            return self.error_expr(span);
        };
        // The right operand's type picks the impl (`Mul<f32>` or `Mul<Vec3>`), as rustc does.
        let rhs_val = rhs.map(|r| {
            let x = self.expr(r);
            self.auto_deref_value(x)
        });
        let rhs_key = match &rhs_val {
            None => None,
            Some(x) => match self.shallow(&x.ty) {
                Ty::Scalar(_) | Ty::Var(_) => Some("scalar".to_owned()),
                t @ Ty::Named(_) => match self.struct_of(&t, x.span) {
                    Some(d) if d.name == def.name => None,
                    Some(d) => Some(d.name.clone()),
                    None => return self.error_expr(span),
                },
                Ty::Struct(d) if d.name == def.name => None,
                Ty::Struct(d) => Some(d.name.clone()),
                Ty::Error => return self.error_expr(span),
                t => return self.error(x.span, format!("no operator `{trait_name}` of `{}` takes a `{}`", def.name, self.infer.resolve(&t))),
            },
        };
        let key = op_key(trait_name, rhs_key.as_deref());
        let Some(mut info) = self.method_info(&def, &key, op_span) else { return self.error_expr(span) };
        info.name = key;
        let Some(param) = info.params.first().cloned() else {
            // `Neg`: no operand.
            return self.finish_method(def, info, lhs, None, Some(Vec::new()), span);
        };
        let Some(x) = rhs_val else { return self.error_expr(span) };
        let pt = self.method_type(&param, &def);
        self.expect(x.span, &pt, &x.ty);
        let lhs_place = (info.recv == Recv::Mut).then_some(lhs_syn);
        self.finish_method(def, info, lhs, lhs_place, Some(vec![x]), span)
    }
}

impl<'a> Checker<'a> {
    /// `s op v` with a primitive `s` and a `DeviceRepr` `v`: `impl Op<V> for f32`, whose
    /// function sits with `V`'s methods and takes `s` first.
    pub fn user_operator_scalar_lhs(&mut self, trait_name: &str, lhs: Expr, rhs: Expr, span: Span, op_span: Span) -> Expr {
        let (lhs, rhs) = (self.auto_deref_value(lhs), self.auto_deref_value(rhs));
        let Some(def) = self.struct_of(&rhs.ty, rhs.span) else { return self.error_expr(span) };
        let key = format!("{trait_name}_scalar_lhs");
        let Some(info) = self.method_info(&def, &key, op_span) else { return self.error_expr(span) };
        let [lt, rt] = &info.params[..] else {
            return self.error(span, format!("`{key}` of `{}` takes two operands", def.name));
        };
        let (lt, rt) = (self.method_type(&lt.clone(), &def), self.method_type(&rt.clone(), &def));
        self.expect(lhs.span, &lt, &lhs.ty);
        self.expect(rhs.span, &rt, &rhs.ty);
        let ret = match &info.ret {
            Some(t) => self.method_type(t, &def),
            None => Ty::Unit,
        };
        let callee = Rc::new(Callee { path: def.path.clone(), assoc: Some(key), ret: ret.clone() });
        Expr { kind: ExprKind::Call { callee, args: vec![lhs, rhs] }, ty: ret, span }
    }

    /// `base[index] = value` where `base` is a `DeviceRepr` type: `base = T::index_mut(base,
    /// index, value)` through its `#[device_fn] impl IndexMut` (see `expand::method`).
    pub fn user_index_set(&mut self, base: Expr, base_syn: &syn::Expr, index: Expr, value: Expr, span: Span, op_span: Span) -> Expr {
        let Some(def) = self.struct_of(&base.ty, base.span) else { return self.error_expr(span) };
        let key = op_key("IndexMut", Some("scalar"));
        let Some(mut info) = self.method_info(&def, &key, op_span) else { return self.error_expr(span) };
        info.name = key;
        if info.params.len() != 2 {
            return self.error(span, format!("`{}`'s `index_mut` takes one index", def.name));
        }
        let (it, vt) = (self.method_type(&info.params[0].clone(), &def), self.method_type(&info.params[1].clone(), &def));
        self.expect(index.span, &it, &index.ty);
        self.expect(value.span, &vt, &value.ty);
        self.finish_method(def, info, base, Some(base_syn), Some(vec![index, value]), span)
    }

    /// `base[index] op= rhs` on a `DeviceRepr` type: read through `Index`, write through
    /// `IndexMut`; `base` and `index` are evaluated again for each.
    pub fn user_index_op_assign(&mut self, op: super::hir::BinOp, base: Expr, ix: &syn::ExprIndex, rhs: &syn::Expr, span: Span) -> Expr {
        let op_span = ix.bracket_token.span.join();
        let read = self.user_operator("Index", base, &ix.expr, Some(&ix.index), span, op_span);
        let rhs = self.expr(rhs);
        let rhs = self.auto_deref_value(rhs);
        self.expect(rhs.span, &read.ty, &rhs.ty);
        let ty = read.ty.clone();
        let value = Expr { kind: ExprKind::Binary(op, Box::new(read), Box::new(rhs)), ty, span };
        let base = self.expr(&ix.expr);
        let index = self.expr(&ix.index);
        self.user_index_set(base, &ix.expr, index, value, span, op_span)
    }
}

/// The trait implementing a binary operator (`compound`: `+=` and friends).
pub fn op_trait(op: super::hir::BinOp, compound: bool) -> Option<&'static str> {
    use super::hir::BinOp as B;
    let i = match op {
        B::Add => 0,
        B::Sub => 1,
        B::Mul => 2,
        B::Div => 3,
        B::Rem => 4,
        _ => return None,
    };
    Some(OPS[if compound { i + 6 } else { i }].0)
}

/// Where a method's replay is: next to its type, under [`replay_name`], spanned at the call so
/// a missing one is reported there.
pub(super) fn method_path(def: &StructDef, key: &str, span: Span) -> TokenStream {
    let name = replay_name(def.base_name(), key, span);
    match syn::parse2::<syn::Path>(def.path.clone()) {
        Ok(mut p) if p.segments.len() > 1 => {
            p.segments.pop();
            let module = p.segments.into_iter().collect::<Vec<_>>();
            let lead = p.leading_colon;
            quote!(#lead #(#module ::)* #name)
        }
        _ => quote!(#name),
    }
}

/// Where the method `key` of an impl for one instance is (`geo::Pair_f32__sum__…` for a
/// `Pair<f32>`): the type's name and its arguments' keys, as the impl names them.
pub(super) fn instance_method_path(def: &StructDef, key: &str, span: Span) -> Option<TokenStream> {
    let name = instance_name(def)?;
    let module = method_path(def, key, span);
    let replay = replay_name(&name, key, span);
    // The instance's name where the type's is (its module).
    let mut tokens: Vec<proc_macro2::TokenTree> = module.into_iter().collect();
    tokens.pop();
    tokens.push(proc_macro2::TokenTree::Ident(replay));
    Some(tokens.into_iter().collect())
}

/// An instance's name (`Pair_f32`), as an impl for it names its methods (see
/// `expand::instance_impl`); `None` for a type that is not generic.
pub(super) fn instance_name(def: &StructDef) -> Option<String> {
    let g = def.generic.as_ref()?;
    let mut name = g.base.clone();
    for t in &g.tokens {
        let k = match syn::parse2::<syn::Type>(t.clone()) {
            Ok(ty) => crate::expand::generic_trait::type_key(&ty, ""),
            Err(_) => t.to_string(),
        };
        name = format!("{name}_{k}");
    }
    Some(name)
}

/// The function a method call calls: the method's node next to its type, or the instance of a
/// generic impl's method the body compiles (see `generic_type`).
pub(super) fn method_callee(def: &StructDef, info: &MethodInfo, ret: Ty) -> Callee {
    match &info.instance {
        Some(module) => Callee { path: module.clone(), assoc: None, ret },
        None => Callee { path: def.path.clone(), assoc: Some(info.name.clone()), ret },
    }
}

fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Deref(_) => true,
        ExprKind::Field(b, _) => is_place(b),
        ExprKind::Index { .. } => true,
        _ => false,
    }
}
