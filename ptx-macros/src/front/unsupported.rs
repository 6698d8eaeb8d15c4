//! Messages for what is outside the subset: what is not supported and what to write instead.

pub const STR: &str = "`&str` is not supported in device code: PTX has no string type; pass the bytes as `&[u8]`";
pub const TUPLE: &str = "tuples have no layout in the PTX ABI: they cannot be parameters, return values or data in memory; use a `#[repr(C)]` struct with `#[derive(DeviceRepr)]` (tuples inside a body, `let (a, b) = (x, y);`, are fine)";
pub const DYN: &str = "trait objects (`dyn Trait`) are not supported in device code: there is no dynamic dispatch on the device; use a concrete type and its methods (`#[device_fn] impl T`), or a `#[device_fn]` that `match`es on a tag field";
pub const IMPL_TRAIT: &str = "`impl Trait` is not supported in device code: there is no generic dispatch on the device; use a concrete type";
pub const FN_POINTER: &str = "function pointers are not supported in device code; call a `#[device_fn]` directly";
pub const CLOSURE: &str = "only closures bound in the body (`let f = |x: f32| x * 2.0;`) and `#[device_fn]`s can be called in device code (function pointers are not supported); call a `#[device_fn]`";
pub const ITERATOR: &str = "an iterator is compiled where it is consumed: write the whole chain in a `for` loop (`for x in s.iter().rev()`) or end it with a consumer (`sum`, `fold`, `count`, `any`, `position`, ...) in the same expression; it cannot be stored in a variable, returned or passed";
pub const HEAP: &str = "host heap types are not supported in device code: the device heap hands out raw memory; use `ptx_runtime::device::malloc::<T>(n)` / `free(p)`, a fixed-size array `[T; N]`, shared memory, or a buffer passed in";
pub const FORMAT: &str = "Rust's formatting macros are not supported in device code: the device prints through `vprintf`, which takes C's format syntax; use `printf!(\"x = %d\\n\", x)` (`ptx_runtime::device::printf!`)";
pub const ASYNC: &str = "`async`/`.await` are not supported in device code: there is no executor on the device";
pub const TRY: &str = "`try` blocks are not supported in device code; write the `match` they stand for";
pub const METHOD_CALL_ON_VECTOR: &str = "native vectors have no methods in device code: read the lanes (`v.x`) and build a new vector (`f32x4::new(..)`)";

/// Named types that never cross to the device.
pub fn named_type(name: &str, segments: usize) -> Option<&'static str> {
    Some(match name {
        "char" if segments == 1 => "`char` is not supported in device code; use `u32` (a Unicode scalar value) or `u8` (a byte)",
        "u128" | "i128" if segments == 1 => "128-bit integers are not supported in device code: PTX has no 128-bit arithmetic type; use two `u64` halves",
        "str" => STR,
        "String" => "`String` owns host heap memory and is not supported in device code; use a byte slice `&[u8]`",
        "Vec" | "VecDeque" => "`Vec` owns host heap memory and is not supported in device code; use a slice `&[T]` / `&mut [T]` passed in, or a fixed-size array `[T; N]`",
        "Box" | "Rc" | "Arc" => "smart pointers own host memory and are not supported in device code; use a reference or raw pointer to device memory",
        "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" => "collections are not supported in device code: they own host heap memory; use arrays or slices",
        "Option" | "Result" => "write `Option<T>` / `Result<T, E>` with their type arguments",
        "Cell" | "RefCell" | "Mutex" | "RwLock" => "host interior-mutability and locking types are not supported in device code; use a raw pointer and the device's barriers",
        _ => return None,
    })
}
