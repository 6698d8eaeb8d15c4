//! Fast approximate `f32` functions: one `.approx` PTX instruction each (or two or three),
//! as CUDA's `__sinf`, `__expf`, ... Only by explicit choice: `x.sin()` is the accurate one.
//!
//! | here | CUDA | PTX | error on the device (PTX ISA) |
//! |------|------|-----|-------------------------------|
//! | [`sin`], [`cos`] | `__sinf`, `__cosf` | `sin.approx.f32`, `cos.approx.f32` | 2^-20.9 absolute in -π..π, larger outside |
//! | [`tan`] | `__tanf` | sin/cos approx, `div.approx` | derived |
//! | [`exp2`] | `exp2f` fast path | `ex2.approx.f32` | 2 ulp (full range) |
//! | [`exp`] | `__expf` | `mul` by log2(e), `ex2.approx` | 2 + 1.5·\|x\| ulp |
//! | [`log2`] | `__log2f` | `lg2.approx.f32` | 2^-22 absolute (0.5..2), 4 ulp elsewhere |
//! | [`ln`] | `__logf` | `lg2.approx`, `mul` by ln 2 | derived |
//! | [`rsqrt`] | `rsqrtf` | `rsqrt.approx.f32` | 2^-22.9 relative |
//! | [`sqrt`] | `__fsqrt_rz`-like | `sqrt.approx.f32` | 2^-23 relative |
//! | [`recip`] | `__frcp_rz`-like | `rcp.approx.f32` | 1 ulp |
//! | [`div`] | `__fdividef` | `div.full.f32` | 2 ulp |
//! | [`tanh`] | `tanhf` fast path | `tanh.approx.f32` (sm_75, PTX 7.0) | 2^-10.987 relative |
//! | [`powf`] | `__powf` | `ex2.approx(y · lg2.approx(x))` | derived |
//! | [`exp2_ftz`], [`recip_ftz`], [`rsqrt_ftz`], [`div_ftz`] | inside `tanhf`, `sinhf`, `asinf`, `powf` | `ex2`, `rcp`, `rsqrt`, `div` `.approx.ftz.f32` | as without `.ftz`; subnormals flushed |
//!
//! On the host these compute the accurate functions of `std`.

use ptx_macros::__device_api as device_api;

/// `sin.approx.f32` (CUDA `__sinf`).
#[device_api(fast_sin)]
#[inline]
pub fn sin(x: f32) -> f32 {
    x.sin()
}

/// `cos.approx.f32` (CUDA `__cosf`).
#[device_api(fast_cos)]
#[inline]
pub fn cos(x: f32) -> f32 {
    x.cos()
}

/// `sin.approx / cos.approx` (CUDA `__tanf`).
#[device_api(fast_tan)]
#[inline]
pub fn tan(x: f32) -> f32 {
    x.tan()
}

/// `ex2.approx.f32`.
#[device_api(fast_exp2)]
#[inline]
pub fn exp2(x: f32) -> f32 {
    x.exp2()
}

/// `ex2.approx.f32(x * log2(e))` (CUDA `__expf`).
#[device_api(fast_exp)]
#[inline]
pub fn exp(x: f32) -> f32 {
    x.exp()
}

/// `lg2.approx.f32` (CUDA `__log2f`).
#[device_api(fast_log2)]
#[inline]
pub fn log2(x: f32) -> f32 {
    x.log2()
}

/// `lg2.approx.f32(x) * ln(2)` (CUDA `__logf`).
#[device_api(fast_ln)]
#[inline]
pub fn ln(x: f32) -> f32 {
    x.ln()
}

/// `rsqrt.approx.f32` (CUDA `rsqrtf`).
#[device_api(fast_rsqrt)]
#[inline]
pub fn rsqrt(x: f32) -> f32 {
    1.0 / x.sqrt()
}

/// `sqrt.approx.f32`.
#[device_api(fast_sqrt)]
#[inline]
pub fn sqrt(x: f32) -> f32 {
    x.sqrt()
}

/// `rcp.approx.f32`.
#[device_api(fast_recip)]
#[inline]
pub fn recip(x: f32) -> f32 {
    1.0 / x
}

/// `div.full.f32` (CUDA `__fdividef`).
#[device_api(fast_div)]
#[inline]
pub fn div(x: f32, y: f32) -> f32 {
    x / y
}

/// `tanh.approx.f32` (sm_75+, PTX ISA 7.0).
#[device_api(fast_tanh)]
#[inline]
pub fn tanh(x: f32) -> f32 {
    x.tanh()
}

/// `ex2.approx(y * lg2.approx(x))` (CUDA `__powf`).
#[device_api(fast_powf)]
#[inline]
pub fn powf(x: f32, y: f32) -> f32 {
    x.powf(y)
}

/// Flushes a subnormal to zero of the same sign, as `.ftz` instructions read and write them.
#[inline]
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `ex2.approx.ftz.f32`: `2^x` with subnormal operands and results flushed to zero, the form
/// CUDA's `expf`, `tanhf` and `sinhf` use inside.
#[device_api(fast_exp2_ftz)]
#[inline]
pub fn exp2_ftz(x: f32) -> f32 {
    ftz(ftz(x).exp2())
}

/// `rcp.approx.ftz.f32`.
#[device_api(fast_recip_ftz)]
#[inline]
pub fn recip_ftz(x: f32) -> f32 {
    ftz(1.0 / ftz(x))
}

/// `rsqrt.approx.ftz.f32`.
#[device_api(fast_rsqrt_ftz)]
#[inline]
pub fn rsqrt_ftz(x: f32) -> f32 {
    ftz(1.0 / ftz(x).sqrt())
}

/// `div.approx.ftz.f32` (2 ulp for divisors in [2^-126, 2^126]).
#[device_api(fast_div_ftz)]
#[inline]
pub fn div_ftz(x: f32, y: f32) -> f32 {
    ftz(ftz(x) / ftz(y))
}
