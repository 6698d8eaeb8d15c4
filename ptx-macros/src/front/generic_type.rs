//! Generic `DeviceRepr` types and the methods of generic impls, monomorphized in the caller.
//!
//! `#[derive(DeviceRepr)] struct Pair<T> { a: T, b: T }` leaves a replay with its type
//! parameters and its fields as written (`@generic Pair (T) { @struct .. }`). A body naming
//! `Pair<f32>` (a local's type, a parameter, a slice element, `Pair::<f32>::new`, a struct
//! literal whose fields fix `T`) describes that instance: the fields with the arguments
//! substituted, laid out as any struct (rustc's layout of `Pair<f32>` is asserted equal). Two
//! instances are different types (`Pair<f32>` is not `Pair<f64>`).
//!
//! `#[device_fn] impl<T: Num> Pair<T> { .. }` leaves, per method, a replay carrying the method
//! as written with the impl's generics (`@generic_method`, next to the type as other methods'
//! replays are). A call on a `Pair<f32>` binds `T` from the receiver's type and makes an
//! [`Instance`] of the method as `front::generic` does for a generic function: compiled in the
//! caller's round, with its receiver and `Self` the concrete type, and named as nvcc names the
//! member of the class template instance (`krate::geo::Pair<float>::sum() const` is
//! `_ZNK5krate3geo4PairIfE3sumE`, `ptx_abi::template::write_member_template`).

use crate::syntax::first_token::FirstToken;
use super::generic::{Instance, Subst, ThroughCalleeBody};
use super::hir::{Expr, ExprKind};
use super::ty::{GenericArg, GenericArgs, NamedRef, StructDef, Ty};
use super::{Checker, Position};
use crate::link::info::{GenericMethodInfo, Info, MethodInfo, Recv, StructInfo, StructParam};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// `a::Pair::<f32>` as a type: `a::Pair<f32>` (the arguments of the last segment kept, without
/// turbofish; those of other segments dropped).
pub fn canonical(path: &syn::Path) -> TokenStream {
    let mut p = path.clone();
    let n = p.segments.len();
    for (i, s) in p.segments.iter_mut().enumerate() {
        match &mut s.arguments {
            syn::PathArguments::AngleBracketed(ab) if i + 1 == n => ab.colon2_token = None,
            a => *a = syn::PathArguments::None,
        }
    }
    p.to_token_stream()
}

/// The type at `path` written so it reads as a type and as an expression (`a::Pair::<f32>`).
fn turbofish(path: &TokenStream) -> Option<syn::Type> {
    let mut p: syn::Path = syn::parse2(path.clone()).ok()?;
    for s in &mut p.segments {
        if let syn::PathArguments::AngleBracketed(ab) = &mut s.arguments {
            ab.colon2_token = Some(Default::default());
        }
    }
    Some(syn::Type::Path(syn::TypePath { qself: None, path: p }))
}

/// The path without the last segment's arguments, and those arguments.
fn split(path: &syn::Path) -> Option<(TokenStream, Vec<syn::GenericArgument>)> {
    let last = path.segments.last()?;
    let syn::PathArguments::AngleBracketed(ab) = &last.arguments else { return None };
    let args = ab.args.iter().filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_))).cloned().collect();
    Some((super::call::strip_generics(path), args))
}

