//! Calls and paths: device functions (through their replays), the device API, tuple-struct
//! and vector constructors, the primitive types' associated functions and constants, and
//! constants defined outside the body (evaluated by rustc).

use crate::syntax::first_token::FirstToken;
use super::hir::{Callee, Expr, ExprKind};
use super::infer::VarKind;
use super::ty::{NamedRef, StructKind, Ty};
use super::{unsupported, Checker};
use crate::link::info::Info;
use proc_macro2::{Span, TokenStream};
use ptx_abi::Scalar;
use quote::{quote, ToTokens};
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

impl<'a> Checker<'a> {
    pub fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.first_span();
        let syn::Expr::Path(p) = super::expr::strip(&c.func) else {
            for a in &c.args {
                self.expr(a);
            }
            return self.error(c.func.span(), "only functions named by a path can be called in device code (closures and function pointers are not supported); call a `#[device_fn]`");
        };
        if let Some(q) = &p.qself {
            return self.qualified_call(q, &p.path, &c.args, span);
        }
        let path = &p.path;
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() == 1 && path.leading_colon.is_none() {
            if let Some(id) = self.lookup(&segs[0]) {
                if let Some(e) = self.call_closure(id, &c.args, span) {
                    return e;
                }
                let t = self.local(id).ty.clone();
                if matches!(self.shallow(&t), Ty::Error) {
                    return self.error_expr(span);
                }
                return self.error(span, unsupported::CLOSURE);
            }
        }
        let last = segs.last().cloned().unwrap_or_default();
        if segs.len() >= 2 && segs[segs.len() - 2] == "mem" && matches!(last.as_str(), "swap" | "replace" | "take") {
            return self.mem_call(&last, &c.args, span);
        }
        // Things that never reach the device.
        match last.as_str() {
            "Some" | "Ok" | "Err" => return self.variant_call(&last, &c.args, span).unwrap_or_else(|| self.error_expr(span)),
            _ => {}
        }
        if segs.len() >= 2 {
            let owner = &segs[segs.len() - 2];
            if matches!(owner.as_str(), "Box" | "Vec" | "String" | "Rc" | "Arc") {
                return self.error(span, unsupported::HEAP);
            }
            // `f32::sqrt(x)`, `u32::max(a, b)`, `f32::from_bits(b)`: a method with the receiver
            // passed first.
            if let Some(s) = Scalar::from_rust_name(owner) {
                if self.has_prim_trait(s) && segs.len() == 2 {
                    let args: Vec<&syn::Expr> = c.args.iter().collect();
                    let name_span = path.segments.last().map(|s| s.ident.span()).unwrap_or(span);
                    return self.prim_trait_call(s, None, &last, &args, span, name_span);
                }
                return self.assoc_fn_call(Ty::Scalar(s), &last, &c.args, span);
            }
            // `f32x4::new(x, y, z, w)`
            if last == "new" {
                if let Some((elem, lanes)) = super::resolve::vector_by_name(owner) {
                    return self.vector_new(elem, lanes, &c.args, span);
                }
            }
            if owner.starts_with("Fragment") {
                let mut ty_path = path.clone();
                ty_path.segments.pop();
                let ty_path = syn::Path { leading_colon: ty_path.leading_colon, segments: ty_path.segments.into_iter().collect() };
                if let Some(e) = self.fragment_fn(&ty_path, &last, &c.args, span) {
                    return e;
                }
            }
            if matches!(owner.as_str(), "mem") && matches!(last.as_str(), "size_of" | "align_of") {
                return self.size_of(path, span);
            }
        }
        if let Some(e) = self.data_variant_call(path, &c.args, span) {
            return e;
        }
        let fetch_path = strip_generics(path);
        // `Vec3::new(..)`, `Vec3::dot(a, b)`: a function of a `#[device_fn] impl`, found next to
        // its type (types are named in `UpperCamelCase`, modules are not).
        if segs.len() >= 2 && self.env.get(&fetch_path).is_none() && segs[segs.len() - 2].starts_with(|c: char| c.is_ascii_uppercase()) {
            let mut ty_path = path.clone();
            ty_path.segments.pop();
            // `Pair::<f32>::new`: the type's own arguments stay (see `generic_type`).
            let written = syn::Path { leading_colon: ty_path.leading_colon, segments: ty_path.segments.into_iter().collect() };
            let ty_path = super::generic_type::canonical(&written);
            let args: Vec<&syn::Expr> = c.args.iter().collect();
            let name_span = path.segments.last().map(|s| s.ident.span()).unwrap_or(span);
            // `Float::halve(x)` in an instance where a primitive is bound by `Float`.
            if let Some(s) = self.prim_bound_by_trait(&ty_path) {
                return self.prim_trait_call(s, None, &last, &args, span, name_span);
            }
            // `Halve::halve(x)`, `Shape::area(&c)`: through a `#[device_fn]` trait.
            if let Some(Info::Trait(_) | Info::GenericTrait(_)) = self.env.get(&ty_path) {
                return self.trait_path_call(&ty_path, &last, &args, span, name_span);
            }
            // `Scale::<u32>::scale(x, 4)`: a generic trait's arguments on its path.
            if super::prim_generic_trait::written_args(&written).is_some() {
                let bare = crate::expand::generic_trait::bare(&written);
                if let Some(Info::GenericTrait(g)) = self.env.get(&quote::quote!(#bare)).cloned() {
                    return self.turbofish_trait_call(&written, &bare, &g, &last, &args, span, name_span);
                }
            }
            if let Some(e) = self.plain_trait_call(&written, span) {
                for a in &args {
                    self.expr(a);
                }
                return e;
            }
            let named = Ty::Named(Rc::new(NamedRef { key: crate::link::key(&ty_path), path: ty_path }));
            return match self.describe(&named, span) {
                Ty::Struct(def) => {
                    // `Vec3::get::<2>(v)`: a generic method's arguments.
                    if let Some(syn::PathArguments::AngleBracketed(ab)) = path.segments.last().map(|s| &s.arguments) {
                        self.method_generics = Some(ab.clone());
                    }
                    self.assoc_call(def, &last, &args, span, name_span)
                }
                _ => {
                    for a in &args {
                        self.expr(a);
                    }
                    self.error_expr(span)
                }
            };
        }
        match self.env.get(&fetch_path).cloned() {
            Some(Info::Fn(info)) => {
                if let Some(e) = self.default_inline(&info, &fetch_path, &c.args, span) {
                    return e;
                }
                let mut params = Vec::new();
                for t in &info.params {
                    params.push(self.callee_type(t, &fetch_path, false));
                }
                let ret = match &info.ret {
                    Some(t) => self.callee_type(t, &fetch_path, true),
                    None => Ty::Unit,
                };
                let mut args = Vec::new();
                if c.args.len() != params.len() {
                    self.errors.at(span, format!("`{}` takes {} arguments but {} were given", info.name, params.len(), c.args.len()));
                    return self.error_expr(span);
                }
                for (a, pt) in c.args.iter().zip(&params) {
                    let x = self.expr(a);
                    self.expect(x.span, pt, &x.ty);
                    args.push(x);
                }
                let callee = Rc::new(Callee { path: fetch_path, assoc: None, ret: ret.clone() });
                Expr { kind: ExprKind::Call { callee, args }, ty: ret, span }
            }
            Some(Info::GenericFn(g)) => match self.generic_closure_call(&g, &fetch_path, &c.args, span) {
                Some(e) => e,
                None => self.generic_call(&g, path, &fetch_path, &c.args, span),
            },
            Some(Info::Api(name)) => {
                let generics = path.segments.last().map(|s| s.arguments.clone()).unwrap_or(syn::PathArguments::None);
                self.api_call(&name, &generics, &c.args, span)
            }
            Some(Info::Struct(info)) if info.kind == StructKind::Tuple => {
                let named = Ty::Named(Rc::new(NamedRef { key: crate::link::key(&fetch_path), path: fetch_path.clone() }));
                let Ty::Struct(def) = self.describe(&named, span) else { return self.error_expr(span) };
                if c.args.len() != def.fields.len() {
                    return self.error(span, format!("`{}` has {} fields but {} were given", def.name, def.fields.len(), c.args.len()));
                }
                let mut fields = Vec::new();
                for (i, a) in c.args.iter().enumerate() {
                    let x = self.expr(a);
                    self.expect(x.span, &def.fields[i].ty, &x.ty);
                    fields.push((i, x));
                }
                Expr { kind: ExprKind::Struct { def: def.clone(), fields, base: None }, ty: Ty::Struct(def), span }
            }
            Some(_) => self.error(span, format!("`{}` cannot be called", fetch_path)),
            None => {
                // Check the arguments for their own errors and fetches, then fetch the callee.
                // A path of a type's member (`Ordering::Relaxed`) waits for the callee: it may
                // be a constant the callee takes as it is (the device API's atomics), not an enum
                // variant to fetch.
                for a in &c.args {
                    if !matches!(super::expr::strip(a), syn::Expr::Path(p) if p.path.segments.len() > 1) && self.is_closure_arg(a).is_none() {
                        self.expr(a);
                    }
                }
                // A plain function of the call's own files: said so, instead of fetching a
                // replay it does not have.
                if let Some(e) = self.plain_call(path, span) {
                    return e;
                }
                self.needs.need(&fetch_path);
                // Unknown until the fetch: an error type keeps later uses quiet.
                self.error_expr(span)
            }
        }
    }

