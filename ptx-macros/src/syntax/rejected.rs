//! The one table of types that have no place in device code, and its one wording.
//!
//! Both type models read it: the signature and derive check (`syntax::types::classify`, what
//! may cross to the device) and the body's type resolution (`front::resolve`, what a body may
//! hold), so a type is refused with the same rule, in the same words, wherever it is written.
//! Each model walks into a type's parts itself and asks this table about each part. Rules that
//! depend on where a type is written (a tuple or `Option` as a kernel parameter, a reference
//! stored in device data) are the signature check's own and are not in this table.

/// Why `ty`'s outermost form has no place in device code, with what to write instead.
pub fn rejected(ty: &syn::Type) -> Option<&'static str> {
    Some(match ty {
        syn::Type::Ptr(p) if matches!(&*p.elem, syn::Type::Slice(_)) => RAW_SLICE_PTR,
        syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("str")) => STR,
        syn::Type::Slice(_) => BARE_SLICE,
        syn::Type::TraitObject(_) => DYN,
        syn::Type::ImplTrait(_) => IMPL_TRAIT,
        syn::Type::BareFn(_) => FN_POINTER,
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let plain = p.qself.is_none() && matches!(last.arguments, syn::PathArguments::None);
            return named(&last.ident.to_string(), p.path.segments.len(), plain);
        }
        syn::Type::Paren(_) | syn::Type::Group(_) | syn::Type::Ptr(_) | syn::Type::Reference(_) | syn::Type::Array(_) | syn::Type::Tuple(_) | syn::Type::Never(_) | syn::Type::Infer(_) => return None,
        _ => OTHER,
    })
}

/// Named types that never cross to the device and cannot be held in a body. `plain`: written
/// without generic arguments or a qualified self.
pub fn named(name: &str, segments: usize, plain: bool) -> Option<&'static str> {
    let primitive = plain && segments == 1;
    Some(match name {
        "char" if primitive => "`char` is not supported in device code: it is a 4-byte Unicode scalar value with no C counterpart; use `u8` for C's `char`, or `u32`",
        "u128" | "i128" if primitive => "128-bit integers are not supported in device code: they are not among the PTX ABI's fundamental types and PTX has no 128-bit arithmetic (PTX Interoperability §1.1); use two `u64` halves in a `#[repr(C)]` struct",
        "str" if plain => STR,
        "Vec" | "VecDeque" => "`Vec` owns host heap memory and is not supported in device code; take a slice `&[T]` / `&mut [T]` of a device buffer, or use a fixed-size array `[T; N]`",
        "String" => "`String` owns host heap memory and is not supported in device code; pass the bytes as `&[u8]`",
        "Box" | "Rc" | "Arc" => "smart pointers own host memory and are not supported in device code; take a reference or raw pointer to device memory",
        "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" => "collections own host heap memory and are not supported in device code; pass their contents as a slice, or use an array",
        "Cell" | "RefCell" | "Mutex" | "RwLock" => "host interior-mutability and locking types are not supported in device code; use a raw pointer, the device atomics and barriers",
        _ => return None,
    })
}

pub const STR: &str = "`&str` is not supported in device code: PTX has no string type; pass the bytes as `&[u8]`";
pub const RAW_SLICE_PTR: &str = "raw slice pointers (`*const [T]`) are fat pointers with no PTX ABI form; take a slice `&[T]`, or a thin pointer `*const T` plus a length";
pub const BARE_SLICE: &str = "a bare slice `[T]` has no size; take `&[T]` or `&mut [T]`";
pub const DYN: &str = "trait objects (`dyn Trait`) are not supported in device code: there is no dynamic dispatch on the device; use a concrete type and its methods (`#[device_fn] impl T`), or a `#[device_fn]` that `match`es on a tag field";
pub const IMPL_TRAIT: &str = "`impl Trait` (including closures, `impl Fn`) is not supported in device code: there is no dynamic or generic dispatch through it on the device; take a concrete type, or write a generic `#[device_fn]` with a trait bound";
pub const FN_POINTER: &str = "function pointers are not supported in device code; call a `#[device_fn]` directly instead of passing it";
pub const TUPLE: &str = "tuples have no layout in the PTX ABI: they cannot be kernel parameters or data in memory; use a `#[repr(C)]` struct with `#[derive(DeviceRepr)]` (tuples as values in a body, `let (a, b) = (x, y);`, and between `#[device_fn]`s are fine)";
pub const OTHER: &str = "this kind of type is not supported in device code; use a scalar, pointer, slice, array, native vector or `#[derive(DeviceRepr)]` type";
