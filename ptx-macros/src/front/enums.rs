//! C-like `DeviceRepr` enums (`#[repr(u32)] enum Op { Add, Mul }`, see `expand::derive_enum`).
//!
//! The body compiler types a value of such an enum as the enum ([`StructKind::CLike`]: a
//! struct whose one field is the discriminant in the `repr` integer), so its methods, `From`
//! impls and variants are found through its type, as a struct's are; the lowering sees the
//! integer ([`Ty::lowered`]), so parameters, buffers, struct fields, `==` (derived
//! `PartialEq`), `<` (derived `PartialOrd`) and `as` casts are the integer's. A variant path
//! (`Op::Add`) is the variant's value, in an expression or as a `match` pattern, and so is a
//! bare variant name as a pattern on a value of the enum (`Add =>`: Rust reads it as the
//! variant, `bindings_with_variant_name` being an error, wherever a `use` brings it in); the
//! enum's replay says the values. A `match` with no `_` arm ends in a trap, so a discriminant
//! no variant has (bytes written by other code) stops the kernel instead of taking an arm.

use crate::syntax::first_token::FirstToken;
use super::hir::{Expr, ExprKind, Pat};
use super::ty::{Field, StructDef, StructKind, Ty};
use super::Checker;
use crate::link::info::{EnumInfo, Info};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;

/// Enums of `core` and of the device API that are no `DeviceRepr` (atomics' memory orders and
/// scopes are read by the atomics themselves); `Self` has no replay of its own.
const NOT_DEVICE_ENUMS: [&str; 4] = ["Ordering", "Scope", "FpCategory", "Self"];

