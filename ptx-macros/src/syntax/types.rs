//! Types in device signatures and device data, and which Rust types have no place there.
//!
//! The macro classifies what it can see in the tokens: primitives, pointers, references,
//! slices, arrays. Any other named type (a user struct, a native vector, a handle, an alias) is
//! [`Ty::Named`]: rustc resolves it, and the generated code requires `ParamType`/`DeviceRepr`
//! of it, whose messages explain what is missing. Types that have no place in device code are
//! rejected at their token by the one table both type models read (`syntax::rejected`); the
//! rules of position (tuples, `Option`, 16-bit floats as parameters, references in data) are
//! this check's own.

use super::rejected::{rejected, OTHER, TUPLE};
use crate::report::Errors;
use ptx_abi::param::AbiError;
use ptx_abi::Scalar;

/// The kind of a type in a signature, once its parts have been checked. (The body compiler's
/// `front::ty::Ty` is the full type; signatures only need to know what kind of thing passes.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Scalar,
    /// `*const T`, `*mut T` (`raw`), `&T`, `&mut T`: a 64-bit generic address (§2.3 note B).
    Pointer { raw: bool },
    /// `&[T]` / `&mut [T]`: the aggregate `{ T *ptr; size_t len; }`.
    Slice,
    /// `[T; N]` by value: an aggregate.
    Array,
    /// Any other named type, resolved by rustc through the ABI traits.
    Named,
}

/// Where a type appears; the rules differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Position {
    /// A kernel or device-function parameter.
    Param,
    /// A device function's return type.
    Return,
    /// A field of a `DeviceRepr` type, an array element or a pointee: device data.
    Data,
}

/// Classifies `ty`, or reports why it cannot appear at `pos` and returns `None`.
pub fn classify(ty: &syn::Type, pos: Position, errors: &mut Errors) -> Option<Ty> {
    if let Some(message) = rejected(ty) {
        errors.error(ty, message);
        return None;
    }
    match ty {
        syn::Type::Paren(p) => classify(&p.elem, pos, errors),
        syn::Type::Group(g) => classify(&g.elem, pos, errors),
        syn::Type::Path(p) => classify_path(p, pos, errors),
        syn::Type::Ptr(p) => {
            classify(&p.elem, Position::Data, errors)?;
            Some(Ty::Pointer { raw: true })
        }
        syn::Type::Reference(r) => {
            if pos == Position::Data {
                errors.error(ty, "references cannot be stored in device data; store a raw pointer (`*const T` / `*mut T`) instead");
                return None;
            }
            match &*r.elem {
                syn::Type::Slice(s) => {
                    classify(&s.elem, Position::Data, errors)?;
                    Some(Ty::Slice)
                }
                syn::Type::Reference(_) => {
                    errors.error(ty, "references to references are not supported in device signatures; take a raw pointer such as `*const *const T`");
                    None
                }
                elem => {
                    classify(elem, Position::Data, errors)?;
                    Some(Ty::Pointer { raw: false })
                }
            }
        }
        syn::Type::Array(a) => {
            classify(&a.elem, Position::Data, errors)?;
            Some(Ty::Array)
        }
        syn::Type::Tuple(t) if t.elems.is_empty() => {
            errors.error(ty, "`()` cannot be a parameter or field: it has no bytes to pass; remove it");
            None
        }
        syn::Type::Tuple(_) => {
            errors.error(ty, TUPLE);
            None
        }
        syn::Type::Never(_) => {
            errors.error(ty, "`!` cannot be a device type; a function that never returns should return `()`");
            None
        }
        syn::Type::Infer(_) => {
            errors.error(ty, "write the type out: device signatures need concrete types");
            None
        }
        _ => {
            errors.error(ty, OTHER);
            None
        }
    }
}

fn classify_path(p: &syn::TypePath, pos: Position, errors: &mut Errors) -> Option<Ty> {
    let last = match p.path.segments.last() {
        Some(s) => s,
        None => return Some(Ty::Named),
    };
    let name = last.ident.to_string();
    let simple = p.qself.is_none() && matches!(last.arguments, syn::PathArguments::None);
    if simple {
        if let Some(s) = Scalar::from_rust_name(&name) {
            // `f16`/`bf16` are only scalars when spelled as the primitive or through `half`.
            let is_half = matches!(s, Scalar::F16 | Scalar::BF16);
            if is_half && pos != Position::Data {
                errors.error(p, AbiError::HalfFloatParam.message());
                return None;
            }
            return Some(if is_half { Ty::Named } else { Ty::Scalar });
        }
    }
    if (name == "Option" || name == "Result") && p.qself.is_none() {
        errors.error(p, OPTION);
        return None;
    }
    Some(Ty::Named)
}

/// `Option` and `Result` where device data or a kernel parameter goes.
const OPTION: &str = "`Option` and `Result` have no C layout in Rust, so they cannot be kernel parameters or device data; pass a value and a flag, or a nullable raw pointer (they work as values inside bodies and between `#[device_fn]`s)";
