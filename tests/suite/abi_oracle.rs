//! The ABI oracle: for each signature, our `.param` declarations (kind, alignment, size, order,
//! and spelling) must equal what nvcc emits for the equivalent CUDA C — `extern "C" __global__`
//! for kernels, `extern "C" __device__ __noinline__` compiled with `-rdc=true` for device
//! functions. nvcc runs live on the C side; nothing here is an expectation we wrote ourselves.
//!
//! Every item is `#[no_mangle]`, so its symbol is the C name and the declarations (parameter
//! names included, `<name>_param_<i>`) can be compared verbatim.

#![allow(dead_code)] // the types exist for their layout

use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::handle::Texture;
use ptx_runtime::half::f16;
use ptx_runtime::vector::*;
use ptx_runtime::{device_fn, kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Mixed {
    a: u8,
    b: f64,
    c: i32,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Short {
    a: u16,
    b: u8,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub union Either {
    a: u8,
    b: f64,
    c: [i32; 3],
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Nested {
    s: Short,
    x: f32,
    inner: Mixed,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct WithArray {
    v: [f32; 3],
    n: u8,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, align(16))]
pub struct Align16 {
    x: f32,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, align(128))]
pub struct Align128 {
    c: u8,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Halves {
    h: f16,
    x: f32,
    g: [f16; 3],
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Wrapped {
    inner: Align16,
    tail: u16,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pointers {
    p: *const f32,
    n: u32,
}

/// The same types, in CUDA C.
const C_PRELUDE: &str = r#"
#include <cuda_runtime.h>
// cuda_fp16.h needs CCCL headers the tool wheels do not carry; it defines `__half` as exactly
// this, a 2-byte-aligned struct around the 16 bits.
struct __align__(2) __half { unsigned short __x; };
struct Mixed { unsigned char a; double b; int c; };
struct Short { unsigned short a; unsigned char b; };
union Either { unsigned char a; double b; int c[3]; };
struct Nested { Short s; float x; Mixed inner; };
struct WithArray { float v[3]; unsigned char n; };
struct __align__(16) Align16 { float x; };
struct __align__(128) Align128 { unsigned char c; };
struct Halves { __half h; float x; __half g[3]; };
struct Wrapped { Align16 inner; unsigned short tail; };
struct Pointers { const float *p; unsigned int n; };
struct SliceF { const float *ptr; size_t len; };
struct SliceU { unsigned int *ptr; size_t len; };
struct ArrF4 { float v[4]; };
"#;

/// One signature: our PTX and symbol, and the CUDA C function (without `extern "C"`).
struct Case {
    symbol: &'static str,
    ours: &'static str,
    cuda: &'static str,
}

macro_rules! cases {
    ($($attr:ident $name:ident ($($p:ident : $t:ty),*) $(-> $r:ty)? $body:block => $c:literal;)*) => {
        $(
            #[$attr]
            #[no_mangle]
            #[allow(unused_variables)]
            pub fn $name($($p: $t),*) $(-> $r)? $body
        )*
        const CASES: &[Case] = &[$(Case { symbol: stringify!($name), ours: $name::PTX, cuda: $c }),*];
    };
}

cases! {
    kernel k_empty() {} => "__global__ void k_empty() {}";
    kernel k_signed(a: i8, b: i16, c: i32, d: i64) {}
        => "__global__ void k_signed(signed char a, short b, int c, long long d) {}";
    kernel k_unsigned(a: u8, b: u16, c: u32, d: u64) {}
        => "__global__ void k_unsigned(unsigned char a, unsigned short b, unsigned int c, unsigned long long d) {}";
    kernel k_pointer_sized(a: isize, b: usize) {} => "__global__ void k_pointer_sized(ptrdiff_t a, size_t b) {}";
    kernel k_bool(a: bool, b: u8, c: bool) {} => "__global__ void k_bool(bool a, unsigned char b, bool c) {}";
    kernel k_floats(a: f32, b: f64, c: f32) {} => "__global__ void k_floats(float a, double b, float c) {}";
    kernel k_pointers(a: *const f32, b: *mut i32, c: &u8, d: &mut f64) {}
        => "__global__ void k_pointers(const float *a, int *b, const unsigned char *c, double *d) {}";
    kernel k_slices(x: &[f32], y: &mut [u32]) {} => "__global__ void k_slices(SliceF x, SliceU y) {}";
    kernel k_mixed(s: Mixed) {} => "__global__ void k_mixed(Mixed s) {}";
    kernel k_short(a: u8, s: Short, b: u8) {} => "__global__ void k_short(unsigned char a, Short s, unsigned char b) {}";
    kernel k_union(u: Either) {} => "__global__ void k_union(Either u) {}";
    kernel k_nested(n: Nested) {} => "__global__ void k_nested(Nested n) {}";
    kernel k_array_in_struct(w: WithArray) {} => "__global__ void k_array_in_struct(WithArray w) {}";
    kernel k_align16(a: Align16, b: u8) {} => "__global__ void k_align16(Align16 a, unsigned char b) {}";
    kernel k_align128(a: u8, b: Align128) {} => "__global__ void k_align128(unsigned char a, Align128 b) {}";
    kernel k_halves_in_struct(h: Halves) {} => "__global__ void k_halves_in_struct(Halves h) {}";
    kernel k_wrapped(w: Wrapped) {} => "__global__ void k_wrapped(Wrapped w) {}";
    kernel k_pointer_in_struct(p: Pointers) {} => "__global__ void k_pointer_in_struct(Pointers p) {}";
    kernel k_vectors_f32(a: f32x2, b: f32x3, c: f32x4) {} => "__global__ void k_vectors_f32(float2 a, float3 b, float4 c) {}";
    kernel k_vectors_small(a: u8x2, b: i8x3, c: i16x4, d: u16x2, e: u8x4) {}
        => "__global__ void k_vectors_small(uchar2 a, char3 b, short4 c, ushort2 d, uchar4 e) {}";
    kernel k_vectors_wide(a: f64x2, b: i32x3, c: u64x2, d: i64x2, e: i32x4) {}
        => "__global__ void k_vectors_wide(double2 a, int3 b, ulonglong2 c, longlong2 d, int4 e) {}";
    kernel k_handle(t: Texture, x: f32) {} => "__global__ void k_handle(cudaTextureObject_t t, float x) {}";
    kernel k_array_by_value(a: [f32; 4]) {} => "__global__ void k_array_by_value(ArrF4 a) {}";
    kernel k_many(a: u8, s: Mixed, p: *const f32, b: f64, v: f32x4, c: i16, x: &[f32]) {}
        => "__global__ void k_many(unsigned char a, Mixed s, const float *p, double b, float4 v, short c, SliceF x) {}";

    device_fn f_small_ints(a: i8, b: u8, c: i16, d: u16) {}
        => "__device__ __noinline__ void f_small_ints(signed char a, unsigned char b, short c, unsigned short d) {}";
    device_fn f_wide(a: i64, b: u64, c: f64, d: f32, e: i32, f: bool) {}
        => "__device__ __noinline__ void f_wide(long long a, unsigned long long b, double c, float d, int e, bool f) {}";
    device_fn f_pointer(p: *mut f32, q: &i32) {} => "__device__ __noinline__ void f_pointer(float *p, const int *q) {}";
    device_fn f_ret_i8(x: i8) -> i8 { x } => "__device__ __noinline__ signed char f_ret_i8(signed char x) { return x; }";
    device_fn f_ret_u16(x: u16) -> u16 { x } => "__device__ __noinline__ unsigned short f_ret_u16(unsigned short x) { return x; }";
    device_fn f_ret_bool(x: bool) -> bool { x } => "__device__ __noinline__ bool f_ret_bool(bool x) { return x; }";
    device_fn f_ret_f32(x: f32) -> f32 { x } => "__device__ __noinline__ float f_ret_f32(float x) { return x; }";
    device_fn f_ret_f64(x: f64) -> f64 { x } => "__device__ __noinline__ double f_ret_f64(double x) { return x; }";
    device_fn f_ret_u64(x: u64) -> u64 { x } => "__device__ __noinline__ unsigned long long f_ret_u64(unsigned long long x) { return x; }";
    device_fn f_ret_pointer(p: *const f64) -> *const f64 { p } => "__device__ __noinline__ const double *f_ret_pointer(const double *p) { return p; }";
    device_fn f_ret_mixed(a: u8, s: Mixed) -> Mixed { s } => "__device__ __noinline__ Mixed f_ret_mixed(unsigned char a, Mixed s) { return s; }";
    device_fn f_ret_short(s: Short) -> Short { s } => "__device__ __noinline__ Short f_ret_short(Short s) { return s; }";
    device_fn f_ret_union(u: Either) -> Either { u } => "__device__ __noinline__ Either f_ret_union(Either u) { return u; }";
    device_fn f_ret_align16(a: Align16) -> Align16 { a } => "__device__ __noinline__ Align16 f_ret_align16(Align16 a) { return a; }";
    device_fn f_ret_align128(x: f32, a: Align128) -> Align128 { a } => "__device__ __noinline__ Align128 f_ret_align128(float x, Align128 a) { return a; }";
    device_fn f_ret_nested(n: Nested) -> Nested { n } => "__device__ __noinline__ Nested f_ret_nested(Nested n) { return n; }";
    device_fn f_ret_float4(v: f32x4) -> f32x4 { v } => "__device__ __noinline__ float4 f_ret_float4(float4 v) { return v; }";
    device_fn f_ret_float3(v: f32x3) -> f32x3 { v } => "__device__ __noinline__ float3 f_ret_float3(float3 v) { return v; }";
    device_fn f_ret_double2(v: f64x2) -> f64x2 { v } => "__device__ __noinline__ double2 f_ret_double2(double2 v) { return v; }";
    device_fn f_ret_slice(x: &[f32]) -> &[f32] { x } => "__device__ __noinline__ SliceF f_ret_slice(SliceF x) { return x; }";
    device_fn f_ret_halves(h: Halves) -> Halves { h } => "__device__ __noinline__ Halves f_ret_halves(Halves h) { return h; }";
    device_fn f_ret_handle(t: Texture) -> Texture { t } => "__device__ __noinline__ cudaTextureObject_t f_ret_handle(cudaTextureObject_t t) { return t; }";
    device_fn f_ret_array_struct(w: WithArray) -> WithArray { w } => "__device__ __noinline__ WithArray f_ret_array_struct(WithArray w) { return w; }";
}

/// The declarations of function `symbol` in `ptx`: the return-value declaration (if any) and
/// each parameter's, whitespace-normalised.
fn declarations(ptx: &str, symbol: &str) -> Option<(Option<String>, Vec<String>)> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    // Definitions, not prototypes: the header line is followed by `{` after the parameter list.
    let mut rest = ptx;
    loop {
        let at = rest.find(&format!("{symbol}("))?;
        let before = &rest[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let header = &rest[line_start..at];
        let after = &rest[at + symbol.len() + 1..];
        let close = after.find(')')?;
        let is_decl = header.contains(".entry") || header.contains(".func");
        let definition = after[close + 1..].trim_start().starts_with('{');
        if is_decl && definition {
            let ret = header.find("(.param").map(|i| {
                let inner = &header[i + 1..];
                norm(&inner[..inner.find(')').unwrap_or(inner.len())])
            });
            let params = after[..close].split(',').map(norm).filter(|s| !s.is_empty()).collect();
            return Some((ret, params));
        }
        rest = &rest[at + symbol.len()..];
    }
}

#[test]
fn at_least_thirty_signatures() {
    assert!(CASES.len() >= 30, "{}", CASES.len());
}

#[test]
fn every_module_assembles() {
    for c in CASES {
        assemble(c.symbol, c.ours);
    }
}

#[test]
fn declarations_match_nvcc() {
    let mut source = String::from(C_PRELUDE);
    for c in CASES {
        source.push_str("extern \"C\" ");
        source.push_str(c.cuda);
        source.push('\n');
    }
    let Some(theirs) = nvcc_ptx("abi_oracle", &source) else { return };
    let mut mismatches = Vec::new();
    for c in CASES {
        let ours = declarations(c.ours, c.symbol).unwrap_or_else(|| panic!("no definition of {} in our PTX:\n{}", c.symbol, c.ours));
        let nvcc = declarations(&theirs, c.symbol).unwrap_or_else(|| panic!("no definition of {} in nvcc's PTX:\n{theirs}", c.symbol));
        if ours != nvcc {
            mismatches.push(format!("{}:\n  ours: {:?}\n  nvcc: {:?}", c.symbol, ours, nvcc));
        }
    }
    assert!(mismatches.is_empty(), "{} of {} signatures differ from nvcc:\n{}", mismatches.len(), CASES.len(), mismatches.join("\n"));
}

#[test]
fn the_extractor_sees_real_declarations() {
    let (ret, params) = declarations(f_ret_mixed::PTX, "f_ret_mixed").expect("definition");
    assert_eq!(ret.as_deref(), Some(".param .align 8 .b8 func_retval0[24]"));
    assert_eq!(params, [".param .b32 f_ret_mixed_param_0", ".param .align 8 .b8 f_ret_mixed_param_1[24]"]);
    let (ret, params) = declarations(k_signed::PTX, "k_signed").expect("definition");
    assert_eq!(ret, None);
    assert_eq!(params.len(), 4);
    let total: usize = CASES.iter().map(|c| declarations(c.ours, c.symbol).expect("definition").1.len()).sum();
    assert!(total >= 90, "only {total} parameter declarations compared");
}
