//! Type syntax to [`Ty`], and `#[derive(DeviceRepr)]` types to [`StructDef`]s.
//!
//! Primitives, pointers, references, slices and arrays are read from the syntax. Native vectors
//! (`f32x4`), handles (`Texture`) and shared-memory handles are recognised by name, and a
//! compile-time check in the generated module makes sure the name means `ptx_runtime`'s type.
//! Any other named type is a `DeviceRepr` type described by its replay: until it is fetched it
//! is [`Ty::Named`], and [`Checker::describe`] fetches it where its fields matter.
//!
//! Types inside pointers stay `Named` until a value of them is read (`describe`), so a struct
//! can point to itself.

use super::ty::{Field, Len, NamedRef, StructDef, StructKind, Ty};
use super::{unsupported, Checker, Position};
use crate::link::info::{Info, StructInfo};
use proc_macro2::{Span, TokenStream};
use ptx_abi::layout::StructLayout;
use ptx_abi::{Layout, Scalar};
use quote::{quote, ToTokens};
use std::rc::Rc;
use syn::spanned::Spanned;

/// `ptx_runtime::vector` types: name, lane type, lanes.
pub const VECTORS: [(&str, Scalar, u8); 27] = [
    ("i8x2", Scalar::I8, 2),
    ("i8x3", Scalar::I8, 3),
    ("i8x4", Scalar::I8, 4),
    ("u8x2", Scalar::U8, 2),
    ("u8x3", Scalar::U8, 3),
    ("u8x4", Scalar::U8, 4),
    ("i16x2", Scalar::I16, 2),
    ("i16x3", Scalar::I16, 3),
    ("i16x4", Scalar::I16, 4),
    ("u16x2", Scalar::U16, 2),
    ("u16x3", Scalar::U16, 3),
    ("u16x4", Scalar::U16, 4),
    ("i32x2", Scalar::I32, 2),
    ("i32x3", Scalar::I32, 3),
    ("i32x4", Scalar::I32, 4),
    ("u32x2", Scalar::U32, 2),
    ("u32x3", Scalar::U32, 3),
    ("u32x4", Scalar::U32, 4),
    ("f32x2", Scalar::F32, 2),
    ("f32x3", Scalar::F32, 3),
    ("f32x4", Scalar::F32, 4),
    ("f16x2", Scalar::F16, 2),
    ("f16x4", Scalar::F16, 4),
    ("bf16x2", Scalar::BF16, 2),
    ("bf16x4", Scalar::BF16, 4),
    ("i64x2", Scalar::I64, 2),
    ("u64x2", Scalar::U64, 2),
];

/// The vector types also include `f64x2`.
pub fn vector_by_name(name: &str) -> Option<(Scalar, u8)> {
    if name == "f64x2" {
        return Some((Scalar::F64, 2));
    }
    VECTORS.iter().find(|(n, _, _)| *n == name).map(|(_, s, l)| (*s, *l))
}

pub const HANDLES: [&str; 3] = ["Texture", "Sampler", "Surface"];

impl<'a> Checker<'a> {
    pub fn resolve_type(&mut self, ty: &syn::Type, pos: Position) -> Ty {
        self.resolve(ty, pos, false)
    }

    /// A type from another item's replay (a field, a callee's parameter).
    pub fn resolve_tokens(&mut self, tokens: &TokenStream) -> Ty {
        match syn::parse2::<syn::Type>(tokens.clone()) {
            Ok(t) => {
                let ty = self.resolve(&t, Position::Signature, false);
                self.describe(&ty, t.span())
            }
            Err(_) => Ty::Error,
        }
    }

