//! Data-carrying `DeviceRepr` enums (`#[repr(C, u32)] enum Shape { Circle { r: f32 }, Rect(f32,
//! f32), Empty }`, see `expand::derive_enum_data`).
//!
//! The body compiler sees such an enum as a struct of kind [`StructKind::Enum`]: field 0 is the
//! tag (the variant's index, in the `repr` integer), field `1 + k` a struct of variant `k`'s
//! fields, each at its offset in the enum (RFC 2195's layout, `ptx_abi::tagged`). In registers a
//! value is the tag and every variant's fields; those of the variants not held are zeros when the
//! value is built (`Shape::Rect(w, h)`) and whatever the bytes say when it is read from memory,
//! so they are read only under a test of the tag:
//!
//! - a pattern (`Shape::Circle { r }`, `Shape::Rect(w, _)`, `Shape::Empty`) tests the tag and
//!   binds the variant's fields (see `destructure`); a `match` on an enum tests its last arm too,
//!   so a tag no variant has (bytes written by other code) reaches the `unreachable` trap;
//! - `==` (derived `PartialEq`) compares the tags, then the fields of the variant held;
//! - a store writes the tag and, under a predicate on it, each variant's fields
//!   (`lower::place`), so the bytes of the variant held are never overwritten by another's.
//!
//! Loads read every variant's fields: all lie inside the enum's bytes, at their alignment.

use crate::syntax::first_token::FirstToken;
use super::destructure::{Matched, Part};
use super::enums::Variant;
use super::hir::{BinOp, ExprKind};
use super::ty::{Field, StructDef, StructKind, Ty};
use super::{Checker, Expr};
use crate::link::info::{EnumData, EnumInfo};
use proc_macro2::{Span, TokenStream};
use ptx_abi::tagged::{tagged_field_offset, tagged_layout};
use ptx_abi::Layout;
use quote::quote;
use std::rc::Rc;
use syn::spanned::Spanned;

/// The enum's description, if `ty` is a data-carrying enum.
pub fn enum_def(ty: &Ty) -> Option<&Rc<StructDef>> {
    match ty {
        Ty::Struct(d) if d.kind == StructKind::Enum => Some(d),
        _ => None,
    }
}

/// The struct of variant `k`'s fields.
fn variant_def(def: &StructDef, k: usize) -> Rc<StructDef> {
    match &def.fields[1 + k].ty {
        Ty::Struct(v) => v.clone(),
        _ => unreachable!("a variant of an enum is a struct"),
    }
}

fn variant_index(def: &StructDef, name: &str) -> Option<usize> {
    def.fields[1..].iter().position(|f| f.name == name)
}

impl<'a> Checker<'a> {
    /// The type of a data-carrying enum described by `info` (its replay).
    pub fn data_enum_type(&mut self, path: &TokenStream, info: &EnumInfo, data: &EnumData) -> Ty {
        let key = crate::link::key(path);
        if let Some(def) = self.structs.get(&key) {
            return Ty::Struct(def.clone());
        }
        let tag = Layout::scalar(info.repr);
        let mut tys: Vec<Vec<(String, Ty)>> = Vec::new();
        let mut layouts: Vec<Vec<Layout>> = Vec::new();
        let mut complete = true;
        for (vname, (_, fields)) in info.variants.iter().map(|(n, _)| n).zip(&data.variants) {
            let (mut ts, mut ls) = (Vec::new(), Vec::new());
            for (name, tokens) in fields {
                let ty = self.resolve_tokens(tokens);
                match ty.layout() {
                    Some(l) => {
                        ls.push(l);
                        ts.push((name.clone(), ty));
                    }
                    None => {
                        if !matches!(ty, Ty::Error) {
                            self.errors.at(Span::call_site(), format!("field `{name}` of `{}::{vname}` has type `{ty}`, which has no device layout", info.name));
                        }
                        complete = false;
                    }
                }
            }
            tys.push(ts);
            layouts.push(ls);
        }
        if !complete {
            return Ty::Error;
        }
        let slices: Vec<&[Layout]> = layouts.iter().map(|v| v.as_slice()).collect();
        let layout = tagged_layout(tag, data.style, &slices);
        let mut fields = vec![Field { name: " tag".into(), ty: Ty::Scalar(info.repr), offset: 0 }];
        for (k, ((vname, _), (kind, _))) in info.variants.iter().zip(&data.variants).enumerate() {
            let vfields = tys[k]
                .iter()
                .enumerate()
                .map(|(i, (name, ty))| Field { name: name.clone(), ty: ty.clone(), offset: tagged_field_offset(tag, data.style, &slices, k, i) as u64 })
                .collect();
            let vdef = StructDef { name: format!("{}::{vname}", info.name), path: path.clone(), kind: *kind, fields: vfields, layout, generic: None, tags: Vec::new() };
            fields.push(Field { name: vname.clone(), ty: Ty::Struct(Rc::new(vdef)), offset: 0 });
        }
        let def = Rc::new(StructDef { name: info.name.clone(), path: path.clone(), kind: StructKind::Enum, fields, layout, generic: None, tags: info.variants.iter().map(|(_, x)| *x).collect() });
        // Our layout must be rustc's (the derive asserts rustc's equals RFC 2195's).
        if let Ok(t) = syn::parse2::<syn::Type>(path.clone()) {
            let t = crate::syntax::rewrite::for_inner_module(&t);
            let (size, align) = (layout.size, layout.align);
            self.checks.push(quote! {
                const _: () = ::ptx_runtime::__private::assert_layout(
                    <#t as ::ptx_runtime::DeviceRepr>::LAYOUT, #size, #align,
                );
            });
        }
        self.structs.insert(key, def.clone());
        Ty::Struct(def)
    }