impl Checker<'_> {
    /// `Pair<f32>` written as a type (see [`Checker::describe_generic`]).
    pub(super) fn generic_named(&mut self, p: &syn::TypePath, pos: Position, in_pointer: bool) -> Ty {
        let path = canonical(&p.path);
        let named = Ty::Named(Rc::new(NamedRef { key: crate::link::key(&path), path }));
        let fetched = split(&p.path).is_some_and(|(base, _)| self.env.get(&base).is_some());
        if in_pointer || pos == Position::Signature && !fetched {
            return named;
        }
        self.describe(&named, p.span())
    }

    /// The description of a named type with arguments (`Pair<f32>`), fetching the generic
    /// type's replay when it is not known yet; `None` when the path has no arguments.
    pub(super) fn describe_generic(&mut self, n: &NamedRef, span: Span) -> Option<Ty> {
        let path: syn::Path = syn::parse2(n.path.clone()).ok()?;
        let (base, args) = split(&path)?;
        let g = match self.env.get(&base).cloned() {
            Some(Info::Generic(g)) => g,
            Some(_) => {
                self.errors.at(span, format!("`{base}` is not a generic type: remove its arguments"));
                return Some(Ty::Error);
            }
            None => {
                self.needs.need(&base);
                return Some(Ty::Error);
            }
        };
        let name = &g.def.name;
        if args.len() != g.params.len() {
            self.errors.at(span, format!("`{name}` takes {} generic argument(s) but {} were given", g.params.len(), args.len()));
            return Some(Ty::Error);
        }
        let mut gargs = Vec::new();
        let mut tokens = Vec::new();
        let mut shown = Vec::new();
        let mut map = HashMap::new();
        let mut consts = HashMap::new();
        for (a, p) in args.iter().zip(&g.params) {
            match p {
                StructParam::Type(pn) => {
                    let syn::GenericArgument::Type(t) = a else {
                        self.errors.at(a.span(), format!("`{pn}` is a type parameter of `{name}`: write a type"));
                        return Some(Ty::Error);
                    };
                    let ty = self.resolve_type(t, Position::Body);
                    let ty = self.describe(&ty, t.span());
                    if matches!(ty, Ty::Error) {
                        return Some(Ty::Error);
                    }
                    let t = match t {
                        syn::Type::Path(tp) if tp.qself.is_none() => syn::parse2(canonical(&tp.path)).unwrap_or_else(|_| t.clone()),
                        t => t.clone(),
                    };
                    shown.push(self.infer.resolve(&ty).to_string());
                    gargs.push(GenericArg::Type(ty));
                    tokens.push(t.to_token_stream());
                    map.insert(pn.clone(), t);
                }
                StructParam::Const(pn, ty_name) => {
                    let Some(code) = ptx_abi::Scalar::from_rust_name(ty_name).filter(|s| s.is_integral() || *s == ptx_abi::Scalar::Bool).map(crate::expand::method::scalar_code) else {
                        self.errors.at(span, format!("`{name}`: const parameters of `DeviceRepr` types are integers or `bool` in device code"));
                        return Some(Ty::Error);
                    };
                    let Some(v) = super::generic::const_value(a) else {
                        self.errors.at(a.span(), format!("the const argument `{pn}` of `{name}` is an integer literal here (`{name}<4>`)"));
                        return Some(Ty::Error);
                    };
                    shown.push(v.to_string());
                    gargs.push(GenericArg::Const(v, code));
                    tokens.push(match (code, v) {
                        ("b", v) => if v != 0 { quote!(true) } else { quote!(false) },
                        (_, v) if v < 0 => {
                            let lit = syn::LitInt::new(&v.unsigned_abs().to_string(), Span::call_site());
                            quote!({ -#lit })
                        }
                        (_, v) => syn::LitInt::new(&v.to_string(), Span::call_site()).to_token_stream(),
                    });
                    consts.insert(pn.clone(), (v, code));
                }
            }
        }
        // One instance per argument list however it is spelled (`Tile<4>`, `Tile<4usize>`).
        let (base_path, _) = split(&path)?;
        let normal = quote!(#base_path < #(#tokens),* >);
        if let Some(def) = self.structs.get(&crate::link::key(&normal)).cloned() {
            self.structs.insert(n.key.clone(), def.clone());
            return Some(Ty::Struct(def));
        }
        let mut subst = Subst::new(map, consts);
        let fields = g
            .def
            .fields
            .iter()
            .map(|(f, t)| {
                let t = match syn::parse2::<syn::Type>(t.clone()) {
                    Ok(mut t) => {
                        subst.visit_type_mut(&mut t);
                        t.to_token_stream()
                    }
                    Err(_) => t.clone(),
                };
                (f.clone(), t)
            })
            .collect();
        let info = StructInfo { name: format!("{name}<{}>", shown.join(", ")), kind: g.def.kind, align: g.def.align, fields };
        let path = canonical(&path);
        let generic = Rc::new(GenericArgs { base: name.clone(), args: gargs, tokens });
        let def = self.build_struct(&path, &info, span, Some(generic))?;
        self.structs.insert(n.key.clone(), def.clone());
        self.structs.insert(crate::link::key(&path), def.clone());
        self.structs.insert(crate::link::key(&normal), def.clone());
        Some(Ty::Struct(def))
    }

    /// A struct literal of a generic type without arguments (`Pair { a: 1.0f32, b: 2.0 }`):
    /// the arguments from the fields declared as a bare parameter, as rustc infers them from
    /// the fields whose types are known (a suffixed literal, a typed value). `None`: not such
    /// a literal.
    pub fn generic_struct_lit(&mut self, s: &syn::ExprStruct) -> Option<Expr> {
        if s.qself.is_some() || !s.path.segments.last()?.arguments.is_empty() {
            return None;
        }
        let Some(Info::Generic(g)) = self.env.get(&s.path.to_token_stream()).cloned() else { return None };
        let span = s.first_span();
        let mut xs = Vec::new();
        for f in &s.fields {
            let name = match &f.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            xs.push((name, f.member.span(), self.expr(&f.expr)));
        }
        let mut bound: HashMap<String, syn::GenericArgument> = HashMap::new();
        for (name, _, x) in &xs {
            let Some((_, t)) = g.def.fields.iter().find(|(n, _)| n == name) else { continue };
            let t = match syn::parse2::<syn::Type>(t.clone()) {
                // `v: [f32; N]` with an array of a known length: `N`.
                Ok(syn::Type::Array(a)) => {
                    if let (syn::Expr::Path(lp), Ty::Array { len, .. }) = (&a.len, self.shallow(&x.ty)) {
                        if let (Some(id), Some(n)) = (lp.path.get_ident().map(|i| i.to_string()), len.known()) {
                            if g.params.iter().any(|p| matches!(p, StructParam::Const(c, _) if *c == id)) {
                                let lit = syn::LitInt::new(&n.to_string(), Span::call_site());
                                bound.entry(id).or_insert(syn::parse_quote!(#lit));
                            }
                        }
                    }
                    continue;
                }
                Ok(t) => t,
                Err(_) => continue,
            };
            let syn::Type::Path(tp) = t else { continue };
            let Some(id) = tp.path.get_ident().map(|i| i.to_string()) else { continue };
            if !g.params.iter().any(|p| p.type_name() == Some(&id)) || bound.contains_key(&id) {
                continue;
            }
            // A literal whose type is still open binds nothing: rustc would take it from the
            // context, which this check does not see.
            let t = self.shallow(&x.ty);
            if let Some(tokens) = concrete_tokens(&t) {
                if let Ok(ty) = syn::parse2::<syn::Type>(tokens) {
                    bound.insert(id, syn::GenericArgument::Type(ty));
                }
            }
        }
        let name = &g.def.name;
        let mut args = Vec::new();
        for p in &g.params {
            match bound.get(p.name()) {
                Some(t) => args.push(t.clone()),
                None => return Some(self.error(s.path.span(), format!("cannot infer the type arguments of `{name}` from its fields: write them (`{name}::<f32> {{ .. }}`)"))),
            }
        }
        let mut path = s.path.clone();
        if let Some(last) = path.segments.last_mut() {
            last.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(<#(#args),*>));
        }
        let path = canonical(&path);
        let named = Ty::Named(Rc::new(NamedRef { key: crate::link::key(&path), path }));
        let Ty::Struct(def) = self.describe(&named, s.path.span()) else { return Some(self.error_expr(span)) };
        let mut fields = Vec::new();
        for (name, fspan, x) in xs {
            match def.field(&name) {
                Some(i) => {
                    self.expect(x.span, &def.fields[i].ty, &x.ty);
                    fields.push((i, x));
                }
                None => self.errors.at(fspan, format!("`{}` has no field `{name}`", def.name)),
            }
        }
        let base = s.rest.as_ref().map(|r| {
            let b = self.expr(r);
            self.expect(b.span, &Ty::Struct(def.clone()), &b.ty);
            Box::new(b)
        });
        Some(Expr { kind: ExprKind::Struct { def: def.clone(), fields, base }, ty: Ty::Struct(def), span })
    }

    /// The method `g` of a generic impl for the instance `def` (`Pair<f32>`): the impl's
    /// parameters bound from `def`'s arguments, its instance made (once per body), and its
    /// signature for the call, whose callee is the instance. `own`: a generic method's own
    /// arguments, bound at the call (see `generic_method`); `def` is not generic when only the
    /// method is.
    pub(super) fn instantiate_method(&mut self, def: &StructDef, g: &GenericMethodInfo, own: Option<&super::generic::Bound>, span: Span) -> Option<MethodInfo> {
        let ga = def.generic.clone();
        let (Ok(generics), Ok(self_ty), Ok(method)) = (syn::parse2::<syn::ItemFn>(g.generics.clone()), syn::parse2::<syn::Type>(g.self_ty.clone()), syn::parse2::<syn::ImplItemFn>(g.item.clone())) else {
            self.errors.at(span, format!("internal: the replay of `{}::{}` does not parse", def.base_name(), g.name));
            return None;
        };
        let base = def.base_name().to_owned();
        if own.is_none() && super::generic::is_generic(&method.sig) {
            self.errors.at(span, format!("`{}` is a generic method: call it as a method (`v.{}::<..>(..)`) or through its type (`{base}::{}(..)`)", g.name, g.name, g.name));
            return None;
        }
        // `impl<T, U> Pair<T, U>`: each argument of the self type is one of the impl's parameters.
        let params: Vec<String> = generics
            .sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        let self_args: Vec<Option<String>> = match &self_ty {
            syn::Type::Path(tp) => match tp.path.segments.last().map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(ab)) => ab
                    .args
                    .iter()
                    .map(|a| match a {
                        syn::GenericArgument::Type(syn::Type::Path(p)) => p.path.get_ident().map(|i| i.to_string()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        if ga.is_none() && !params.is_empty() {
            self.errors.at(span, format!("internal: `{}` has a generic method but is not generic", def.name));
            return None;
        }
        let (type_args, type_tokens) = match &ga {
            Some(ga) => (ga.args.clone(), ga.tokens.clone()),
            None => (Vec::new(), Vec::new()),
        };
        let mut map = HashMap::new();
        let mut consts = HashMap::new();
        // An impl for one instance (`impl Pair<u32>`) has no parameters to bind.
        for (i, a) in self_args.iter().enumerate().filter(|_| !params.is_empty()) {
            match (a, type_tokens.get(i), type_args.get(i)) {
                (Some(p), Some(_), Some(GenericArg::Const(v, code))) if params.contains(p) => {
                    consts.insert(p.clone(), (*v, *code));
                }
                (Some(p), Some(t), _) if params.contains(p) => {
                    map.insert(p.clone(), syn::parse2::<syn::Type>(t.clone()).ok()?);
                }
                _ => {
                    self.errors.at(span, format!("the generic impl of `{base}` must be `impl<T, ..> {base}<T, ..>`, each parameter an argument of the type"));
                    return None;
                }
            }
        }
        if let Some(p) = params.iter().find(|p| !map.contains_key(*p) && !consts.contains_key(*p)) {
            self.errors.at(span, format!("the parameter `{p}` of the impl of `{base}` is not an argument of the type, so a call cannot bind it"));
            return None;
        }
        let shown: Vec<String> = type_args
            .iter()
            .map(|a| match a {
                GenericArg::Type(t) => self.infer.resolve(t).to_string(),
                GenericArg::Const(v, _) => v.to_string(),
            })
            .collect();
        let mut key = format!("{}::{}<{}>", crate::link::key(&def.path), g.name, shown.join(","));
        // A generic trait's impl: its arguments first (`V::mix<float, unsigned char>`).
        let (trait_shown, trait_margs) = self.trait_template_args(def, &g.trait_args, span)?;
        if !trait_shown.is_empty() {
            key = format!("{key}[{}]", trait_shown.join(","));
        }
        if let Some(own) = own {
            key = format!("{key}::<{}>", own.shown.join(","));
        }
        let module = super::generic::module_name(&format!("{}_{}", base, g.name), &key);
        if !self.instances.iter().any(|i| i.key == key) {
            let mut targs = Vec::new();
            for a in &type_args {
                let t = match a {
                    GenericArg::Type(t) => t,
                    GenericArg::Const(v, code) => {
                        let (value, negative) = (v.unsigned_abs() as u64, *v < 0);
                        targs.push(quote!(::ptx_runtime::__private::TemplateArg::Int { code: #code, value: #value, negative: #negative }));
                        continue;
                    }
                };
                let Some((_, targ)) = self.type_arg(t) else {
                    let shown = self.infer.resolve(t);
                    self.errors.at(span, format!("`{shown}` cannot be an argument of a generic type with device methods yet: use a primitive or a non-generic `DeviceRepr` struct"));
                    return None;
                };
                targs.push(targ);
            }
            let concrete = turbofish(&def.path)?;
            let mut item = syn::ItemFn { attrs: method.attrs.clone(), vis: syn::Visibility::Inherited, sig: method.sig.clone(), block: Box::new(method.block.clone()) };
            // The body's type aliases first: their names are not paths through the type's module.
            if let Some(b) = super::local_alias::resolve_aliases(&item.block, self.errors) {
                *item.block = b;
            }
            // A generic method's own parameters, and user-trait bounds on those that become
            // primitives (kept as `where f32: path::Float`, see `traits`).
            let mut known: HashSet<String> = self.mentioned.clone();
            known.extend(params.iter().cloned());
            let mut prim_bounds: Vec<syn::WherePredicate> = Vec::new();
            // The impl's parameters that are primitives here, bound by a user trait
            // (`impl<T: Shape> Shape for Pair<T>` for `Pair<f32>`: `self.a.area()` is
            // `<f32 as Shape>::area`).
            for (name, bound) in super::generic::bounds(&generics.sig.generics) {
                if let Some(syn::Type::Path(tp)) = map.get(&name) {
                    if tp.path.get_ident().is_some_and(|i| ptx_abi::Scalar::from_rust_name(&i.to_string()).is_some()) && super::traits::is_user_trait(&bound) {
                        prim_bounds.push(syn::parse_quote!(#tp: #bound));
                    }
                }
            }
            if let Some(own) = own {
                known.extend(own.params.iter().map(|p| p.name().to_owned()));
                for (name, bound) in super::generic::bounds(&method.sig.generics) {
                    if let Some(syn::Type::Path(tp)) = own.subst.type_of(&name) {
                        if tp.path.get_ident().is_some_and(|i| ptx_abi::Scalar::from_rust_name(&i.to_string()).is_some()) && super::traits::is_user_trait(&bound) {
                            prim_bounds.push(syn::parse_quote!(#tp: #bound));
                        }
                    }
                }
            }
            // Paths as the impl wrote them, named through the type's module; then the
            // parameters and `Self`.
            if let Ok(mut module_path) = syn::parse2::<syn::Path>(super::call::strip_generics(&syn::parse2(def.path.clone()).ok()?)) {
                module_path.segments.pop();
                if let Some(p) = module_path.segments.pop() {
                    module_path.segments.push(p.into_value());
                    let through = ThroughCalleeBody { callee: &module_path, known: &known };
                    for b in &mut prim_bounds {
                        if let syn::WherePredicate::Type(pt) = b {
                            for tb in &mut pt.bounds {
                                if let syn::TypeParamBound::Trait(t) = tb {
                                    through.rewrite(&mut t.path, true);
                                }
                            }
                        }
                    }
                    let mut through = through;
                    through.visit_item_fn_mut(&mut item);
                }
            }
            // A generic trait's arguments in the bounds (`Scale<T>`) are the instance's.
            let mut where_clause: Option<syn::WhereClause> = (!prim_bounds.is_empty()).then(|| syn::parse_quote!(where #(#prim_bounds),*));
            if let Some(w) = &mut where_clause {
                Subst::new(map.clone(), consts.clone()).visit_where_clause_mut(w);
                if let Some(own) = own {
                    own.subst.clone().visit_where_clause_mut(w);
                }
            }
            Subst::new(map, consts).visit_item_fn_mut(&mut item);
            if let Some(own) = own {
                own.subst.clone().visit_item_fn_mut(&mut item);
            }
            item.sig.generics = syn::Generics::default();
            item.sig.generics.where_clause = where_clause;
            crate::expand::method::SelfToType(&concrete).visit_item_fn_mut(&mut item);
            let inner = crate::syntax::rewrite::for_inner_module(&concrete);
            let (class, name) = (&base, &g.name);
            let konst = matches!(g.recv, Recv::Value | Recv::Ref);
            let mut margs = trait_margs;
            margs.extend(own.map(|o| o.targs.clone()).unwrap_or_default());
            // An operator: its Itanium code, and its parameter types (the class instance
            // itself named as a struct of its module with the class's name).
            let (operator, name, params) = match &g.op {
                Some(code) => {
                    let this = quote!(::ptx_runtime::__private::TemplateArg::Struct { path: <#inner as ::ptx_runtime::DeviceRepr>::MODULE_PATH, name: #class });
                    let mut ps = Vec::new();
                    // One operand at most: `index_mut`'s setter takes the stored value too,
                    // which C++'s `operator[]` does not.
                    for a in item.sig.inputs.iter().filter(|a| matches!(a, syn::FnArg::Typed(_))).take(1) {
                        let syn::FnArg::Typed(pt) = a else { continue };
                        let t = self.resolve_type(&pt.ty, Position::Signature);
                        match self.describe(&t, span) {
                            Ty::Struct(d) if crate::link::key(&d.path) == crate::link::key(&def.path) => ps.push(this.clone()),
                            Ty::Error => return None,
                            t => match self.type_arg(&t) {
                                Some((_, targ)) => ps.push(targ),
                                None => {
                                    let shown = self.infer.resolve(&t);
                                    self.errors.at(span, format!("`{shown}` cannot be an operand of a generic type's operator yet: use a primitive or a non-generic `DeviceRepr` struct"));
                                    return None;
                                }
                            },
                        }
                    }
                    if ps.is_empty() {
                        ps.push(quote!(::ptx_runtime::__private::TemplateArg::Builtin("v")));
                    }
                    (true, code.clone(), ps)
                }
                None => (false, name.clone(), Vec::new()),
            };
            let symbol = quote!(::ptx_runtime::__private::Piece::MemberTemplate {
                path: <#inner as ::ptx_runtime::DeviceRepr>::MODULE_PATH, class: #class, args: &[#(#targs),*], name: #name, margs: &[#(#margs),*], konst: #konst, operator: #operator, params: &[#(#params),*],
            });
            self.instances.push(Instance { key: key.clone(), module: module.clone(), item, symbol, self_ty: Some(concrete) });
        }
        let inst = self.instances.iter().find(|i| i.key == key)?;
        let params = inst
            .item
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => Some(pt.ty.to_token_stream()),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let ret = match &inst.item.sig.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, t) => Some(t.to_token_stream()),
        };
        Some(MethodInfo { name: g.name.clone(), recv: g.recv, params, ret, instance: Some(quote!(#module)), inlinable: false, fetched: None })
    }
}

/// A concrete type as tokens nameable where the body is.
fn concrete_tokens(t: &Ty) -> Option<TokenStream> {
    match t {
        Ty::Scalar(s) => {
            let name = format_ident!("{}", super::ty::scalar_name(*s));
            Some(quote!(#name))
        }
        Ty::Struct(def) => Some(def.path.clone()),
        _ => None,
    }
}
