//! `Option<&T>` / `Option<&mut T>` (and `Result`s holding references) between device functions.
//!
//! A reference is a 64-bit generic address, as a raw pointer is (PTX Interoperability §2.3 note
//! B), so an `Option<&T>` passes as the C struct `{ u32 tag; struct {} v0; struct { T *p; } v1; }`,
//! the struct of `Option<*const T>`. `ParamType` of `Option<T>` asks for `T: DeviceRepr`
//! through `SumMember`, which a reference cannot be (it is not device data), so the type whose
//! ABI rustc computes for such a signature has the raw pointer where the reference is.

use syn::visit_mut::VisitMut;

/// `ty` with every reference to a sized type inside an `Option`'s or `Result`'s arguments
/// replaced by the raw pointer of the same mutability.
pub fn abi_type(ty: &syn::Type) -> syn::Type {
    let mut ty = ty.clone();
    SumRefs.visit_type_mut(&mut ty);
    ty
}

struct SumRefs;

impl VisitMut for SumRefs {
    fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
        if matches!(seg.ident.to_string().as_str(), "Option" | "Result") {
            if let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments {
                for arg in a.args.iter_mut() {
                    if let syn::GenericArgument::Type(t) = arg {
                        as_pointer(t);
                    }
                }
            }
        }
        syn::visit_mut::visit_path_segment_mut(self, seg);
    }
}

/// A reference to a sized type (also inside a tuple) becomes the raw pointer.
fn as_pointer(t: &mut syn::Type) {
    match t {
        syn::Type::Reference(r) if !matches!(*r.elem, syn::Type::Slice(_)) => {
            let elem = (*r.elem).clone();
            *t = match r.mutability {
                Some(_) => syn::parse_quote!(*mut #elem),
                None => syn::parse_quote!(*const #elem),
            };
        }
        syn::Type::Tuple(tu) => tu.elems.iter_mut().for_each(as_pointer),
        syn::Type::Paren(p) => as_pointer(&mut p.elem),
        _ => {}
    }
}

/// Whether `t` is a reference an `Option`/`Result` may hold between device functions: to a
/// sized type (a slice is two values, which `SumMember` has no form for).
pub fn is_held_reference(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Reference(r) if !matches!(*r.elem, syn::Type::Slice(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rw(s: &str) -> String {
        abi_type(&syn::parse_str(s).unwrap()).to_token_stream().to_string()
    }

    #[test]
    fn references_in_sums_become_raw_pointers() {
        assert_eq!(rw("Option<&'static f32>"), "Option < * const f32 >");
        assert_eq!(rw("Option<&mut V2>"), "Option < * mut V2 >");
        assert_eq!(rw("Result<&u32, u8>"), "Result < * const u32 , u8 >");
        assert_eq!(rw("&'static f32"), "& 'static f32");
        assert_eq!(rw("Option<&[f32]>"), "Option < & [f32] >");
    }
}
