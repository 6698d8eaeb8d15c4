//! `sinh`, `cosh`, `tanh` from `exp` and `exp_m1` (no cancellation near 0).
//! The `f32` versions compute in `f32`; past `e^a`'s overflow they take `e^a/2` rounded once.

use super::exp::{exp_f32, exp_f64, exp_m1_f32, exp_m1_f64, exp_scaled_f32};
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
    if !x.is_finite() {
        return x;
    }
    let a = x.abs();
    let v = if a < 1.0 {
        // Taylor to a^13: a + a³/6 + …, the correction at most a fifth of the result.
        let z = a * a;
        let mut p = z.mul_add(1.605_904_4e-10, 2.505_210_8e-8);
        p = z.mul_add(p, 2.755_731_9e-6);
        p = z.mul_add(p, 1.984_127e-4);
        p = z.mul_add(p, 8.333_334e-3);
        p = z.mul_add(p, 0.166_666_67);
        (a * z).mul_add(p, a)
    } else if a < 9.0 {
        let e = exp_m1_f32(a);
        // (e^a − e^−a)/2 = (E + E/(E + 1))/2 with E = e^a − 1.
        0.5 * (e + e / (e + 1.0))
    } else if a < 89.5 {
        // e^−a is below 2^-25 of e^a: e^a/2, rounded once.
        exp_scaled_f32(a, -1)
    } else {
        f32::INFINITY
    };
    v.copysign(x)
}

/// `cosh x` (`f32::cosh`).
#[device_fn]
pub fn cosh_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a < 9.0 {
        let e = exp_f32(a);
        return 0.5 * (e + 1.0 / e);
    }
    if a < 89.5 {
        return exp_scaled_f32(a, -1);
    }
    f32::INFINITY
}

/// `tanh x` (`f32::tanh`).
#[device_fn]
pub fn tanh_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a > 9.1 {
        // 1 − tanh a < 2^-25.
        return 1.0f32.copysign(x);
    }
    if a < 0.3 {
        // Taylor to a^13 (truncation below 2^-33): e^2a − 1 would bring its own rounding.
        let z = a * a;
        let mut p = z.mul_add(3.592_128e-3, -8.863_236e-3);
        p = z.mul_add(p, 2.186_949e-2);
        p = z.mul_add(p, -5.396_825_4e-2);
        p = z.mul_add(p, 0.133_333_34);
        p = z.mul_add(p, -0.333_333_34);
        return (a * z).mul_add(p, a).copysign(x);
    }
    // e/(e + 2) with e = e^2a − 1; the sum and the quotient keep their rounding errors.
    let e = exp_m1_f32(2.0 * a);
    let d = e + 2.0;
    let db = d - e;
    let d_lo = (e - (d - db)) + (2.0 - db);
    let q = e / d;
    let q_lo = (-q).mul_add(d, e) - q * d_lo;
    (q + q_lo / d).copysign(x)
}
