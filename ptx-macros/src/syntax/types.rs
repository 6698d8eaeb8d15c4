//! Types in device signatures and device data, and which Rust types have no place there.
//!
//! The macro classifies what it can see in the tokens: primitives, pointers, references,
//! slices, arrays. Any other named type (a user struct, a native vector, a handle, an alias) is
//! [`Ty::Named`]: rustc resolves it, and the generated code requires `ParamType`/`DeviceRepr`
//! of it, whose messages explain what is missing. Types that can never cross to the device
//! (tuples, heap types, strings, trait objects, closures, fn pointers, 16-bit float parameters)
//! are rejected here, at their token, with the rule and what to write instead.

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
    match ty {
        syn::Type::Paren(p) => classify(&p.elem, pos, errors),
        syn::Type::Group(g) => classify(&g.elem, pos, errors),
        syn::Type::Path(p) => classify_path(p, pos, errors),
        syn::Type::Ptr(p) => {
            if let syn::Type::Slice(_) = &*p.elem {
                errors.error(ty, "raw slice pointers (`*const [T]`) are fat pointers with no PTX ABI form; take a slice `&[T]`, or a thin pointer `*const T` plus a length");
                return None;
            }
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
                syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
                    errors.error(ty, "`&str` cannot be passed to device code: PTX has no string type; pass the bytes as `&[u8]`");
                    None
                }
                syn::Type::Reference(_) => {
                    errors.error(ty, "references to references are not supported in device signatures; take a raw pointer such as `*const *const T`");
                    None
                }
                syn::Type::TraitObject(_) => {
                    errors.error(ty, DYN);
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
            errors.error(ty, "tuples have no defined layout in the PTX ABI; use a `#[repr(C)]` struct with `#[derive(DeviceRepr)]`");
            None
        }
        syn::Type::Slice(_) => {
            errors.error(ty, "a bare slice `[T]` has no size; take `&[T]` or `&mut [T]`");
            None
        }
        syn::Type::TraitObject(_) => {
            errors.error(ty, DYN);
            None
        }
        syn::Type::ImplTrait(_) => {
            errors.error(ty, "`impl Trait` (including closures, `impl Fn`) is not supported in device code: there is no dynamic or generic dispatch on the device; take a concrete type, or call a `#[device_fn]` directly");
            None
        }
        syn::Type::BareFn(_) => {
            errors.error(ty, "function pointers are not supported in device signatures; call a `#[device_fn]` directly instead of passing it");
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
            errors.error(ty, "this kind of type is not supported in device code; use a scalar, pointer, slice, array or `#[derive(DeviceRepr)]` type");
            None
        }
    }
}

const DYN: &str = "trait objects (`dyn Trait`) need dynamic dispatch, which device code does not have; take a concrete type";

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
        match name.as_str() {
            "char" if p.path.segments.len() == 1 => {
                errors.error(p, "`char` is a 4-byte Unicode scalar value with no C counterpart; use `u8` for C's `char`, or `u32`");
                return None;
            }
            "u128" | "i128" if p.path.segments.len() == 1 => {
                errors.error(p, "128-bit integers are not among the PTX ABI's fundamental types (PTX Interoperability §1.1); use two `u64` halves in a `#[repr(C)]` struct");
                return None;
            }
            "str" => {
                errors.error(p, "`str` cannot be passed to device code: PTX has no string type; pass the bytes as `&[u8]`");
                return None;
            }
            _ => {}
        }
    }
    if let Some(message) = heap_type_message(&name) {
        errors.error(p, message);
        return None;
    }
    Some(Ty::Named)
}

/// Standard-library types that own host memory or have no ABI layout.
pub fn heap_type_message(name: &str) -> Option<&'static str> {
    Some(match name {
        "Vec" | "VecDeque" => "`Vec` owns host heap memory and cannot cross to the device; take a slice `&[T]` / `&mut [T]` and pass a device buffer",
        "String" => "`String` owns host heap memory and cannot cross to the device; pass the bytes as `&[u8]`",
        "Box" | "Rc" | "Arc" => "smart pointers own host memory and cannot cross to the device; take a reference or raw pointer to device memory",
        "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" => "collections own host heap memory and cannot cross to the device; pass their contents as a slice",
        "Option" | "Result" => "`Option` and `Result` have no C layout in Rust, so they cannot be kernel parameters or device data; pass a value and a flag, or a nullable raw pointer (they work as values inside bodies and between `#[device_fn]`s)",
        "Cell" | "RefCell" | "Mutex" | "RwLock" => "host synchronisation and interior-mutability types have no device counterpart; use a raw pointer and the device atomics",
        _ => return None,
    })
}
