//! Logarithms: `ln`, `log2`, `log10`, `ln_1p`.
//!
//! `x = 2^e · m` with `m` in [√½, √2); with `f = m − 1` and `s = f / (2 + f)`,
//! `ln m = 2·atanh s = 2s·(1 + s²/3 + s⁴/5 + …)` (`|s| ≤ 0.172`), evaluated in
//! double-double to about 2^-70, and `ln x = e·ln 2 + ln m` with a two-part `ln 2`.
//! The result is kept as a double-double (`log_dd`, which `powf` uses too) and rounded once;
//! the `f32` logarithms are in `log_f32`.

use super::atanh_series::atanh_series;
use ptx_runtime::{device_fn, DeviceRepr};

pub(crate) const SQRT2_F64: f64 = core::f64::consts::SQRT_2;
pub(crate) const LN2_HI_F64: f64 = core::f64::consts::LN_2;
pub(crate) const LN2_LO_F64: f64 = 2.319_046_813_846_299_6e-17;
pub(crate) const LOG2_E_HI: f64 = core::f64::consts::LOG2_E;
pub(crate) const LOG2_E_LO: f64 = 2.035_527_374_093_103_3e-17;
pub(crate) const LOG10_E_HI: f64 = core::f64::consts::LOG10_E;
pub(crate) const LOG10_E_LO: f64 = 1.098_319_650_216_765e-17;
pub(crate) const ONE_THIRD_HI: f64 = 0.333_333_333_333_333_3;
pub(crate) const ONE_THIRD_LO: f64 = 1.850_371_707_708_594e-17;
/// `1/5 − 0.2` (the double `0.2` is above a fifth).
pub(crate) const ONE_FIFTH_LO: f64 = -1.110_223_024_625_156_6e-17;

/// A double-double: `hi + lo` with `|lo| ≤ ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub(crate) struct DoubleF64 {
    pub hi: f64,
    pub lo: f64,
}

atanh_series! {
    /// `ln(1 + f)` for `1 + f` in [√½, √2], a double-double to about 2^-70 (the tail's
    /// rounding, in double, is below that: `atanh_series`).
    ln1p_series_f64(f64) -> DoubleF64,
    third: (ONE_THIRD_HI, ONE_THIRD_LO),
    fifth_lo: ONE_FIFTH_LO,
    tail: [
        0.034_482_758_620_689_655, 0.037_037_037_037_037_035, 0.04, 0.043_478_260_869_565_216, 0.047_619_047_619_047_616,
        0.052_631_578_947_368_42, 0.058_823_529_411_764_705, 0.066_666_666_666_666_67, 0.076_923_076_923_076_93,
        0.090_909_090_909_090_91, 0.111_111_111_111_111_1, 0.142_857_142_857_142_85
    ]
}

/// `ln x` as a double-double, for finite `x > 0`.
#[device_fn]
pub(crate) fn log_dd(x: f64) -> DoubleF64 {
    let mut bits = x.to_bits();
    let mut e: i64 = -1023;
    if bits < 0x0010_0000_0000_0000 {
        bits = (x * 18_014_398_509_481_984.0).to_bits();
        e -= 54;
    }
    e += (bits >> 52) as i64;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > SQRT2_F64 {
        m *= 0.5;
        e += 1;
    }
    // ln m = 2·atanh(s) with s, z and w double-doubles: `powf` multiplies ln x by up to
    // ~10^3/|ln x|, so it needs ln x to about 2^-66 relative, which a double-precision series
    // does not give.
    let lm = ln1p_series_f64(m - 1.0); // m − 1 exact (Sterbenz)
    // e·ln 2 as a double-double, then the sum.
    let ef = e as f64;
    let t_hi = ef * LN2_HI_F64;
    let t_lo = ef.mul_add(LN2_HI_F64, -t_hi) + ef * LN2_LO_F64;
    let hi = t_hi + lm.hi;
    let bv = hi - t_hi;
    let err = (t_hi - (hi - bv)) + (lm.hi - bv);
    let lo = err + t_lo + lm.lo;
    let h = hi + lo;
    DoubleF64 { hi: h, lo: lo - (h - hi) }
}

/// The special values shared by the logarithms: NaN below 0, −∞ at 0, +∞ at +∞.
#[device_fn]
#[inline(always)]
fn log_special_f64(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    x
}

/// `ln x` times the double-double `c_hi + c_lo`, rounded once, for finite `x > 0`.
#[device_fn]
#[inline(always)]
fn log_times_f64(x: f64, c_hi: f64, c_lo: f64) -> f64 {
    let l = log_dd(x);
    let hi = l.hi * c_hi;
    let lo = l.hi.mul_add(c_hi, -hi) + l.hi.mul_add(c_lo, l.lo * c_hi);
    hi + lo
}

/// `ln x` (`f64::ln`).
#[device_fn]
pub fn ln_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return log_special_f64(x);
    }
    let l = log_dd(x);
    l.hi + l.lo
}

/// `log₂ x` (`f64::log2`); exact for powers of two.
#[device_fn]
pub fn log2_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return log_special_f64(x);
    }
    log_times_f64(x, LOG2_E_HI, LOG2_E_LO)
}

/// `log₁₀ x` (`f64::log10`).
#[device_fn]
pub fn log10_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return log_special_f64(x);
    }
    log_times_f64(x, LOG10_E_HI, LOG10_E_LO)
}

/// `ln(1 + x)` (`f64::ln_1p`), accurate near 0.
#[device_fn]
pub fn ln_1p_f64(x: f64) -> f64 {
    if x.is_nan() || x < -1.0 {
        return f64::NAN;
    }
    if x == -1.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    let u = 1.0 + x;
    if u == 1.0 {
        return x;
    }
    // ln(u) · x / (u − 1) corrects for the rounding of 1 + x.
    let l = log_dd(u);
    let d = u - 1.0;
    (l.hi + l.lo) * (x / d)
}
