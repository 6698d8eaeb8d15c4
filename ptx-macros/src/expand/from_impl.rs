//! `#[device_fn] impl From<X> for T` and `impl TryFrom<X> for T`: the conversions `T::from(x)`,
//! `x.into()` where a `T` is expected, `T::try_from(x)`, and the error conversion of `?`
//! (`front::from_user`).
//!
//! A type may implement `From` for several sources, so the function is keyed by the source's
//! name, `From_<X>` (`From_u8`, `From_ParseErr`; `TryFrom_<X>`), as an operator is by its right
//! operand (`method::op_key`), and its symbol is C++'s static member `T::from(X)` overloaded on
//! the parameter: `_ZN<path>1T4fromE<X>`. A conversion into a primitive (`impl From<Op> for
//! u32`) has no type of its own to sit with: it sits with its source's methods, keyed
//! `Into_<T>` (`Into_u32`), as the static member `X::into_u32(X)`, the way an operator with a
//! primitive on the left sits with its right operand.

use crate::report::Errors;
use ptx_abi::Scalar;

/// The key of `From<X>`'s `from` (`From_X`).
pub fn key(source: &str) -> String {
    format!("From_{source}")
}

/// The key of `impl From<X> for T` with a primitive `T`, next to `X` (`Into_T`).
pub fn into_key(target: &str) -> String {
    format!("Into_{target}")
}

/// The key of `TryFrom<X>`'s `try_from` (`TryFrom_X`).
pub fn try_key(source: &str) -> String {
    format!("TryFrom_{source}")
}

/// A `From` or `TryFrom` impl as `impl_methods` compiles it.
pub struct Conversion {
    /// The function's key next to its anchor.
    pub key: String,
    /// The method it implements: `from` or `try_from`.
    pub method: &'static str,
    /// The symbol's member name and parameter codes.
    pub symbol: (String, String),
    /// For a primitive target: the source type, which the function sits with.
    pub anchor: Option<syn::Type>,
}

/// `impl From<X> for T` / `impl TryFrom<X> for T` (`trait_name`), or an error at `X`.
pub fn conversion(trait_name: &str, seg: Option<&syn::PathSegment>, ty_name: &str, errors: &mut Errors) -> Option<Conversion> {
    let arg = match seg.map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) if a.args.len() == 1 => a.args.first(),
        _ => None,
    };
    let source = match arg {
        Some(syn::GenericArgument::Type(t @ syn::Type::Path(p))) if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_empty()) => t,
        Some(syn::GenericArgument::Type(t)) => {
            errors.error(t, format!("`#[device_fn] impl {trait_name}<X> for T` converts from a scalar or a `DeviceRepr` type named by a path (`{trait_name}<u8>`, `{trait_name}<ParseErr>`); for another source, write a `#[device_fn]` method that builds the value"));
            return None;
        }
        _ => {
            if let Some(s) = seg {
                errors.error(s, format!("write `impl {trait_name}<X> for T` with the source type `X`"));
            }
            return None;
        }
    };
    let name = match source {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        _ => String::new(),
    };
    let primitive_target = Scalar::from_rust_name(ty_name).is_some();
    match (trait_name, primitive_target) {
        ("From", false) => Some(Conversion { key: key(&name), method: "from", symbol: ("from".into(), super::method::param_code(source, ty_name)), anchor: None }),
        ("TryFrom", false) => Some(Conversion { key: try_key(&name), method: "try_from", symbol: ("try_from".into(), super::method::param_code(source, ty_name)), anchor: None }),
        ("From", true) if Scalar::from_rust_name(&name).is_none() => Some(Conversion {
            key: into_key(ty_name),
            method: "from",
            symbol: (format!("into_{ty_name}"), "$".into()),
            anchor: Some(source.clone()),
        }),
        // Between primitives: Rust's orphan rule refuses the impl, and says so.
        ("From", true) => None,
        _ => {
            if let Some(s) = seg {
                errors.error(s, format!("`#[device_fn] impl {trait_name}<{name}> for {ty_name}` is not supported: a conversion into a primitive is `impl From<Op> for u32` with a `DeviceRepr` source; for a fallible one, write a `#[device_fn]` method of the source that returns a `Result`"));
            }
            None
        }
    }
}

/// `Self::Error` in a `TryFrom` impl becomes the impl's `type Error`, as `Self::Output` does
/// in an operator's (`method::OutputToType`).
pub struct ErrorToType<'t>(pub &'t syn::Type);

impl syn::visit_mut::VisitMut for ErrorToType<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if p.qself.is_none() && segs == ["Self", "Error"] {
                *t = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expand(item: syn::ItemImpl) -> String {
        let out = super::super::method::device_impl(quote!(), item);
        syn::parse2::<syn::File>(out.clone()).expect("the expansion is items");
        out.to_string()
    }

    #[test]
    fn a_conversion_into_a_primitive_sits_with_its_source() {
        let out = expand(syn::parse_quote! {
            impl From<Op> for u32 { fn from(op: Op) -> u32 { op as u32 } }
        });
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("as Op__Into_u32__needs_device_fn_impl_in_scope") && out.contains("impl Op {"), "{out}");
        assert!(out.contains("name : \"into_u32\"") && out.contains("ty : \"Op\""), "{out}");
    }

    #[test]
    fn try_from_is_keyed_by_its_source_and_reads_self_error() {
        let out = expand(syn::parse_quote! {
            impl TryFrom<u32> for Op { type Error = u8; fn try_from(v: u32) -> Result<Self, Self::Error> { Err(1) } }
        });
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("as Op__TryFrom_u32__needs_device_fn_impl_in_scope"), "{out}");
        assert!(out.contains("Result < Op , u8 >"), "`Self::Error` is the impl's type in the replay: {out}");
    }

    #[test]
    fn between_primitives_rustc_speaks_and_a_fallible_one_into_a_primitive_is_refused() {
        let out = expand(syn::parse_quote!(impl From<u8> for f32 { fn from(v: u8) -> f32 { v as f32 } }));
        assert!(!out.contains("compile_error"), "{out}");
        let out = expand(syn::parse_quote!(impl TryFrom<Op> for u8 { type Error = (); fn try_from(v: Op) -> Result<u8, ()> { Ok(0) } }));
        assert!(out.contains("compile_error") && out.contains("impl From<Op> for u32"), "{out}");
    }
}