    /// A type from a callee's signature, written in the callee's scope. A name this item
    /// mentions itself is in its scope; another relative path is named through the callee's
    /// generated module (`callee::T`), which re-exports the callee's scope. Results are
    /// described (fetched) because the caller will use them.
    fn callee_type(&mut self, tokens: &TokenStream, callee: &TokenStream, describe: bool) -> Ty {
        let Ok(mut t) = syn::parse2::<syn::Type>(tokens.clone()) else { return Ty::Error };
        let Ok(callee) = syn::parse2::<syn::Path>(callee.clone()) else { return Ty::Error };
        ThroughCallee { callee: &callee, known: &self.mentioned }.visit_type_mut(&mut t);
        let ty = self.resolve_type(&t, super::Position::Signature);
        if describe {
            self.describe(&ty, t.span())
        } else {
            ty
        }
    }

    fn assoc_fn_call(&mut self, owner: Ty, name: &str, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Expr {
        if name == "from" {
            return self.from_call(owner, args, span);
        }
        if name == "try_from" && args.len() == 1 {
            let x = self.expr(&args[0]);
            let x = self.auto_deref_value(x);
            return self.try_from_int(x, owner, span);
        }
        if name == "from_bits" {
            let Some(a) = args.first() else { return self.error(span, "`from_bits` takes one argument") };
            let x = self.expr(a);
            let bits = match owner {
                Ty::Scalar(Scalar::F32) => Ty::Scalar(Scalar::U32),
                Ty::Scalar(Scalar::F64) => Ty::Scalar(Scalar::U64),
                Ty::Scalar(Scalar::F16 | Scalar::BF16) => Ty::Scalar(Scalar::U16),
                _ => return self.error(span, "`from_bits` is supported on `f16`, `bf16`, `f32` and `f64`"),
            };
            self.expect(x.span, &bits, &x.ty);
            return Expr { kind: ExprKind::Intrinsic { op: super::intrinsic::Intrinsic::Bits, args: vec![x] }, ty: owner, span };
        }
        if matches!(owner, Ty::Scalar(Scalar::F16 | Scalar::BF16)) && matches!(name, "from_f32" | "from_f64") {
            let Some(a) = args.first() else { return self.error(span, "this function takes one argument") };
            let x = self.expr(a);
            let from = Ty::Scalar(if name == "from_f32" { Scalar::F32 } else { Scalar::F64 });
            self.expect(x.span, &from, &x.ty);
            return Expr { kind: ExprKind::Cast(Box::new(x)), ty: owner, span };
        }
        let mut it = args.iter();
        let Some(recv) = it.next() else {
            return self.error(span, format!("`{}::{name}` is not supported in device code", owner));
        };
        let recv = self.expr(recv);
        self.expect(recv.span, &owner, &recv.ty);
        let rest: Vec<&syn::Expr> = it.collect();
        self.method(recv, name, &rest, span, span)
    }

    fn vector_new(&mut self, elem: Scalar, lanes: u8, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Expr {
        if args.len() != lanes as usize {
            return self.error(span, format!("this vector has {lanes} lanes"));
        }
        let mut xs = Vec::new();
        for a in args {
            let x = self.expr(a);
            self.expect(x.span, &Ty::Scalar(elem), &x.ty);
            xs.push(x);
        }
        Expr { kind: ExprKind::Vector(xs), ty: Ty::Vector { elem, lanes }, span }
    }

    fn size_of(&mut self, path: &syn::Path, span: Span) -> Expr {
        let path = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: path.clone() }));
        Expr { kind: ExprKind::Const(quote!((#path() as u64))), ty: Ty::usize(), span }
    }

    /// A path used as a value that is not a local.
    pub fn const_path(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.first_span();
        if let Some(e) = self.known_float_const(&p.path, span) {
            return e;
        }
        if let Some((v, ty)) = self.known_const(&p.path) {
            return Expr { kind: ExprKind::Int(v as u128), ty, span };
        }
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.last().map(String::as_str) == Some("None") {
            return self.none_value(span);
        }
        if p.path.segments.len() == 1 && segs[0].chars().next().is_some_and(|c| c.is_lowercase()) {
            return self.error(span, format!("cannot find value `{}` in this scope", segs[0]));
        }
        if let Some(e) = self.variant_expr(p) {
            return e;
        }
        if let Some(e) = self.source_const(p) {
            return e;
        }
        // A constant defined outside the body: its value is rustc's, its type comes from the
        // context (`N as T` where the context does not fix it).
        let ty = self.var(VarKind::General);
        let path = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: p.path.clone() }));
        Expr { kind: ExprKind::Const(path.to_token_stream()), ty, span }
    }

