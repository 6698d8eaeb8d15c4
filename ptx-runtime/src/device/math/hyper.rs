//! `sinh`, `cosh`, `tanh` from `exp` and `exp_m1` (no cancellation near 0).
//! The `f32` versions compute in `f64` and round once.

use super::exp::{exp_f64, exp_m1_f64};
use ptx_runtime::device_fn;

/// `sinh x` (`f64::sinh`).
#[device_fn]
pub fn sinh_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let a = x.abs();
    let v = if a < 22.0 {
        let e = exp_m1_f64(a);
        // (e^a − e^−a)/2 = (E + E/(E + 1))/2 with E = e^a − 1.
        0.5 * (e + e / (e + 1.0))
    } else if a < 709.0 {
        0.5 * exp_f64(a)
    } else {
        let h = exp_f64(0.5 * a);
        (0.5 * h) * h
    };
    v.copysign(x)
}

/// `cosh x` (`f64::cosh`).
#[device_fn]
pub fn cosh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a < 22.0 {
        let e = exp_f64(a);
        return 0.5 * (e + 1.0 / e);
    }
    if a < 709.0 {
        return 0.5 * exp_f64(a);
    }
    let h = exp_f64(0.5 * a);
    (0.5 * h) * h
}

/// `tanh x` (`f64::tanh`).
#[device_fn]
pub fn tanh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a > 22.0 {
        return 1.0f64.copysign(x);
    }
    let e = exp_m1_f64(2.0 * a);
    (e / (e + 2.0)).copysign(x)
}

/// `sinh x` (`f32::sinh`).
#[device_fn]
pub fn sinh_f32(x: f32) -> f32 {
    sinh_f64(x as f64) as f32
}

/// `cosh x` (`f32::cosh`).
#[device_fn]
pub fn cosh_f32(x: f32) -> f32 {
    cosh_f64(x as f64) as f32
}

/// `tanh x` (`f32::tanh`).
#[device_fn]
pub fn tanh_f32(x: f32) -> f32 {
    tanh_f64(x as f64) as f32
}