    /// `in_pointer`: the type is behind a pointer, so a named type stays lazy.
    fn resolve(&mut self, ty: &syn::Type, pos: Position, in_pointer: bool) -> Ty {
        if let Some(message) = crate::syntax::rejected::rejected(ty) {
            self.errors.error(ty, message);
            return Ty::Error;
        }
        match ty {
            syn::Type::Paren(p) => self.resolve(&p.elem, pos, in_pointer),
            syn::Type::Group(g) => self.resolve(&g.elem, pos, in_pointer),
            syn::Type::Path(p) => self.resolve_path_type(p, pos, in_pointer),
            syn::Type::Ptr(p) => {
                let pointee = self.resolve(&p.elem, pos, true);
                Ty::Ptr { mutable: p.mutability.is_some(), reference: false, pointee: Rc::new(pointee) }
            }
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => {
                    let elem = self.resolve(&s.elem, pos, true);
                    Ty::Slice { mutable: r.mutability.is_some(), elem: Rc::new(elem) }
                }
                elem => {
                    let pointee = self.resolve(elem, pos, true);
                    Ty::Ptr { mutable: r.mutability.is_some(), reference: true, pointee: Rc::new(pointee) }
                }
            },
            syn::Type::Array(a) => {
                let elem = self.resolve(&a.elem, pos, in_pointer);
                let len = self.array_len(&a.len);
                Ty::Array { elem: Rc::new(elem), len }
            }
            syn::Type::Tuple(t) if t.elems.is_empty() => Ty::Unit,
            // In a body, and in a device function's signature (`syntax::signature` keeps them out
            // of kernels' and lets only device data be their members).
            syn::Type::Tuple(t) if !in_pointer => Ty::Tuple(t.elems.iter().map(|e| self.resolve(e, pos, false)).collect()),
            syn::Type::Tuple(_) => {
                self.errors.error(ty, crate::syntax::rejected::TUPLE);
                Ty::Error
            }
            syn::Type::Never(_) => Ty::Never,
            syn::Type::Infer(_) => self.var(super::infer::VarKind::General),
            _ => {
                self.errors.error(ty, crate::syntax::rejected::OTHER);
                Ty::Error
            }
        }
    }

    fn resolve_path_type(&mut self, p: &syn::TypePath, pos: Position, in_pointer: bool) -> Ty {
        if let Some(t) = self.assoc_type_path(p) {
            return t;
        }
        if p.qself.is_some() {
            self.errors.error(p, "qualified paths (`<T as Trait>::X`) are not supported in device code; name the type directly");
            return Ty::Error;
        }
        let Some(last) = p.path.segments.last() else { return Ty::Error };
        let name = last.ident.to_string();
        if let Some(t) = self.sum_type(&name, last, pos, in_pointer) {
            return t;
        }
        if let Some(t) = self.fragment_type(p) {
            return t;
        }
        if let Some(t) = self.texture_type(&name, last) {
            if !matches!(t, Ty::Error) {
                self.check_same_type(p, quote!(::ptx_runtime::texture::#last));
            }
            return t;
        }
        let plain = matches!(last.arguments, syn::PathArguments::None);
        if plain {
            if let Some(s) = Scalar::from_rust_name(&name) {
                return Ty::Scalar(s);
            }
            if let Some((elem, lanes)) = vector_by_name(&name) {
                self.check_same_type(p, quote!(::ptx_runtime::vector::#last));
                return Ty::Vector { elem, lanes };
            }
            if HANDLES.contains(&name.as_str()) {
                self.check_same_type(p, quote!(::ptx_runtime::handle::#last));
                return Ty::Handle(super::texture::HandleKind::Untyped);
            }
            if name == "Option" || name == "Result" {
                self.errors.error(p, unsupported::SUM_WITHOUT_ARGS);
                return Ty::Error;
            }
            if name == "Self" {
                self.errors.error(p, "`Self` has no meaning in a free function; name the type");
                return Ty::Error;
            }
        }
        if name == "SharedArray" || name == "SharedSlice" {
            return self.shared_type(p, &name, last);
        }
        if !plain {
            return self.generic_named(p, pos, in_pointer);
        }
        let path = p.path.to_token_stream();
        let named = Ty::Named(Rc::new(NamedRef { key: crate::link::key(&path), path }));
        if in_pointer || pos == Position::Signature && self.env.get(&p.path.to_token_stream()).is_none() {
            return named;
        }
        self.describe(&named, p.span())
    }

    fn shared_type(&mut self, p: &syn::TypePath, name: &str, last: &syn::PathSegment) -> Ty {
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            self.errors.error(p, format!("write `{name}<T{}>`", if name == "SharedArray" { ", N" } else { "" }));
            return Ty::Error;
        };
        let mut elem = None;
        let mut len = None;
        for a in &args.args {
            match a {
                syn::GenericArgument::Type(syn::Type::Path(tp)) if elem.is_some() && name == "SharedArray" => {
                    // `N` written as a bare const name parses as a type.
                    len = Some(Len::Const(tp.to_token_stream()));
                }
                syn::GenericArgument::Type(t) if elem.is_none() => elem = Some(self.resolve(t, Position::Body, false)),
                syn::GenericArgument::Const(e) => len = Some(self.array_len(e)),
                _ => {}
            }
        }
        match (elem, name) {
            (Some(e), "SharedSlice") => Ty::Shared { elem: Rc::new(e), len: None },
            (Some(e), _) if len.is_some() => Ty::Shared { elem: Rc::new(e), len },
            _ => {
                self.errors.error(p, format!("write `{name}<T{}>`", if name == "SharedArray" { ", N" } else { "" }));
                Ty::Error
            }
        }
    }

    /// An array length: a literal, or a constant expression rustc evaluates.
    pub fn array_len(&mut self, e: &syn::Expr) -> Len {
        match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => match i.base10_parse::<u64>() {
                Ok(n) => Len::Known(n),
                Err(_) => Len::Const(e.to_token_stream()),
            },
            syn::Expr::Path(p) if p.path.segments.len() == 1 && self.local_consts.contains_key(&p.path.segments[0].ident.to_string()) => {
                Len::Known(self.local_consts[&p.path.segments[0].ident.to_string()])
            }
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.array_len(inner),
                _ => Len::Const(e.to_token_stream()),
            },
            _ => match self.source_len(e) {
                Some(n) => Len::Known(n),
                None => Len::Const(e.to_token_stream()),
            },
        }
    }

    /// `written` must be the same type as `canonical` (a recognised name could be shadowed).
    pub(super) fn check_same_type(&mut self, written: &syn::TypePath, canonical: TokenStream) {
        let w = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(written.clone()));
        self.checks.push(quote! {
            const _: fn(#w) -> #canonical = |x| x;
        });
    }

    /// The type with a named type replaced by its description (fetching it when not known
    /// yet: the result is then `Error`, and the body is checked again after the fetch).
    pub fn describe(&mut self, ty: &Ty, span: Span) -> Ty {
        let t = self.shallow(ty);
        if let Ty::Tuple(ts) = &t {
            return Ty::Tuple(ts.iter().map(|e| self.describe(e, span)).collect());
        }
        if let Ty::Sum { kind, args } = &t {
            return Ty::Sum { kind: *kind, args: args.iter().map(|e| self.describe(e, span)).collect() };
        }
        let Ty::Named(n) = &t else { return t };
        if let Some(def) = self.structs.get(&n.key) {
            return Ty::Struct(def.clone());
        }
        match self.env.get(&n.path).cloned() {
            Some(Info::Struct(info)) => match self.build_struct(&n.path, &info, span, None) {
                Some(def) => {
                    self.structs.insert(n.key.clone(), def.clone());
                    Ty::Struct(def)
                }
                None => Ty::Error,
            },
            Some(Info::Enum(info)) => self.enum_type(&n.path, &info),
            Some(Info::Refused(msg)) => {
                self.errors.at(span, msg);
                Ty::Error
            }
            Some(Info::Generic(g)) => {
                let name = &g.def.name;
                self.errors.at(span, format!("`{name}` is generic: write its arguments (`{name}<f32>`)"));
                Ty::Error
            }
            Some(Info::Trait(name) | Info::GenericTrait(crate::link::info::GenericFnInfo { name, .. })) => {
                self.errors.at(span, format!("`{name}` is a trait: call its methods on a value (`v.method(..)`), through the trait (`{name}::method(v, ..)`) or through the implementing type (`Circle::method(v, ..)`)"));
                Ty::Error
            }
            Some(_) => {
                self.errors.at(span, format!("`{}` is not a type", n.path));
                Ty::Error
            }
            None => {
                if let Some(t) = self.describe_generic(n, span) {
                    return t;
                }
                if !self.plain_type(&n.path, span) {
                    self.needs.need(&n.path);
                }
                Ty::Error
            }
        }
    }

    pub(super) fn build_struct(&mut self, path: &TokenStream, info: &StructInfo, span: Span, generic: Option<Rc<super::ty::GenericArgs>>) -> Option<Rc<StructDef>> {
        let mut fields = Vec::new();
        let mut layout = StructLayout::new(info.align);
        let mut union = Layout::new(0, if info.align == 0 { 1 } else { info.align });
        let mut complete = true;
        for (name, tokens) in &info.fields {
            let ty = self.resolve_tokens(tokens);
            let Some(l) = ty.layout() else {
                if ty.exceeds_max_size() {
                    self.errors.at(span, format!("field `{name}` of `{}` has type `{ty}`, larger than `isize::MAX` bytes, the most a Rust type may be; make it smaller", info.name));
                } else if !matches!(ty, Ty::Error) {
                    self.errors.at(span, format!("field `{name}` of `{}` has type `{ty}`, which has no device layout", info.name));
                }
                complete = false;
                continue;
            };
            let offset = if info.kind == StructKind::Union {
                union.size = union.size.max(l.size);
                union.align = union.align.max(l.align);
                0
            } else {
                let Some(next) = layout.checked_field(l) else {
                    self.errors.at(span, format!("`{}` is larger than `isize::MAX` bytes, the most a Rust type may be; make field `{name}` smaller", info.name));
                    return None;
                };
                layout = next;
                layout.last_offset as u64
            };
            fields.push(Field { name: name.clone(), ty, offset });
        }
        if !complete {
            return None;
        }
        let layout = if info.kind == StructKind::Union {
            Layout::new(ptx_abi::layout::align_to(union.size, union.align), union.align)
        } else {
            layout.finish()
        };
        // Our layout must be rustc's (the derive asserts rustc's equals the ABI rules).
        let size = layout.size;
        let align = layout.align;
        if let Ok(t) = syn::parse2::<syn::Type>(path.clone()) {
            let t = crate::syntax::rewrite::for_inner_module(&t);
            self.checks.push(quote! {
                const _: () = ::ptx_runtime::__private::assert_layout(
                    <#t as ::ptx_runtime::DeviceRepr>::LAYOUT, #size, #align,
                );
            });
        }
        Some(Rc::new(StructDef { name: info.name.clone(), path: path.clone(), kind: info.kind, fields, layout, generic, tags: Vec::new() }))
    }
}
