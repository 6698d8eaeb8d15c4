//! The `f32` functions evaluated in `f64` and rounded once: within 0.5 ulp plus 2^-29 (nearly
//! always correctly rounded), at the device's `f64` rate (1/64 of `f32` on consumer GPUs).
//! `x.sin()` on an `f32` calls the faster `f32` algorithms of [`super`] (within CUDA's bounds);
//! call these by name, `math::precise::sin_f32(x)`, where the last half ulp matters.

use super::{acos_f64, asin_f64, atan2_f64, atan_f64, cos_f64, cosh_f64, exp2_f64, exp_f64, exp_m1_f64, ln_1p_f64, ln_f64, log10_f64, log2_f64, powf_f64, sin_f64, sinh_f64, tan_f64, tanh_f64};
use ptx_runtime::device_fn;

/// `e^x` through `f64`.
#[device_fn]
pub fn exp_f32(x: f32) -> f32 {
    exp_f64(x as f64) as f32
}

/// `2^x` through `f64`.
#[device_fn]
pub fn exp2_f32(x: f32) -> f32 {
    exp2_f64(x as f64) as f32
}

/// `e^x − 1` through `f64`.
#[device_fn]
pub fn exp_m1_f32(x: f32) -> f32 {
    exp_m1_f64(x as f64) as f32
}

/// `ln x` through `f64`.
#[device_fn]
pub fn ln_f32(x: f32) -> f32 {
    ln_f64(x as f64) as f32
}

/// `log₂ x` through `f64`.
#[device_fn]
pub fn log2_f32(x: f32) -> f32 {
    log2_f64(x as f64) as f32
}

/// `log₁₀ x` through `f64`.
#[device_fn]
pub fn log10_f32(x: f32) -> f32 {
    log10_f64(x as f64) as f32
}

/// `ln(1 + x)` through `f64`.
#[device_fn]
pub fn ln_1p_f32(x: f32) -> f32 {
    ln_1p_f64(x as f64) as f32
}

/// `sin x` through `f64`.
#[device_fn]
pub fn sin_f32(x: f32) -> f32 {
    sin_f64(x as f64) as f32
}

/// `cos x` through `f64`.
#[device_fn]
pub fn cos_f32(x: f32) -> f32 {
    cos_f64(x as f64) as f32
}

/// `tan x` through `f64`.
#[device_fn]
pub fn tan_f32(x: f32) -> f32 {
    tan_f64(x as f64) as f32
}

/// `atan x` through `f64`.
#[device_fn]
pub fn atan_f32(x: f32) -> f32 {
    atan_f64(x as f64) as f32
}

/// `atan2(y, x)` through `f64`.
#[device_fn]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    atan2_f64(y as f64, x as f64) as f32
}

/// `asin x` through `f64`.
#[device_fn]
pub fn asin_f32(x: f32) -> f32 {
    asin_f64(x as f64) as f32
}

/// `acos x` through `f64`.
#[device_fn]
pub fn acos_f32(x: f32) -> f32 {
    acos_f64(x as f64) as f32
}

/// `sinh x` through `f64`.
#[device_fn]
pub fn sinh_f32(x: f32) -> f32 {
    sinh_f64(x as f64) as f32
}

/// `cosh x` through `f64`.
#[device_fn]
pub fn cosh_f32(x: f32) -> f32 {
    cosh_f64(x as f64) as f32
}

/// `tanh x` through `f64`.
#[device_fn]
pub fn tanh_f32(x: f32) -> f32 {
    tanh_f64(x as f64) as f32
}

/// `x^y` through `f64`.
#[device_fn]
pub fn powf_f32(x: f32, y: f32) -> f32 {
    powf_f64(x as f64, y as f64) as f32
}

/// `√(x² + y²)`: exact squares in `f64`, one rounding each for the sum, the root and the
/// `f32` result.
#[device_fn]
pub fn hypot_f32(x: f32, y: f32) -> f32 {
    if x.is_infinite() || y.is_infinite() {
        return f32::INFINITY;
    }
    let (a, b) = (x as f64, y as f64);
    a.mul_add(a, b * b).sqrt() as f32
}
