//! Associated types through a bound: `S::Out` and `<S as Shape>::Out` in a generic function,
//! which its instance names as `geo::Circle::Out` and `<geo::Circle as geo::Shape>::Out`. The
//! impl's replay of the type sits next to the type (see `expand::assoc_types`); the type it
//! carries is written in the impl's module, and named through the type's module here.

use super::ty::Ty;
use super::{Checker, Position};
use crate::link::info::Info;
use syn::spanned::Spanned;

/// The implementing type and the associated type's name of `T::X` (both `UpperCamelCase`, as
/// types are named; modules are not) or `<T as Trait>::X`.
fn split(p: &syn::TypePath) -> Option<(syn::Type, &syn::Ident)> {
    let last = p.path.segments.last()?;
    if !last.arguments.is_empty() {
        return None;
    }
    let upper = |i: &syn::Ident| i.to_string().starts_with(|c: char| c.is_ascii_uppercase());
    match &p.qself {
        Some(q) if q.position + 1 == p.path.segments.len() => Some(((*q.ty).clone(), &last.ident)),
        Some(_) => None,
        None => {
            let n = p.path.segments.len();
            if n < 2 || !upper(&last.ident) || !upper(&p.path.segments[n - 2].ident) || p.path.segments[n - 2].ident == "Self" {
                return None;
            }
            let mut ty = p.path.clone();
            ty.segments.pop();
            let ty = syn::Path { leading_colon: ty.leading_colon, segments: ty.segments.into_iter().collect() };
            Some((syn::Type::Path(syn::TypePath { qself: None, path: ty }), &last.ident))
        }
    }
}

impl Checker<'_> {
    /// `T::X` / `<T as Trait>::X` with `T` a `DeviceRepr` type: its impl's `X` (`None`: not
    /// such a path).
    pub(super) fn assoc_type_path(&mut self, p: &syn::TypePath) -> Option<Ty> {
        let (ty, name) = split(p)?;
        let base = self.resolve_type(&ty, Position::Body);
        let base = self.describe(&base, ty.span());
        let def = match base {
            Ty::Struct(def) => def,
            Ty::Error => return Some(Ty::Error),
            // `Halve::X` of an enum or other names: not an associated type here.
            Ty::Named(_) if p.qself.is_none() => return None,
            t => {
                let shown = self.infer.resolve(&t);
                self.errors.error(p, format!("associated types of `{shown}` are not supported in device code: write the type (`f32`), or implement the trait for a `DeviceRepr` type"));
                return Some(Ty::Error);
            }
        };
        let path = super::user_method::method_path(&def, &name.to_string(), name.span());
        match self.env.get(&path).cloned() {
            Some(Info::AssocType(t)) => Some(self.method_type(&t, &def)),
            Some(_) => {
                self.errors.error(p, format!("`{name}` is not an associated type of a `#[device_fn]` impl for `{}`", def.name));
                Some(Ty::Error)
            }
            None => {
                self.needs.need(&path);
                Some(Ty::Error)
            }
        }
    }
}

/// `S::Out` in a generic function's types becomes `<S as Measure>::Out`, with `Measure` the
/// first user-trait bound of `S`, so the instance's `<geo::Sq as Measure>::Out` is a type rustc
/// resolves too (a type's path followed by an associated type's is ambiguous to it).
pub struct QualifyAssoc(pub Vec<(String, syn::Path)>);

impl QualifyAssoc {
    pub fn of(g: &syn::Generics) -> QualifyAssoc {
        QualifyAssoc(super::generic::bounds(g).into_iter().filter(|(_, b)| super::traits::is_user_trait(b)).collect())
    }
}

impl syn::visit_mut::VisitMut for QualifyAssoc {
    fn visit_type_path_mut(&mut self, tp: &mut syn::TypePath) {
        if tp.qself.is_none() && tp.path.leading_colon.is_none() && tp.path.segments.len() == 2 {
            let first = tp.path.segments[0].ident.to_string();
            if let Some((_, bound)) = self.0.iter().find(|(n, _)| *n == first) {
                let param = &tp.path.segments[0].ident;
                let assoc = &tp.path.segments[1];
                let mut bare = bound.clone();
                if let Some(last) = bare.segments.last_mut() {
                    if !matches!(last.arguments, syn::PathArguments::AngleBracketed(_)) {
                        last.arguments = syn::PathArguments::None;
                    }
                }
                *tp = syn::parse_quote!(<#param as #bare>::#assoc);
                return;
            }
        }
        syn::visit_mut::visit_type_path_mut(self, tp);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
