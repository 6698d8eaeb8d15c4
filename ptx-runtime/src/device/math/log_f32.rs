//! `f32` logarithms in `f32` arithmetic: `ln`, `log2`, `log10`, `ln_1p`.
//!
//! `x = 2^e · (1 + f)` with `1 + f` in [√½, √2); with `s = f / (2 + f)`,
//! `ln(1 + f) = 2·atanh s = 2s·(1 + s²/3 + s⁴/5 + …)` (`|s| ≤ 0.172`, series to `s^17`),
//! evaluated in double-float (pairs of `f32`, about 2^-44 relative), because `powf` multiplies
//! the logarithm by up to ~150/|log₂ x| and needs it to about 2^-32. The logarithms then
//! combine `e` (exact) with the double-float `ln(1 + f)` and round once.

use super::atanh_series::atanh_series;
use super::exp::{LN2_HI_F32, LN2_LO_F32};
use ptx_runtime::{device_fn, DeviceRepr};

pub(crate) const SQRT2_F32: f32 = core::f32::consts::SQRT_2;
pub(crate) const LOG2_E_HI: f32 = core::f32::consts::LOG2_E;
pub(crate) const LOG2_E_LO: f32 = 1.925_963e-8;
pub(crate) const LOG10_E_HI: f32 = core::f32::consts::LOG10_E;
pub(crate) const LOG10_E_LO: f32 = -1.010_305e-8;
/// `log₁₀ 2` in two parts, the first with 16 bits so `e · LOG10_2_HI` is exact.
pub(crate) const LOG10_2_HI: f32 = 0.301_025_4;
pub(crate) const LOG10_2_LO: f32 = 4.605_039e-6;
pub(crate) const ONE_THIRD_HI: f32 = 0.333_333_34;
pub(crate) const ONE_THIRD_LO: f32 = -9.934_108e-9;
pub(crate) const ONE_FIFTH_LO: f32 = -2.980_232_3e-9;

/// A double-float: `hi + lo` with `|lo| ≤ ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub(crate) struct DoubleF32 {
    pub hi: f32,
    pub lo: f32,
}

/// `x = 2^e · (1 + f)`: the exponent and `ln(1 + f)` as a double-float.
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub(crate) struct LogF32 {
    pub e: f32,
    pub hi: f32,
    pub lo: f32,
}

atanh_series! {
    /// `ln(1 + f)` for `1 + f` in [√½, √2], a double-float to about 2^-44 (the tail's
    /// rounding, in single precision, is below 2^-40 of it: `atanh_series`).
    ln1p_series_f32(f32) -> DoubleF32,
    third: (ONE_THIRD_HI, ONE_THIRD_LO),
    fifth_lo: ONE_FIFTH_LO,
    tail: [0.058_823_53, 0.066_666_67, 0.076_923_08, 0.090_909_09, 0.111_111_11, 0.142_857_15]
}

/// `ln(1 + f)` for `1 + f` in [√½, √2] (`f` exact), as a normalized double-float.
#[device_fn]
#[inline(always)]
pub(crate) fn ln1p_reduced(f: f32) -> DoubleF32 {
    let l = ln1p_series_f32(f);
    let h = l.hi + l.lo;
    DoubleF32 { hi: h, lo: l.lo - (h - l.hi) }
}

/// `x = 2^e · (1 + f)` for finite `x > 0`, with `ln(1 + f)`.
#[device_fn]
#[inline(always)]
pub(crate) fn log_parts(x: f32) -> LogF32 {
    let mut bits = x.to_bits();
    let mut e: i32 = -127;
    if bits < 0x0080_0000 {
        bits = (x * 33_554_432.0).to_bits();
        e -= 25;
    }
    e += (bits >> 23) as i32;
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > SQRT2_F32 {
        m *= 0.5;
        e += 1;
    }
    let l = ln1p_reduced(m - 1.0);
    LogF32 { e: e as f32, hi: l.hi, lo: l.lo }
}

/// `e·(c_hi + c_lo) + (hi + lo)` rounded once, for `e·c_hi` exact.
#[device_fn]
#[inline(always)]
pub(crate) fn combine(e: f32, c_hi: f32, c_lo: f32, hi: f32, lo: f32) -> f32 {
    let t = e * c_hi;
    let s = t + hi;
    let b = s - t;
    let err = (t - (s - b)) + (hi - b);
    s + (err + e.mul_add(c_lo, lo))
}

/// `l.hi + l.lo` times a double-float constant, as a double-float.
#[device_fn]
#[inline(always)]
pub(crate) fn times(l: LogF32, c_hi: f32, c_lo: f32) -> DoubleF32 {
    let hi = l.hi * c_hi;
    let lo = l.hi.mul_add(c_hi, -hi) + l.hi.mul_add(c_lo, l.lo * c_hi);
    DoubleF32 { hi, lo }
}

/// The special values shared by the logarithms: NaN below 0, −∞ at 0, +∞ at +∞.
#[device_fn]
#[inline(always)]
pub(crate) fn log_special(x: f32) -> f32 {
    if x.is_nan() || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    x
}

/// `ln x` (`f32::ln`).
#[device_fn]
pub fn ln_f32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return log_special(x);
    }
    let l = log_parts(x);
    combine(l.e, LN2_HI_F32, LN2_LO_F32, l.hi, l.lo)
}

/// `log₂ x` (`f32::log2`); exact for powers of two.
#[device_fn]
pub fn log2_f32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return log_special(x);
    }
    let l = log_parts(x);
    let p = times(l, LOG2_E_HI, LOG2_E_LO);
    combine(l.e, 1.0, 0.0, p.hi, p.lo)
}

/// `log₁₀ x` (`f32::log10`).
#[device_fn]
pub fn log10_f32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return log_special(x);
    }
    let l = log_parts(x);
    let p = times(l, LOG10_E_HI, LOG10_E_LO);
    combine(l.e, LOG10_2_HI, LOG10_2_LO, p.hi, p.lo)
}

/// `ln(1 + x)` (`f32::ln_1p`), accurate near 0.
#[device_fn]
pub fn ln_1p_f32(x: f32) -> f32 {
    if x.is_nan() || x < -1.0 {
        return f32::NAN;
    }
    if x == -1.0 {
        return f32::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    if x.abs() < 2.0e-8 {
        // ln(1 + x) = x·(1 − x/2 + …): x is within 2^-26 relative (and exact for subnormals).
        return x;
    }
    if x > -0.292_893 && x < 0.414_213 {
        // 1 + x is in [√½, √2]: x itself is the reduced argument, exactly.
        let l = ln1p_reduced(x);
        return l.hi + l.lo;
    }
    // u = 1 + x rounded; ln(1 + x) = ln u + ln(1 + c/u) ≈ ln u + c/u with c = (1 + x) − u.
    let u = 1.0 + x;
    let c = if u > 2.0 { 1.0 - (u - x) } else { x - (u - 1.0) };
    let l = log_parts(u);
    combine(l.e, LN2_HI_F32, LN2_LO_F32, l.hi, l.lo + c / u)
}