/// Whether a single name in a pattern is a constant rather than a binding: Rust decides by
/// what the name resolves to, which the macro cannot see, so it goes by the naming convention
/// (constants are `SCREAMING_CASE`; rustc warns about a binding named so).
pub fn names_a_constant(pi: &syn::PatIdent) -> bool {
    let name = pi.ident.to_string();
    pi.by_ref.is_none()
        && pi.mutability.is_none()
        && pi.subpat.is_none()
        && name.chars().any(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// What a path of the form `Type::Variant` turned out to be.
pub enum Variant {
    /// The variant's value and the enum's type.
    Value(i128, Ty),
    /// The enum's description is being fetched (or an error was reported): check again later.
    Pending,
    /// Variant `k` of a data-carrying enum (see `enum_data`).
    Data(std::rc::Rc<super::ty::StructDef>, usize),
}

impl<'a> Checker<'a> {
    /// `Op::Add`: the value of a variant of a `DeviceRepr` enum, or `None` if the path does not
    /// look like one (`Type::CONST`, `module::N`: outside constants, see `call`).
    pub fn enum_variant(&mut self, path: &syn::Path) -> Option<Variant> {
        let n = path.segments.len();
        if n < 2 {
            return None;
        }
        let variant = path.segments[n - 1].ident.to_string();
        let owner = path.segments[n - 2].ident.to_string();
        // Variants are `CamelCase` and constants `SCREAMING_CASE` (rustc warns otherwise).
        let camel = |s: &str| s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_ascii_lowercase());
        if !camel(&variant) || !owner.starts_with(|c: char| c.is_ascii_uppercase()) || NOT_DEVICE_ENUMS.contains(&owner.as_str()) {
            return None;
        }
        let mut owner_path = path.clone();
        owner_path.segments.pop();
        let owner_path = super::call::strip_generics(&syn::Path {
            leading_colon: owner_path.leading_colon,
            segments: owner_path.segments.into_pairs().map(|p| p.into_value()).collect(),
        });
        let info = match self.enum_info(&owner_path)? {
            Some(info) => info,
            None => return Some(Variant::Pending),
        };
        if info.data.is_some() {
            let k = info.variants.iter().position(|(v, _)| *v == variant);
            return Some(match (self.enum_type(&owner_path, &info), k) {
                (Ty::Struct(def), Some(k)) => Variant::Data(def, k),
                _ => Variant::Pending,
            });
        }
        let ty = self.enum_type(&owner_path, &info);
        match info.variants.iter().find(|(v, _)| *v == variant) {
            Some((_, x)) => Some(Variant::Value(*x, ty)),
            // rustc reports the unknown variant; an error type keeps the device compiler quiet.
            None => Some(Variant::Pending),
        }
    }

    /// The enum described at `path`: `Some(None)` while it is fetched, `None` if `path` names
    /// something else.
    fn enum_info(&mut self, path: &TokenStream) -> Option<Option<EnumInfo>> {
        match self.env.get(path) {
            Some(Info::Enum(e)) => Some(Some(e.clone())),
            Some(_) => None,
            None => {
                self.needs.need(path);
                Some(None)
            }
        }
    }

    /// `e` with its type described if it is a named type that is an enum (its integer); any
    /// other value unchanged. Where a value is used as an integer (`as`, `==`, `match`), a
    /// parameter or element of a type not described yet must be described first.
    pub fn enum_value(&mut self, e: Expr) -> Expr {
        let Ty::Named(n) = self.shallow(&e.ty) else { return e };
        let ty = match self.enum_info(&n.path) {
            None => return e,
            Some(None) => Ty::Error,
            Some(Some(info)) => self.enum_type(&n.path, &info),
        };
        if let (ExprKind::Local(id), Ty::Scalar(_) | Ty::Struct(_)) = (&e.kind, &ty) {
            self.set_local_type(*id, ty.clone());
        }
        Expr { ty, ..e }
    }

    /// The function's return type once the body is checked: an enum is returned as its
    /// integer. (Its description is not fetched for that alone: a parameter of a struct type
    /// returned whole must stay undescribed. A body returning a variant has fetched it.)
    pub fn enum_return(&mut self, ret: Ty) -> Ty {
        let Ty::Named(n) = &ret else { return ret };
        match self.env.get(&n.path) {
            Some(Info::Enum(info)) => {
                let info = info.clone();
                self.enum_type(&n.path, &info)
            }
            _ => ret,
        }
    }

    /// A variant path as a value.
    pub fn variant_expr(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        let span = p.first_span();
        Some(match self.enum_variant(&p.path)? {
            Variant::Value(x, ty) => Expr { kind: ExprKind::Int(x as u128), ty, span },
            Variant::Data(def, k) => self.data_variant_path(&def, k, span),
            Variant::Pending => self.error_expr(span),
        })
    }

    /// A variant path as a `match` pattern on a value of type `ty`.
    pub fn variant_pattern(&mut self, p: &syn::Path, ty: &Ty) -> Option<Vec<Pat>> {
        Some(match self.enum_variant(p)? {
            Variant::Value(x, vty) => {
                self.expect(p.span(), ty, &vty);
                vec![Pat::Int(x)]
            }
            // A data-carrying enum is matched by `destructure`; this is a type mismatch rustc
            // reports.
            Variant::Data(..) | Variant::Pending => vec![],
        })
    }

    /// A constant defined outside the body as a `match` pattern (`BINS`, `m::LIMIT`): compared
    /// with the value rustc gives it in the scrutinee's type. A single lower-case name would
    /// be a binding in Rust, so it never gets here.
    pub fn const_pattern(&mut self, p: &syn::PatPath) -> Vec<Pat> {
        if p.qself.is_some() {
            self.errors.error(p, "qualified paths are not supported as `match` patterns in device code; name the constant");
            return vec![];
        }
        let path = crate::syntax::rewrite::for_inner_module(&syn::Type::Path(syn::TypePath { qself: None, path: p.path.clone() }));
        vec![Pat::Const(path.to_token_stream())]
    }

    /// The type of a described enum: a C-like enum's [`StructKind::CLike`] description, with a
    /// check that rustc's layout of it is its integer's (the derive asserts it; a type of the
    /// same name that is no such enum fails here).
    pub fn enum_type(&mut self, path: &TokenStream, info: &EnumInfo) -> Ty {
        if let Some(data) = &info.data {
            return self.data_enum_type(path, info, data);
        }
        let key = crate::link::key(path);
        if let Some(def) = self.structs.get(&key) {
            return Ty::Struct(def.clone());
        }
        if let Ok(t) = syn::parse2::<syn::Type>(path.clone()) {
            let t = crate::syntax::rewrite::for_inner_module(&t);
            self.enums.insert(key.clone(), info.repr);
            let (size, align) = (info.repr.size(), info.repr.align());
            self.checks.push(quote::quote! {
                const _: () = ::ptx_runtime::__private::assert_layout(
                    <#t as ::ptx_runtime::DeviceRepr>::LAYOUT, #size, #align,
                );
            });
        }
        let def = std::rc::Rc::new(StructDef {
            name: info.name.clone(),
            path: path.clone(),
            kind: StructKind::CLike,
            fields: vec![Field { name: " tag".into(), ty: Ty::Scalar(info.repr), offset: 0 }],
            layout: ptx_abi::Layout::scalar(info.repr),
            generic: None,
            tags: info.variants.iter().map(|(_, x)| *x).collect(),
        });
        self.structs.insert(key, def.clone());
        Ty::Struct(def)
    }

    /// The variants of the C-like enum `def` (names and discriminants), from its replay.
    pub fn c_enum_variants(&self, def: &StructDef) -> Vec<(String, i128)> {
        match self.env.get(&def.path) {
            Some(Info::Enum(e)) => e.variants.clone(),
            _ => Vec::new(),
        }
    }

    /// A single `UpperCamelCase` name as a pattern on a value of the C-like enum `ty`: the
    /// variant of that name (Rust reads the name so wherever a `use` brings the variant in, and
    /// refuses a binding named as a variant of the scrutinee's type). `None` when `ty` is no
    /// C-like enum; a name that is none of its variants is an error naming them, since Rust
    /// would read it as a binding that matches everything.
    pub fn bare_variant_pattern(&mut self, ident: &syn::Ident, ty: &Ty) -> Option<Vec<Pat>> {
        let ty = self.shallow(ty);
        let Ty::Struct(def) = &ty else { return None };
        def.c_enum_repr()?;
        let variants = self.c_enum_variants(def);
        let name = ident.to_string();
        match variants.iter().find(|(v, _)| *v == name) {
            Some((_, x)) => Some(vec![Pat::Int(*x)]),
            None => {
                let list: Vec<String> = variants.iter().map(|(v, _)| format!("`{v}`")).collect();
                self.errors.at(ident.span(), format!("`{name}` is not a variant of `{}` (its variants: {}): Rust would read it as a binding that matches every value; write one of the variants (`{}::{}`), or a binding in `snake_case`", def.name, list.join(", "), def.name, variants.first().map_or("A", |(v, _)| v.as_str())));
                Some(vec![])
            }
        }
    }
}