    /// The value of variant `k` holding `fields` (index in the variant, value).
    fn data_variant_value(&mut self, def: &Rc<StructDef>, k: usize, fields: Vec<(usize, Expr)>, span: Span) -> Expr {
        let tag_ty = def.fields[0].ty.clone();
        let mut parts = vec![Expr { kind: ExprKind::Int(def.tag(k) as u128), ty: tag_ty, span }];
        let mut fields = Some(fields);
        for j in 0..def.fields.len() - 1 {
            let vdef = variant_def(def, j);
            let kind = if j == k { ExprKind::Struct { def: vdef.clone(), fields: fields.take().unwrap_or_default(), base: None } } else { ExprKind::Zero };
            parts.push(Expr { kind, ty: Ty::Struct(vdef), span });
        }
        Expr { kind: ExprKind::Tuple(parts), ty: Ty::Struct(def.clone()), span }
    }

    /// A variant without fields as a value (`Shape::Empty`).
    pub fn data_variant_path(&mut self, def: &Rc<StructDef>, k: usize, span: Span) -> Expr {
        if !variant_def(def, k).fields.is_empty() {
            return self.error(span, format!("`{}` has fields: write them (`{}(..)` or `{} {{ .. }}`)", def.fields[1 + k].name, def.fields[1 + k].name, def.fields[1 + k].name));
        }
        self.data_variant_value(def, k, Vec::new(), span)
    }

