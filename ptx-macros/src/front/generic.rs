//! Calls of generic device functions, monomorphized in the caller.
//!
//! A generic `#[device_fn]` cannot be compiled where it is defined (its types are not known
//! there), so its replay carries the whole item (`link::info::GenericFnInfo`). A call
//! `horner::<5>(c, x)` or `total(&shapes)` binds the generic parameters — written, or inferred
//! from the arguments' types as rustc infers them for these shapes (`T`, `&T`, `&[T]`,
//! `[T; N]`, `*const T`) — and makes an [`Instance`]: the item with every relative path
//! named through the callee's path (as signature types are, see `call::ThroughCallee`), then
//! the parameters substituted, no generics left. The caller's round compiles each instance as
//! a device function of its own, in a module next to the caller's (`expand::generic`), under
//! its Itanium template name; the lowering sees an ordinary call of concrete types. Bounds are
//! rustc's to check: the same call is compiled for the host.

use super::hir::{Callee, Expr, ExprKind};
use super::ty::Ty;
use super::{Checker, Position};
use crate::link::info::GenericFnInfo;
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::{format_ident, quote};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::visit_mut::VisitMut;

/// One instantiation of a generic device function that a body calls.
#[derive(Clone)]
pub struct Instance {
    /// The callee's path and the arguments: two calls with the same key share the instance.
    pub key: String,
    /// The module the caller's expansion defines it in (`NODE`, `SYMBOL`).
    pub module: proc_macro2::Ident,
    /// The function with its parameters substituted, its paths nameable where the caller is.
    pub item: syn::ItemFn,
    /// Its `Piece::Template`, nameable from `module`.
    pub symbol: TokenStream,
    /// For a method of a generic impl: the concrete type its receiver and `Self` are.
    pub self_ty: Option<syn::Type>,
}

/// A call's generic arguments (see [`Checker::bind_call`]): the callee's parameters, the
/// substitution, the arguments as `TemplateArg`s and as shown in instance keys.
pub(super) struct Bound {
    pub params: Vec<Param>,
    pub subst: Subst,
    pub targs: Vec<TokenStream>,
    pub shown: Vec<String>,
}

