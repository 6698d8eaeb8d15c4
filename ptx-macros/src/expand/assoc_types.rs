//! Associated types of user traits: `trait Shape { type Out; fn area(&self) -> Self::Out; }`
//! with `impl Shape for Circle { type Out = f32; .. }`.
//!
//! In the impl's methods (and the trait's default methods compiled for it, which receive the
//! impl's `type` items) `Self::Out` and `<Self as Shape>::Out` are the impl's type. A generic
//! function reaches it through its bound (`S::Out`, `<S as Shape>::Out`), which its instance
//! names as `geo::Circle::Out`: the impl leaves a replay of the type next to the type, under a
//! name made of the type's and the associated type's (`Circle__Out__needs_device_fn_impl_in_scope`,
//! as a method's), which the body compiler fetches (`front::assoc_type`).

use crate::link::info::Info;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit_mut::VisitMut;

/// The impl's `type X = T;` items.
pub fn of(imp: &syn::ItemImpl) -> Vec<(String, syn::Type)> {
    imp.items
        .iter()
        .filter_map(|i| match i {
            syn::ImplItem::Type(t) => Some((t.ident.to_string(), t.ty.clone())),
            _ => None,
        })
        .collect()
}

/// `Self::X` and `<Self as Trait>::X` become the impl's `X`.
pub struct AssocToType<'a>(pub &'a [(String, syn::Type)]);

impl VisitMut for AssocToType<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let name = match (&p.qself, segs.as_slice()) {
                (None, [s, x]) if s == "Self" => Some(x.clone()),
                (Some(q), [.., x]) if q.position + 1 == segs.len() && matches!(&*q.ty, syn::Type::Path(sp) if sp.path.is_ident("Self")) => Some(x.clone()),
                _ => None,
            };
            if let Some((_, ty)) = name.and_then(|n| self.0.iter().find(|(k, _)| *k == n)) {
                *t = ty.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Each associated type's replay next to the type (`anchor`, the name methods hang on).
pub fn replays(types: &[(String, syn::Type)], anchor: &str, self_ty: &syn::Type) -> TokenStream {
    let mut out = TokenStream::new();
    for (name, ty) in types {
        let mut ty = ty.clone();
        super::method::SelfToType(self_ty).visit_type_mut(&mut ty);
        let export = super::method::replay_name(anchor, name, proc_macro2::Span::call_site());
        let vis: syn::Visibility = syn::parse_quote!(pub);
        out.extend(crate::link::replay::emit("assoc", &export, &vis, &ty.to_token_stream(), &Info::AssocType(ty.to_token_stream())));
    }
    out
}
