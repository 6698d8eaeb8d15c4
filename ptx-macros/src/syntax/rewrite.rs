//! Types as written in the signature, made usable inside the module the macro generates next to
//! the function (`mod k { use super::*; ... }`): relative `self::`/`super::` paths gain one
//! `super`, and lifetimes become `'static` (they do not affect the ABI and the generated
//! constants have no lifetime parameters).

use syn::visit_mut::VisitMut;

pub fn for_inner_module(ty: &syn::Type) -> syn::Type {
    let mut ty = ty.clone();
    Rewriter.visit_type_mut(&mut ty);
    ty
}

struct Rewriter;

impl VisitMut for Rewriter {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first_mut() {
                if first.ident == "self" {
                    first.ident = syn::Ident::new("super", first.ident.span());
                } else if first.ident == "super" {
                    let sup: syn::PathSegment = syn::parse_quote!(super);
                    path.segments.insert(0, sup);
                }
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        *lt = syn::Lifetime::new("'static", lt.span());
    }

    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(syn::Lifetime::new("'static", r.and_token.span));
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rw(s: &str) -> String {
        for_inner_module(&syn::parse_str(s).unwrap()).to_token_stream().to_string()
    }

    #[test]
    fn relative_paths_gain_a_super_and_lifetimes_become_static() {
        assert_eq!(rw("self::a::S"), "super :: a :: S");
        assert_eq!(rw("super::S"), "super :: super :: S");
        assert_eq!(rw("crate::S"), "crate :: S");
        assert_eq!(rw("&'a mut [f32]"), "& 'static mut [f32]");
        assert_eq!(rw("&[f32]"), "& 'static [f32]");
    }
}