    /// `N as T` for a constant `N` defined outside the body.
    pub fn const_cast(&mut self, p: &syn::ExprPath, to: &Ty, span: Span) -> Option<Expr> {
        if self.known_const(&p.path).is_some() || self.known_float_const(&p.path, span).is_some() || self.source_const(p).is_some() {
            return None;
        }
        let Ty::Scalar(s) = to else { return None };
        let name = Ty::Scalar(*s).to_string();
        let ty_ident = proc_macro2::Ident::new(&name, span);
        let path = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: p.path.clone() }));
        Some(Expr { kind: ExprKind::Const(quote!(((#path) as #ty_ident))), ty: to.clone(), span })
    }

    /// `u32::MAX`, `i8::MIN`, `u64::BITS`: integer constants of the primitive types.
    pub fn known_const(&mut self, path: &syn::Path) -> Option<(i128, Ty)> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() < 2 {
            return None;
        }
        let s = Scalar::from_rust_name(&segs[segs.len() - 2])?;
        if !s.is_integral() || s == Scalar::Bool {
            return None;
        }
        let bits = s.bits() as u32;
        let v: i128 = match segs[segs.len() - 1].as_str() {
            "MAX" if s.is_signed() => (1i128 << (bits - 1)) - 1,
            "MAX" => (1i128 << bits) - 1,
            "MIN" if s.is_signed() => -(1i128 << (bits - 1)),
            "MIN" => 0,
            "BITS" => return Some((bits as i128, Ty::u32())),
            _ => return None,
        };
        Some((v, Ty::Scalar(s)))
    }

    /// `f32::MAX`, `f64::EPSILON`, `f32::consts::PI`, `core::f64::consts::LN_2`, ...
    fn known_float_const(&mut self, path: &syn::Path, span: Span) -> Option<Expr> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let n = segs.len();
        if n < 2 {
            return None;
        }
        let (owner, name) = if n >= 3 && segs[n - 2] == "consts" { (&segs[n - 3], &segs[n - 1]) } else { (&segs[n - 2], &segs[n - 1]) };
        let s = match owner.as_str() {
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            _ => return None,
        };
        use std::f32::consts as c32;
        use std::f64::consts as c64;
        macro_rules! both {
            ($($name:literal => $c:ident),* ; $($lim:literal => $l:ident),*) => {
                match name.as_str() {
                    $($name => (c32::$c, c64::$c),)*
                    $($lim => (f32::$l, f64::$l),)*
                    _ => return None,
                }
            };
        }
        let (a, b): (f32, f64) = both!(
            "PI" => PI, "TAU" => TAU, "E" => E, "FRAC_PI_2" => FRAC_PI_2, "FRAC_PI_3" => FRAC_PI_3,
            "FRAC_PI_4" => FRAC_PI_4, "FRAC_PI_6" => FRAC_PI_6, "FRAC_PI_8" => FRAC_PI_8,
            "FRAC_1_PI" => FRAC_1_PI, "FRAC_2_PI" => FRAC_2_PI, "FRAC_2_SQRT_PI" => FRAC_2_SQRT_PI,
            "SQRT_2" => SQRT_2, "FRAC_1_SQRT_2" => FRAC_1_SQRT_2, "LN_2" => LN_2, "LN_10" => LN_10,
            "LOG2_E" => LOG2_E, "LOG10_E" => LOG10_E, "LOG2_10" => LOG2_10, "LOG10_2" => LOG10_2;
            "INFINITY" => INFINITY, "NEG_INFINITY" => NEG_INFINITY, "NAN" => NAN, "MAX" => MAX,
            "MIN" => MIN, "MIN_POSITIVE" => MIN_POSITIVE, "EPSILON" => EPSILON
        );
        Some(Expr { kind: ExprKind::Float(a, b), ty: Ty::Scalar(s), span })
    }
}

/// The path without generic arguments (`shared_array::<f32, 4>` → `shared_array`): what to
/// fetch.
pub fn strip_generics(path: &syn::Path) -> TokenStream {
    let mut p = path.clone();
    for s in &mut p.segments {
        s.arguments = syn::PathArguments::None;
    }
    p.to_token_stream()
}

/// Rewrites relative named types (`T`, `m::T`) as `callee::T` (the generated module of a
/// device function re-exports its parent module's names), except names in `known`.
pub(crate) struct ThroughCallee<'p> {
    pub callee: &'p syn::Path,
    pub known: &'p std::collections::HashSet<String>,
}

impl syn::visit_mut::VisitMut for ThroughCallee<'_> {
    fn visit_type_path_mut(&mut self, tp: &mut syn::TypePath) {
        let first = tp.path.segments.first().map(|s| s.ident.to_string()).unwrap_or_default();
        let primitive = tp.path.segments.len() == 1 && (Scalar::from_rust_name(&first).is_some() || first == "str");
        let relative = tp.qself.is_none()
            && tp.path.leading_colon.is_none()
            && !matches!(first.as_str(), "crate" | "self" | "super" | "Self" | "$crate")
            && !primitive
            && !self.known.contains(&first);
        if relative {
            let mut p = self.callee.clone();
            for seg in &tp.path.segments {
                p.segments.push(seg.clone());
            }
            tp.path = p;
        }
        syn::visit_mut::visit_type_path_mut(self, tp);
    }
}
