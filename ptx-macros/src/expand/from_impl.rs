//! `#[device_fn] impl From<X> for T`: the conversion `T::from(x)`, `x.into()` where a `T` is
//! expected, and the error conversion of `?` (`front::from_user`).
//!
//! A type may implement `From` for several sources, so the function is keyed by the source's
//! name, `From_<X>` (`From_u8`, `From_ParseErr`), as an operator is by its right operand
//! (`method::op_key`), and its symbol is C++'s static member `T::from(X)` overloaded on the
//! parameter: `_ZN<path>1T4fromE<X>`.

use crate::report::Errors;

/// The key of `From<X>`'s `from` (`From_X`).
pub fn key(source: &str) -> String {
    format!("From_{source}")
}

/// `impl From<X> for T`: the key and the parameter's Itanium code, or an error at `X`.
pub fn from_key(seg: Option<&syn::PathSegment>, ty_name: &str, errors: &mut Errors) -> Option<(String, String)> {
    if ptx_abi::Scalar::from_rust_name(ty_name).is_some() {
        if let Some(s) = seg {
            errors.error(s, format!("`#[device_fn] impl From<X> for {ty_name}` is not supported: device code converts into primitives with `as` and the numeric `From` impls; write a `#[device_fn]` method of `X` that returns the `{ty_name}`"));
        }
        return None;
    }
    let arg = match seg.map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) if a.args.len() == 1 => a.args.first(),
        _ => None,
    };
    match arg {
        Some(syn::GenericArgument::Type(t @ syn::Type::Path(p))) if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_empty()) => {
            let name = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            Some((key(&name), super::method::param_code(t, ty_name)))
        }
        Some(syn::GenericArgument::Type(t)) => {
            errors.error(t, "`#[device_fn] impl From<X> for T` converts from a scalar or a `DeviceRepr` type named by a path (`From<u8>`, `From<ParseErr>`); for another source, write a `#[device_fn]` method that builds the value");
            None
        }
        _ => {
            if let Some(s) = seg {
                errors.error(s, "write `impl From<X> for T` with the source type `X`");
            }
            None
        }
    }
}
