//! `asinh`, `acosh`, `atanh` (`f64`) from `ln` and `ln_1p`, in the forms that lose nothing to
//! cancellation: `ln_1p` of a small argument near 0 and 1, `ln(2a) = ln a + ln 2` past 2^28.
//! The `f32` methods are CUDA's functions ([`super::cuda`]).

use super::log::{ln_1p_f64, ln_f64};
use ptx_runtime::device_fn;

/// `asinh x` (`f64::asinh`): `ln(a + √(a² + 1))` for `a = |x|`, with `x`'s sign. Up to 2, as
/// `ln_1p(a + a²/(1 + √(1 + a²)))` (the same value: `√(a² + 1) − 1 = a²/(√(a² + 1) + 1)`);
/// past 2^28, `√(a² + 1)` is `a` and the sum `2a`; below 2^-28, `x` itself (`x³/6` is under
/// half its ulp).
#[device_fn]
pub fn asinh_f64(x: f64) -> f64 {
    let a = x.abs();
    if !a.is_finite() || a < f64::from_bits(0x3E30_0000_0000_0000) {
        return x;
    }
    let r = if a > f64::from_bits(0x41B0_0000_0000_0000) {
        ln_f64(a) + f64::from_bits(0x3FE6_2E42_FEFA_39EF)
    } else if a > 2.0 {
        ln_f64(2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a))
    } else {
        let a2 = a * a;
        ln_1p_f64(a + a2 / (1.0 + (1.0 + a2).sqrt()))
    };
    r.copysign(x)
}

/// `acosh x` (`f64::acosh`): `ln(x + √(x² − 1))`, NaN below 1. Up to 2, as
/// `ln_1p(t + √(2t + t²))` with `t = x − 1` (exact); past 2^28, `ln x + ln 2`.
#[device_fn]
pub fn acosh_f64(x: f64) -> f64 {
    if x.is_nan() || x < 1.0 {
        return f64::NAN;
    }
    if x > f64::from_bits(0x41B0_0000_0000_0000) {
        if x.is_infinite() {
            return x;
        }
        return ln_f64(x) + f64::from_bits(0x3FE6_2E42_FEFA_39EF);
    }
    if x > 2.0 {
        return ln_f64(2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt()));
    }
    let t = x - 1.0;
    ln_1p_f64(t + (2.0 * t + t * t).sqrt())
}

/// `atanh x` (`f64::atanh`): `½ ln((1 + a)/(1 − a))` for `a = |x|`, with `x`'s sign, as
/// `½ ln_1p(2a/(1 − a))` (below ½ split `2a + 2a·a/(1 − a)`, whose first term is exact);
/// ±∞ at ±1, NaN beyond; below 2^-28, `x` itself.
#[device_fn]
pub fn atanh_f64(x: f64) -> f64 {
    let a = x.abs();
    if !(a <= 1.0) {
        return f64::NAN;
    }
    if a < f64::from_bits(0x3E30_0000_0000_0000) {
        return x;
    }
    if a == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    let r = if a < 0.5 {
        let t = a + a;
        0.5 * ln_1p_f64(t + t * a / (1.0 - a))
    } else {
        0.5 * ln_1p_f64((a + a) / (1.0 - a))
    };
    r.copysign(x)
}