/// A generic parameter of the callee.
pub(super) enum Param {
    Type(String),
    /// A const parameter and its type's Itanium code.
    Const(String, &'static str),
}

impl Param {
    pub(super) fn name(&self) -> &str {
        match self {
            Param::Type(n) | Param::Const(n, _) => n,
        }
    }
}

/// A generic argument.
#[derive(Clone)]
enum Arg {
    Type(Ty),
    Const(i128),
}

thread_local! {
    /// The round being compiled (see [`set_round`]): instance modules are named by it and the
    /// instance's key, so every call of one instantiation in a round names the same module and
    /// two items of one Rust module name different ones.
    static ROUND: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Names the round about to be checked by what distinguishes its item (its tokens).
pub fn set_round(tag: &str) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    tag.hash(&mut h);
    ROUND.with(|r| r.set(h.finish()));
}

pub(super) fn module_name(name: &str, key: &str) -> proc_macro2::Ident {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ROUND.with(|r| r.get()).hash(&mut h);
    key.hash(&mut h);
    format_ident!("__ptx_inst_{}_{:x}", name.trim_start_matches("r#"), h.finish())
}

impl Checker<'_> {
    /// `path(args)` where `path` names a generic `#[device_fn]`.
    pub fn generic_call(&mut self, info: &GenericFnInfo, path: &syn::Path, fetch_path: &TokenStream, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Expr {
        let xs: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        let Some(item) = info.item.parsed() else {
            return self.error(span, format!("internal: the replay of `{}` does not parse", info.name));
        };
        let (_, inputs) = super::receiver::split_receiver(&item.sig);
        let Bound { params, mut subst, targs, shown } = match self.bind_call(&item.sig.generics, path.segments.last().map(|s| &s.arguments), &inputs, &xs, &info.name, span) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let key = format!("{}<{}>", crate::link::key(fetch_path), shown.join(","));
        let instance = match self.instances.iter().find(|i| i.key == key) {
            Some(i) => i.clone(),
            None => {
                let Ok(callee) = syn::parse2::<syn::Path>(fetch_path.clone()) else { return self.error_expr(span) };
                let mut known: HashSet<String> = self.mentioned.clone();
                known.extend(params.iter().map(|p| p.name().to_owned()));
                let mut inst = syn::ItemFn::clone(&item);
                // The body's type aliases first: their names are not paths through the callee.
                if let Some(b) = super::local_alias::resolve_aliases(&inst.block, self.errors) {
                    *inst.block = b;
                }
                let through = ThroughCalleeBody { callee: &callee, known: &known };
                // User-trait bounds on parameters that become primitives: kept as
                // `where f32: path::Float` for the front end (see `traits`).
                let mut prim_bounds: Vec<syn::WherePredicate> = Vec::new();
                for (name, bound) in bounds(&item.sig.generics) {
                    let Some(syn::Type::Path(tp)) = subst.types.get(&name).cloned() else { continue };
                    if tp.path.get_ident().is_some_and(|i| Scalar::from_rust_name(&i.to_string()).is_some()) && super::traits::is_user_trait(&bound) {
                        let mut b = bound.clone();
                        through.rewrite(&mut b, true);
                        // A generic trait's arguments (`Scale<V>`) are the instance's.
                        subst.visit_path_mut(&mut b);
                        prim_bounds.push(syn::parse_quote!(#tp: #b));
                    }
                }
                super::assoc_type::QualifyAssoc::of(&item.sig.generics).visit_item_fn_mut(&mut inst);
                let mut through = through;
                through.visit_item_fn_mut(&mut inst);
                subst.visit_item_fn_mut(&mut inst);
                inst.sig.generics = syn::Generics::default();
                if !prim_bounds.is_empty() {
                    inst.sig.generics.where_clause = Some(syn::parse_quote!(where #(#prim_bounds),*));
                }
                inst.attrs.retain(|a| !a.path().is_ident("device_fn"));
                let module = module_name(&info.name, &key);
                let callee_inner = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: callee }));
                let symbol = quote!(::ptx_runtime::__private::Piece::Template { path: #callee_inner::__PTX_MODULE, args: &[#(#targs),*] });
                let i = Instance { key, module, item: inst, symbol, self_ty: None };
                self.instances.push(i.clone());
                i
            }
        };
        // The call, checked against the instance's signature.
        let mut out = Vec::new();
        let (_, pts) = super::receiver::split_receiver(&instance.item.sig);
        for (pt, x) in pts.into_iter().zip(xs) {
            let t = self.resolve_type(pt, Position::Signature);
            let t = self.describe(&t, x.span);
            self.expect(x.span, &t, &x.ty);
            out.push(x);
        }
        let ret = match &instance.item.sig.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => {
                let r = self.resolve_type(t, Position::Signature);
                self.describe(&r, span)
            }
        };
        let module = &instance.module;
        let callee = Rc::new(Callee { path: quote!(#module), assoc: None, ret: ret.clone() });
        Expr { kind: ExprKind::Call { callee, args: out }, ty: ret, span }
    }

    /// The generic arguments of a call of a function with `generics` (a generic function's, a
    /// generic method's own): `written` (`f::<f32, 5>`) first, then inferred from the arguments
    /// `xs` against the parameter types `inputs` as rustc infers them for these shapes, then
    /// the literals' defaults. `Err`: the call's expression, an error reported.
    pub(super) fn bind_call(&mut self, generics: &syn::Generics, written: Option<&syn::PathArguments>, inputs: &[&syn::Type], xs: &[Expr], name: &str, span: Span) -> Result<Bound, Expr> {
        let mut params = Vec::new();
        for p in &generics.params {
            match p {
                syn::GenericParam::Type(t) => params.push(Param::Type(t.ident.to_string())),
                syn::GenericParam::Const(c) => {
                    let code = match &c.ty {
                        syn::Type::Path(tp) => tp.path.get_ident().and_then(|i| Scalar::from_rust_name(&i.to_string())).filter(|s| s.is_integral() || *s == Scalar::Bool).map(crate::expand::method::scalar_code),
                        _ => None,
                    };
                    let Some(code) = code else {
                        return Err(self.error(span, format!("`{}`: const generic parameters of device functions are integers or `bool`", name)));
                    };
                    params.push(Param::Const(c.ident.to_string(), code));
                }
                syn::GenericParam::Lifetime(_) => {}
            }
        }
        let mut bound: HashMap<String, Arg> = HashMap::new();
        // Written arguments: `f::<f32, 5>(..)`.
        if let Some(syn::PathArguments::AngleBracketed(ab)) = written {
            let written: Vec<&syn::GenericArgument> = ab.args.iter().filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_))).collect();
            if written.len() > params.len() {
                return Err(self.error(span, format!("`{}` takes {} generic argument(s) but {} were given", name, params.len(), written.len())));
            }
            for (ga, p) in written.into_iter().zip(&params) {
                match (p, ga) {
                    (Param::Type(n), syn::GenericArgument::Type(t)) => {
                        let ty = self.resolve_type(t, Position::Body);
                        let ty = self.describe(&ty, syn::spanned::Spanned::span(t));
                        bound.insert(n.clone(), Arg::Type(ty));
                    }
                    (Param::Const(n, _), ga) => match const_value(ga) {
                        Some(v) => {
                            bound.insert(n.clone(), Arg::Const(v));
                        }
                        None => return Err(self.error(syn::spanned::Spanned::span(ga), format!("the const argument `{n}` of a device function is an integer literal here (`{}::<5>(..)`)", name))),
                    },
                    (Param::Type(n), other) => return Err(self.error(syn::spanned::Spanned::span(other), format!("`{n}` is a type parameter of `{}`", name))),
                }
            }
        }
        if inputs.len() != xs.len() {
            return Err(self.error(span, format!("`{}` takes {} arguments but {} were given", name, inputs.len(), xs.len())));
        }
        if xs.iter().any(|x| matches!(self.shallow(&x.ty), Ty::Error)) {
            return Err(self.error_expr(span));
        }
        // Inferred arguments: concrete types first, then literals' defaults (rustc's order for
        // `lerp(0.5, b, t)`).
        let mut pending: HashMap<String, Ty> = HashMap::new();
        for (pt, x) in inputs.iter().zip(xs) {
            // Shallow: a literal's type still open is a variable, bound last.
            let t = self.shallow(&x.ty);
            self.bind(pt, &t, &params, &mut bound, &mut pending);
        }
        for (name, t) in pending {
            if !bound.contains_key(&name) {
                let d = match &t {
                    Ty::Var(v) => match self.infer.kind_of(*v) {
                        super::infer::VarKind::Int => Some(Ty::Scalar(Scalar::I32)),
                        super::infer::VarKind::Float => Some(Ty::Scalar(Scalar::F64)),
                        super::infer::VarKind::General => None,
                    },
                    _ => None,
                };
                if let Some(d) = d {
                    bound.insert(name, Arg::Type(d));
                }
            }
        }
        let mut subst = Subst { types: HashMap::new(), consts: HashMap::new() };
        let mut targs = Vec::new();
        let mut shown = Vec::new();
        for p in &params {
            let Some(arg) = bound.get(p.name()).cloned() else {
                return Err(self.error(span, format!("cannot infer the generic argument `{}` of `{}`: write it (`{}::<..>(..)`)", p.name(), name, name)));
            };
            match (p, arg) {
                (Param::Type(n), Arg::Type(t)) => {
                    let t = self.describe(&t, span);
                    let Some((tokens, targ)) = self.type_arg(&t) else {
                        if matches!(t, Ty::Error) {
                            return Err(self.error_expr(span));
                        }
                        let shown = self.infer.resolve(&t);
                        return Err(self.error(span, format!("`{shown}` cannot be a generic argument of a device function yet: use a primitive or a `DeviceRepr` struct")));
                    };
                    shown.push(tokens.to_string());
                    let Ok(ty) = syn::parse2::<syn::Type>(tokens) else { return Err(self.error_expr(span)) };
                    subst.types.insert(n.clone(), ty);
                    targs.push(targ);
                }
                (Param::Const(n, code), Arg::Const(v)) => {
                    shown.push(v.to_string());
                    subst.consts.insert(n.clone(), (v, *code));
                    let (value, negative) = (v.unsigned_abs() as u64, v < 0);
                    targs.push(quote!(::ptx_runtime::__private::TemplateArg::Int { code: #code, value: #value, negative: #negative }));
                }
                _ => return Err(self.error(span, format!("`{}`: a generic argument of the wrong kind", p.name()))),
            }
        }
        Ok(Bound { params, subst, targs, shown })
    }

    /// Binds the parameters `pt` mentions from the argument's type `arg`.
    fn bind(&mut self, pt: &syn::Type, arg: &Ty, params: &[Param], bound: &mut HashMap<String, Arg>, pending: &mut HashMap<String, Ty>) {
        match pt {
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(id) = p.path.get_ident() else { return };
                let name = id.to_string();
                if !params.iter().any(|q| matches!(q, Param::Type(n) if *n == name)) || bound.contains_key(&name) {
                    return;
                }
                match self.shallow(arg) {
                    Ty::Var(_) => {
                        pending.entry(name).or_insert_with(|| arg.clone());
                    }
                    Ty::Error => {}
                    t => {
                        bound.insert(name, Arg::Type(t));
                    }
                }
            }
            syn::Type::Reference(r) => match (&*r.elem, arg) {
                (syn::Type::Slice(s), Ty::Slice { elem, .. }) => self.bind(&s.elem, &elem.clone(), params, bound, pending),
                (e, Ty::Ptr { pointee, .. }) => self.bind(e, &pointee.clone(), params, bound, pending),
                _ => {}
            },
            syn::Type::Ptr(p) => {
                if let Ty::Ptr { pointee, .. } = arg {
                    self.bind(&p.elem, &pointee.clone(), params, bound, pending);
                }
            }
            syn::Type::Slice(s) => {
                if let Ty::Slice { elem, .. } = arg {
                    self.bind(&s.elem, &elem.clone(), params, bound, pending);
                }
            }
            syn::Type::Array(a) => {
                if let Ty::Array { elem, len } = arg {
                    self.bind(&a.elem, &elem.clone(), params, bound, pending);
                    if let (syn::Expr::Path(lp), Some(n)) = (&a.len, len.known()) {
                        if let Some(id) = lp.path.get_ident() {
                            let name = id.to_string();
                            if params.iter().any(|q| matches!(q, Param::Const(c, _) if *c == name)) {
                                bound.entry(name).or_insert(Arg::Const(n as i128));
                            }
                        }
                    }
                }
            }
            syn::Type::Paren(p) => self.bind(&p.elem, arg, params, bound, pending),
            syn::Type::Group(g) => self.bind(&g.elem, arg, params, bound, pending),
            _ => {}
        }
    }

    /// A type argument as tokens nameable where the caller is, and as a `TemplateArg`.
    pub(super) fn type_arg(&mut self, t: &Ty) -> Option<(TokenStream, TokenStream)> {
        let p = quote!(::ptx_runtime::__private);
        match self.infer.resolve(t) {
            Ty::Scalar(s) if !matches!(s, Scalar::F16 | Scalar::BF16) => {
                let name = format_ident!("{}", format!("{s:?}").to_lowercase());
                let code = crate::expand::method::scalar_code(s);
                Some((quote!(#name), quote!(#p::TemplateArg::Builtin(#code))))
            }
            Ty::Struct(def) if def.generic.is_none() => {
                let path = def.path.clone();
                let ty: syn::Type = syn::parse2(path.clone()).ok()?;
                let inner = crate::syntax::rewrite::for_inner_module(&ty);
                let name = def.name.clone();
                Some((path, quote!(#p::TemplateArg::Struct { path: <#inner as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #name })))
            }
            // An instance of a generic type (`Pair<f32>`, `Pair<Pair<f32>>`): the path as the
            // body names it, arguments included, and a class template's specialization.
            Ty::Struct(def) => {
                let g = def.generic.clone()?;
                let path = def.path.clone();
                let ty: syn::Type = syn::parse2(path.clone()).ok()?;
                let inner = crate::syntax::rewrite::for_inner_module(&ty);
                let base = g.base.clone();
                let mut args = Vec::new();
                for a in &g.args {
                    args.push(match a {
                        super::ty::GenericArg::Type(t) => self.type_arg(t)?.1,
                        super::ty::GenericArg::Const(v, code) => {
                            let (value, negative) = (v.unsigned_abs() as u64, *v < 0);
                            quote!(#p::TemplateArg::Int { code: #code, value: #value, negative: #negative })
                        }
                    });
                }
                Some((path, quote!(#p::TemplateArg::Specialization { path: <#inner as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #base, args: &[#(#args),*] })))
            }
            _ => None,
        }
    }
}

/// Each type parameter's trait bounds, inline and in the `where` clause.
pub(super) fn bounds(g: &syn::Generics) -> Vec<(String, syn::Path)> {
    let mut out = Vec::new();
    let mut add = |name: String, bs: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        for b in bs {
            if let syn::TypeParamBound::Trait(t) = b {
                out.push((name.clone(), t.path.clone()));
            }
        }
    };
    for p in &g.params {
        if let syn::GenericParam::Type(t) = p {
            add(t.ident.to_string(), &t.bounds);
        }
    }
    if let Some(w) = &g.where_clause {
        for p in &w.predicates {
            if let syn::WherePredicate::Type(pt) = p {
                if let syn::Type::Path(tp) = &pt.bounded_ty {
                    if let Some(i) = tp.path.get_ident() {
                        add(i.to_string(), &pt.bounds);
                    }
                }
            }
        }
    }
    out
}

/// An integer literal (possibly negated, possibly in braces) as a const generic argument.
pub(crate) fn const_value(ga: &syn::GenericArgument) -> Option<i128> {
    fn expr(e: &syn::Expr) -> Option<i128> {
        match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().ok(),
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => Some(b.value as i128),
            syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr: inner, .. }) => expr(inner).map(|v| -v),
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => expr(e),
                _ => None,
            },
            syn::Expr::Paren(p) => expr(&p.expr),
            _ => None,
        }
    }
    match ga {
        syn::GenericArgument::Const(e) => expr(e),
        _ => None,
    }
}

/// The generic parameters replaced by the arguments: types where a type is written, literals
/// where a const parameter is used (unsuffixed as an array length, typed as a value).
#[derive(Clone)]
pub(crate) struct Subst {
    types: HashMap<String, syn::Type>,
    consts: HashMap<String, (i128, &'static str)>,
}

impl Subst {
    /// Type parameters, and const parameters with their value and type's Itanium code.
    pub(crate) fn new(types: HashMap<String, syn::Type>, consts: HashMap<String, (i128, &'static str)>) -> Subst {
        Subst { types, consts }
    }

    /// The type a type parameter is bound to.
    pub(super) fn type_of(&self, name: &str) -> Option<&syn::Type> {
        self.types.get(name)
    }

    /// The value a const parameter is bound to.
    pub(super) fn const_of(&self, name: &str) -> Option<i128> {
        self.consts.get(name).map(|(v, _)| *v)
    }

    fn literal(&self, name: &str, typed: bool) -> Option<syn::Expr> {
        let (v, code) = *self.consts.get(name)?;
        let suffix = match code {
            "b" => return Some(if v != 0 { syn::parse_quote!(true) } else { syn::parse_quote!(false) }),
            "a" => "i8",
            "h" => "u8",
            "s" => "i16",
            "t" => "u16",
            "i" => "i32",
            "j" => "u32",
            "l" => "i64",
            _ => "u64",
        };
        let suffix = if typed { suffix } else { "" };
        let lit = syn::LitInt::new(&format!("{}{suffix}", v.unsigned_abs()), Span::call_site());
        Some(if v < 0 { syn::parse_quote!(-#lit) } else { syn::parse_quote!(#lit) })
    }
}

impl VisitMut for Subst {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            if let Some(n) = p.qself.is_none().then(|| p.path.get_ident()).flatten() {
                if let Some(c) = self.types.get(&n.to_string()) {
                    *t = c.clone();
                    return;
                }
            }
        }
        if let syn::Type::Array(a) = t {
            if let syn::Expr::Path(lp) = &a.len {
                if let Some(e) = lp.path.get_ident().and_then(|n| self.literal(&n.to_string(), false)) {
                    a.len = e;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if let Some(lit) = p.qself.is_none().then(|| p.path.get_ident()).flatten().and_then(|n| self.literal(&n.to_string(), true)) {
                *e = lit;
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_generic_argument_mut(&mut self, ga: &mut syn::GenericArgument) {
        if let syn::GenericArgument::Type(syn::Type::Path(p)) = ga {
            if let Some(lit) = p.path.get_ident().and_then(|n| self.literal(&n.to_string(), false)) {
                *ga = syn::GenericArgument::Const(lit);
                return;
            }
        }
        syn::visit_mut::visit_generic_argument_mut(self, ga);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        // `T::zero()`, `S::SIDES`: the argument's path, then the rest.
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let first = path.segments[0].ident.to_string();
            if let Some(syn::Type::Path(tp)) = self.types.get(&first) {
                let rest: Vec<syn::PathSegment> = path.segments.iter().skip(1).cloned().collect();
                path.leading_colon = tp.path.leading_colon;
                path.segments = tp.path.segments.iter().cloned().chain(rest).collect();
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_item_mut(&mut self, i: &mut syn::Item) {
        // A type alias in the body (`type P = Pair<T>;`, see `local_alias`) names the parameters.
        if let syn::Item::Type(t) = i {
            self.visit_type_mut(&mut t.ty);
        }
    }
}

/// The callee's relative paths named through the callee (`geo::horner::helper`, its
/// generated module re-exports its scope): types, called functions, struct literals, paths of
/// two or more segments and constants (`UPPER_CASE`); not locals, primitives, the generic
/// parameters or names the caller writes itself.
pub(crate) struct ThroughCalleeBody<'p> {
    pub(crate) callee: &'p syn::Path,
    pub(crate) known: &'p HashSet<String>,
}

impl ThroughCalleeBody<'_> {
    pub(crate) fn rewrite(&self, path: &mut syn::Path, single_ok: bool) {
        let Some(first) = path.segments.first().map(|s| s.ident.to_string()) else { return };
        let primitive = Scalar::from_rust_name(&first).is_some() || first == "str";
        let relative = path.leading_colon.is_none()
            && !matches!(first.as_str(), "crate" | "self" | "super" | "Self" | "$crate" | "core" | "std" | "alloc" | "ptx_runtime")
            && !primitive
            && !self.known.contains(&first)
            && (single_ok || path.segments.len() > 1);
        if relative {
            let mut p = self.callee.clone();
            for seg in &path.segments {
                p.segments.push(seg.clone());
            }
            *path = p;
        }
    }
}

impl ThroughCalleeBody<'_> {
    /// The type arguments written in a path's segments (`FragmentA::<M16N8K16, f16>::zero`).
    fn path_type_args(&mut self, path: &mut syn::Path) {
        for seg in &mut path.segments {
            if let syn::PathArguments::AngleBracketed(ab) = &mut seg.arguments {
                for a in &mut ab.args {
                    if let syn::GenericArgument::Type(t) = a {
                        self.visit_type_mut(t);
                    }
                }
            }
        }
    }
}

impl VisitMut for ThroughCalleeBody<'_> {
    fn visit_type_path_mut(&mut self, tp: &mut syn::TypePath) {
        match &tp.qself {
            None => self.rewrite(&mut tp.path, true),
            // `<S as Measure>::Out`: the trait's path.
            Some(q) if q.position > 0 => {
                let pos = q.position;
                let mut tr = syn::Path { leading_colon: tp.path.leading_colon, segments: tp.path.segments.iter().take(pos).cloned().collect() };
                let before = tr.segments.len();
                self.rewrite(&mut tr, true);
                let added = tr.segments.len() - before;
                tr.segments.extend(tp.path.segments.iter().skip(pos).cloned());
                tp.path = tr;
                if let Some(q) = &mut tp.qself {
                    q.position += added;
                }
            }
            Some(_) => {}
        }
        syn::visit_mut::visit_type_path_mut(self, tp);
    }

    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        if let syn::Expr::Path(p) = &mut *c.func {
            if p.qself.is_none() {
                self.rewrite(&mut p.path, true);
                self.path_type_args(&mut p.path);
            }
            for a in &mut c.args {
                self.visit_expr_mut(a);
            }
            return;
        }
        syn::visit_mut::visit_expr_call_mut(self, c);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        if s.qself.is_none() {
            self.rewrite(&mut s.path, true);
        }
        for f in &mut s.fields {
            self.visit_expr_mut(&mut f.expr);
        }
        if let Some(r) = &mut s.rest {
            self.visit_expr_mut(r);
        }
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() {
            let constant = p.path.get_ident().is_some_and(|i| i.to_string().starts_with(|c: char| c.is_ascii_uppercase()));
            self.rewrite(&mut p.path, constant);
            self.path_type_args(&mut p.path);
        }
    }

    fn visit_item_mut(&mut self, i: &mut syn::Item) {
        if let syn::Item::Type(t) = i {
            self.visit_type_mut(&mut t.ty);
        }
    }
}

/// Whether `item` is a generic function (type or const parameters; lifetimes alone are not).
pub fn is_generic(sig: &syn::Signature) -> bool {
    sig.generics.params.iter().any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
}
