//! Messages for what is outside the subset: what is not supported and what to write instead.

// The types with no place in device code are one table, shared with the signature check:
// `syntax::rejected`.
/// `Option` / `Result` written without their arguments.
pub const SUM_WITHOUT_ARGS: &str = "write `Option<T>` / `Result<T, E>` with their type arguments";
pub const CLOSURE: &str = "only closures bound in the body (`let f = |x: f32| x * 2.0;`) and `#[device_fn]`s can be called in device code (function pointers are not supported); call a `#[device_fn]`";
pub const ITERATOR: &str = "an iterator is compiled where it is consumed: write the whole chain in a `for` loop (`for x in s.iter().rev()`) or end it with a consumer (`sum`, `fold`, `count`, `any`, `position`, ...) in the same expression; it cannot be stored in a variable, returned or passed";
pub const HEAP: &str = "host heap types are not supported in device code: the device heap hands out raw memory; use `ptx_runtime::device::malloc::<T>(n)` / `free(p)`, a fixed-size array `[T; N]`, shared memory, or a buffer passed in";
pub const FORMAT: &str = "Rust's formatting macros are not supported in device code: the device prints through `vprintf`, which takes C's format syntax; use `printf!(\"x = %d\\n\", x)` (`ptx_runtime::device::printf!`)";
pub const ASYNC: &str = "`async`/`.await` are not supported in device code: there is no executor on the device";
pub const TRY: &str = "`try` blocks are not supported in device code; write the `match` they stand for";
pub const METHOD_CALL_ON_VECTOR: &str = "native vectors have no methods in device code: read the lanes (`v.x`) and build a new vector (`f32x4::new(..)`)";