    /// `Shape::Rect(w, h)`: `None` if `path` names no variant of a data-carrying enum.
    pub fn data_variant_call(&mut self, path: &syn::Path, args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>, span: Span) -> Option<Expr> {
        let (def, k) = match self.enum_variant(path)? {
            Variant::Data(def, k) => (def, k),
            Variant::Pending => {
                args.iter().for_each(|a| {
                    self.expr(a);
                });
                return Some(self.error_expr(span));
            }
            Variant::Value(..) => return None,
        };
        let vdef = variant_def(&def, k);
        if args.len() != vdef.fields.len() {
            args.iter().for_each(|a| {
                self.expr(a);
            });
            return Some(self.error(span, format!("`{}` has {} fields but {} were given", vdef.name, vdef.fields.len(), args.len())));
        }
        let mut fields = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let x = self.expr(a);
            self.expect(x.span, &vdef.fields[i].ty, &x.ty);
            fields.push((i, x));
        }
        Some(self.data_variant_value(&def, k, fields, span))
    }

    /// `Shape::Circle { r }`: `None` if the path names no variant of a data-carrying enum.
    pub fn data_variant_lit(&mut self, s: &syn::ExprStruct) -> Option<Expr> {
        let span = s.first_span();
        let (def, k) = match self.enum_variant(&s.path)? {
            Variant::Data(def, k) => (def, k),
            Variant::Pending => {
                s.fields.iter().for_each(|f| {
                    self.expr(&f.expr);
                });
                return Some(self.error_expr(span));
            }
            Variant::Value(..) => return None,
        };
        let vdef = variant_def(&def, k);
        if let Some(rest) = &s.rest {
            self.errors.error(rest, "`..base` does not apply to an enum variant; write every field");
        }
        let mut fields = Vec::new();
        for f in &s.fields {
            let name = match &f.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let x = self.expr(&f.expr);
            match vdef.field(&name) {
                Some(i) => {
                    self.expect(x.span, &vdef.fields[i].ty, &x.ty);
                    fields.push((i, x));
                }
                None => self.errors.at(f.member.span(), format!("`{}` has no field `{name}`", vdef.name)),
            }
        }
        Some(self.data_variant_value(&def, k, fields, span))
    }

    /// A variant pattern on a part holding a data-carrying enum: its tag is the variant's, and
    /// its fields match the sub-patterns.
    pub fn data_variant_pattern(&mut self, pat: &syn::Pat, def: &Rc<StructDef>, part: &Part, got: &mut Matched) {
        let path = match pat {
            syn::Pat::TupleStruct(p) => &p.path,
            syn::Pat::Struct(p) => &p.path,
            syn::Pat::Path(p) => &p.path,
            _ => return,
        };
        let name = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let Some(k) = variant_index(def, &name) else {
            // rustc reports it too, but the body must not compile past it: the names the
            // pattern would bind have no value.
            self.errors.at(path.span(), format!("`{}` has no variant `{name}`", def.name));
            self.declare_pattern_names(pat);
            return;
        };
        let span = pat.span();
        let tag_ty = def.fields[0].ty.clone();
        let tag = part.member(0, tag_ty.clone()).expr(span);
        let want = Expr { kind: ExprKind::Int(def.tag(k) as u128), ty: tag_ty, span };
        got.tests.push(Expr { kind: ExprKind::Binary(BinOp::Eq, Box::new(tag), Box::new(want)), ty: Ty::bool(), span });
        let vdef = variant_def(def, k);
        let vpart = part.member(1 + k, Ty::Struct(vdef.clone()));
        match pat {
            syn::Pat::TupleStruct(ps) => {
                let ts: Vec<Ty> = vdef.fields.iter().map(|f| f.ty.clone()).collect();
                let elems: Vec<&syn::Pat> = ps.elems.iter().collect();
                self.members(pat, &elems, &ts, &vpart, got);
            }
            syn::Pat::Struct(ps) => {
                for f in &ps.fields {
                    let fname = match &f.member {
                        syn::Member::Named(i) => i.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    match vdef.field(&fname) {
                        Some(i) => {
                            let sub = vpart.member(i, vdef.fields[i].ty.clone());
                            self.pattern(&f.pat, &sub, got);
                        }
                        None => self.errors.error(&f.member, format!("`{}` has no field `{fname}`", vdef.name)),
                    }
                }
            }
            _ => {}
        }
    }

    /// `l == r` on data-carrying enums (derived `PartialEq`): the same tag, and the fields of the
    /// variant held equal. `None` if `l` is no such enum.
    pub fn enum_equal(&mut self, l: &Expr, r: &Expr, span: Span) -> Option<Expr> {
        let ty = self.describe(&l.ty, span);
        let def = enum_def(&ty)?.clone();
        let tag_ty = def.fields[0].ty.clone();
        let field = |e: &Expr, i: usize, ty: Ty| Expr { kind: ExprKind::Field(Box::new(super::compare::clone_place(e)), i), ty, span };
        let lt = field(l, 0, tag_ty.clone());
        let rt = field(r, 0, tag_ty.clone());
        let mut acc = Expr { kind: ExprKind::Binary(BinOp::Eq, Box::new(lt), Box::new(rt)), ty: Ty::bool(), span };
        for k in 0..def.fields.len() - 1 {
            let vdef = variant_def(&def, k);
            if vdef.fields.is_empty() {
                continue;
            }
            let vty = Ty::Struct(vdef);
            let eq = self.all_equal(&field(l, 1 + k, vty.clone()), &field(r, 1 + k, vty), span);
            // Another variant, or this one with equal fields.
            let other = Expr {
                kind: ExprKind::Binary(BinOp::Ne, Box::new(field(l, 0, tag_ty.clone())), Box::new(Expr { kind: ExprKind::Int(def.tag(k) as u128), ty: tag_ty.clone(), span })),
                ty: Ty::bool(),
                span,
            };
            let held = Expr { kind: ExprKind::Logic { and: false, lhs: Box::new(other), rhs: Box::new(eq) }, ty: Ty::bool(), span };
            acc = Expr { kind: ExprKind::Logic { and: true, lhs: Box::new(acc), rhs: Box::new(held) }, ty: Ty::bool(), span };
        }
        Some(acc)
    }
}
