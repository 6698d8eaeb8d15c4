//! `atan`, `atan2`, `asin`, `acos`.
//!
//! `atan` folds its argument into [0, tan(π/12)] (`atan x = π/2 − atan(1/x)` above 1,
//! `atan x = π/6 + atan((x√3 − 1)/(x + √3))` above tan(π/12)) and sums the alternating series
//! to `x^31/31` (truncation below 2^-60). `atan2` handles the quadrants and IEEE special cases
//! of C's `atan2`; `asin x = atan2(x, √((1−x)(1+x)))`, `acos x = atan2(√((1−x)(1+x)), x)`.
//! The `f32` versions are the same algorithm in `f32` (series to `x^15`), keeping each
//! quotient's and sum's rounding error, and `asin`, `acos` take `√(1 − x²)` as a double-float.

use super::log_f32::DoubleF32;
use ptx_runtime::device_fn;

pub(crate) const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
pub(crate) const SQRT3: f64 = 1.732_050_807_568_877_2;
pub(crate) const PIO2_HI: f64 = core::f64::consts::FRAC_PI_2;
pub(crate) const PIO2_LO: f64 = 6.123_233_995_736_766e-17;
pub(crate) const PIO6_HI: f64 = core::f64::consts::FRAC_PI_6;
pub(crate) const PIO6_LO: f64 = -5.360_408_832_255_455e-17;
pub(crate) const PI_HI: f64 = core::f64::consts::PI;
pub(crate) const PI_LO: f64 = 1.224_646_799_147_353_2e-16;
pub(crate) const PIO4_HI: f64 = core::f64::consts::FRAC_PI_4;
pub(crate) const PIO4_LO: f64 = 3.061_616_997_868_383e-17;
pub(crate) const TAN_PI_12_F32: f32 = 0.267_949_2;
pub(crate) const SQRT3_HI_F32: f32 = 1.732_050_8;
pub(crate) const SQRT3_LO_F32: f32 = 3.108_725e-8;
pub(crate) const PIO2_HI_F32: f32 = core::f32::consts::FRAC_PI_2;
pub(crate) const PIO2_LO_F32: f32 = -4.371_139e-8;
pub(crate) const PIO6_HI_F32: f32 = core::f32::consts::FRAC_PI_6;
pub(crate) const PIO6_LO_F32: f32 = -1.457_046_3e-8;
pub(crate) const PI_HI_F32: f32 = core::f32::consts::PI;
pub(crate) const PI_LO_F32: f32 = -8.742_278e-8;
pub(crate) const PIO4_HI_F32: f32 = core::f32::consts::FRAC_PI_4;
pub(crate) const THREE_PIO4_F32: f32 = 2.356_194_5;

/// `atan a` for `a` in [0, tan(π/12)], minus `a` (the series' tail).
#[device_fn]
pub(crate) fn atan_tail(a: f64) -> f64 {
    let z = a * a;
    let mut p = z.mul_add(-0.032_258_064_516_129_03, 0.034_482_758_620_689_655);
    p = z.mul_add(p, -0.037_037_037_037_037_035);
    p = z.mul_add(p, 0.04);
    p = z.mul_add(p, -0.043_478_260_869_565_216);
    p = z.mul_add(p, 0.047_619_047_619_047_616);
    p = z.mul_add(p, -0.052_631_578_947_368_42);
    p = z.mul_add(p, 0.058_823_529_411_764_705);
    p = z.mul_add(p, -0.066_666_666_666_666_67);
    p = z.mul_add(p, 0.076_923_076_923_076_93);
    p = z.mul_add(p, -0.090_909_090_909_090_91);
    p = z.mul_add(p, 0.111_111_111_111_111_1);
    p = z.mul_add(p, -0.142_857_142_857_142_85);
    p = z.mul_add(p, 0.2);
    p = z.mul_add(p, -0.333_333_333_333_333_3);
    a * z * p
}

/// `atan a` for `a ≥ 0` as a double-double sum `hi + lo`, returned added.
#[device_fn]
pub(crate) fn atan_pos(a: f64) -> f64 {
    let invert = a > 1.0;
    let b = if invert { 1.0 / a } else { a };
    let r = if b > TAN_PI_12 {
        let c = (b * SQRT3 - 1.0) / (b + SQRT3);
        PIO6_HI + (c + (atan_tail(c) + PIO6_LO))
    } else {
        b + atan_tail(b)
    };
    if invert {
        (PIO2_HI - r) + PIO2_LO
    } else {
        r
    }
}

/// `atan x` (`f64::atan`).
#[device_fn]
pub fn atan_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        let h: f64 = PIO2_HI + PIO2_LO;
        return h.copysign(x);
    }
    atan_pos(x.abs()).copysign(x)
}

/// `atan2(y, x)` (`f64::atan2`).
#[device_fn]
pub fn atan2_f64(y: f64, x: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let pi: f64 = PI_HI + PI_LO;
    let half_pi: f64 = PIO2_HI + PIO2_LO;
    if y == 0.0 {
        // ±0 for x > 0 or x = +0, ±π for x < 0 or x = −0.
        return if x.is_sign_negative() { pi.copysign(y) } else { y };
    }
    if x == 0.0 {
        return half_pi.copysign(y);
    }
    if x.is_infinite() {
        let v: f64 = if y.is_infinite() {
            if x > 0.0 {
                PIO4_HI + PIO4_LO
            } else {
                3.0 * PIO4_HI + 3.0 * PIO4_LO
            }
        } else if x > 0.0 {
            0.0
        } else {
            pi
        };
        return v.copysign(y);
    }
    if y.is_infinite() {
        return half_pi.copysign(y);
    }
    let a = atan_pos((y / x).abs());
    let v: f64 = if x > 0.0 { a } else { (PI_HI - a) + PI_LO };
    v.copysign(y)
}

/// `asin x` (`f64::asin`).
#[device_fn]
pub fn asin_f64(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    atan2_f64(x, ((1.0 - x) * (1.0 + x)).sqrt())
}

/// `acos x` (`f64::acos`).
#[device_fn]
pub fn acos_f64(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    atan2_f64(((1.0 - x) * (1.0 + x)).sqrt(), x)
}

/// `atan a − a` for `a` in [0, tan(π/12)], in `f32` (series to `a^15`).
#[device_fn]
#[inline(always)]
pub(crate) fn atan_tail_f32(a: f32) -> f32 {
    let z = a * a;
    let mut p = z.mul_add(-0.066_666_67, 0.076_923_08);
    p = z.mul_add(p, -0.090_909_09);
    p = z.mul_add(p, 0.111_111_11);
    p = z.mul_add(p, -0.142_857_15);
    p = z.mul_add(p, 0.2);
    p = z.mul_add(p, -0.333_333_34);
    a * z * p
}

/// `atan(b + b_lo)` for `b` in (tan(π/12), 1] as `π/6 + atan c`, `c = (b√3 − 1)/(b + √3)`, the
/// numerator, denominator and quotient with their rounding errors.
#[device_fn]
#[inline(always)]
pub(crate) fn atan_shifted_f32(b: f32, b_lo: f32) -> DoubleF32 {
    let p = b * SQRT3_HI_F32;
    let p_err = b.mul_add(SQRT3_HI_F32, -p);
    let n = p - 1.0;
    let nb = n - p;
    let n_lo = ((p - (n - nb)) + (-1.0 - nb)) + (p_err + b.mul_add(SQRT3_LO_F32, b_lo * SQRT3_HI_F32));
    let d = b + SQRT3_HI_F32;
    let db = d - b;
    let d_lo = ((b - (d - db)) + (SQRT3_HI_F32 - db)) + (SQRT3_LO_F32 + b_lo);
    let c = n / d;
    let c_lo = ((-c).mul_add(d, n) + (-c).mul_add(d_lo, n_lo)) / d;
    let hi = PIO6_HI_F32 + c;
    let hb = hi - PIO6_HI_F32;
    let err = (PIO6_HI_F32 - (hi - hb)) + (c - hb);
    DoubleF32 { hi, lo: err + (PIO6_LO_F32 + (atan_tail_f32(c) + c_lo.mul_add(-c * c, c_lo))) }
}

/// `atan(a + a_lo)` for `a ≥ 0` as a double-float `hi + lo`: the folding's quotients and
/// sums carry their rounding errors, so the only roundings of size are the tail's.
#[device_fn]
#[inline(always)]
pub(crate) fn atan_pos_f32(a: f32, a_lo: f32) -> DoubleF32 {
    if a.is_infinite() {
        return DoubleF32 { hi: PIO2_HI_F32, lo: PIO2_LO_F32 };
    }
    let invert = a > 1.0;
    let b = if invert { 1.0 / a } else { a };
    let b_lo = if invert { ((-b).mul_add(a, 1.0) - b * a_lo) / a } else { a_lo };
    // atan'(b) = 1/(1 + b²) ≈ 1 − b² for the small b_lo.
    let v = if b <= TAN_PI_12_F32 { DoubleF32 { hi: b, lo: atan_tail_f32(b) + b_lo.mul_add(-b * b, b_lo) } } else { atan_shifted_f32(b, b_lo) };
    let hi = v.hi;
    let lo = v.lo;
    if invert {
        // π/2 − (hi + lo).
        let r = PIO2_HI_F32 - hi;
        let rb = r - PIO2_HI_F32;
        let err = (PIO2_HI_F32 - (r - rb)) + (-hi - rb);
        return DoubleF32 { hi: r, lo: err + (PIO2_LO_F32 - lo) };
    }
    DoubleF32 { hi, lo }
}

/// `atan x` (`f32::atan`).
#[device_fn]
pub fn atan_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let r = atan_pos_f32(x.abs(), 0.0);
    (r.hi + r.lo).copysign(x)
}

/// `atan2(y + y_lo, x + x_lo)` for finite nonzero `x`, the quotient's rounding corrected.
#[device_fn]
#[inline(always)]
pub(crate) fn atan2_core_f32(y: f32, y_lo: f32, x: f32, x_lo: f32) -> f32 {
    let q = y / x;
    let q_lo = if q.is_finite() { ((-q).mul_add(x, y) + (-q).mul_add(x_lo, y_lo)) / x } else { 0.0 };
    let t_lo = if q < 0.0 { -q_lo } else { q_lo };
    let a = atan_pos_f32(q.abs(), t_lo);
    if x > 0.0 {
        return (a.hi + a.lo).copysign(y);
    }
    // π − (hi + lo).
    let r = PI_HI_F32 - a.hi;
    let rb = r - PI_HI_F32;
    let err = (PI_HI_F32 - (r - rb)) + (-a.hi - rb);
    (r + (err + (PI_LO_F32 - a.lo))).copysign(y)
}

/// `√(1 − x²)` for `|x| < 1` as a double-float: `1 − x²` and the root with their errors.
#[device_fn]
#[inline(always)]
pub(crate) fn cos_of_asin_f32(x: f32) -> DoubleF32 {
    let w = (-x).mul_add(x, 1.0);
    let xx = x * x;
    let xx_lo = x.mul_add(x, -xx);
    let u = 1.0 - xx;
    let ub = u - 1.0;
    let u_lo = (1.0 - (u - ub)) + (-xx - ub);
    let w_lo = ((u - w) + u_lo) - xx_lo;
    let s = w.sqrt();
    DoubleF32 { hi: s, lo: ((-s).mul_add(s, w) + w_lo) / (2.0 * s) }
}

/// `atan2(y, x)` (`f32::atan2`).
#[device_fn]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if y == 0.0 {
        // ±0 for x > 0 or x = +0, ±π for x < 0 or x = −0.
        let pi: f32 = PI_HI_F32;
        return if x.is_sign_negative() { pi.copysign(y) } else { y };
    }
    let half_pi: f32 = PIO2_HI_F32;
    if x == 0.0 {
        return half_pi.copysign(y);
    }
    if x.is_infinite() {
        let v: f32 = if y.is_infinite() {
            if x > 0.0 {
                PIO4_HI_F32
            } else {
                THREE_PIO4_F32
            }
        } else if x > 0.0 {
            0.0
        } else {
            PI_HI_F32
        };
        return v.copysign(y);
    }
    if y.is_infinite() {
        return half_pi.copysign(y);
    }
    atan2_core_f32(y, 0.0, x, 0.0)
}

/// `asin x` (`f32::asin`): `atan2(x, √(1 − x²))` with the root as a double-float.
#[device_fn]
pub fn asin_f32(x: f32) -> f32 {
    if x.is_nan() || x.abs() > 1.0 {
        return f32::NAN;
    }
    if x.abs() == 1.0 || x == 0.0 {
        let half_pi: f32 = PIO2_HI_F32;
        return if x == 0.0 { x } else { half_pi.copysign(x) };
    }
    let s = cos_of_asin_f32(x);
    atan2_core_f32(x, 0.0, s.hi, s.lo)
}

/// `acos x` (`f32::acos`): `atan2(√(1 − x²), x)`.
#[device_fn]
pub fn acos_f32(x: f32) -> f32 {
    if x.is_nan() || x.abs() > 1.0 {
        return f32::NAN;
    }
    if x == 0.0 || x.abs() == 1.0 {
        return if x == 0.0 { PIO2_HI_F32 } else if x > 0.0 { 0.0 } else { PI_HI_F32 };
    }
    let s = cos_of_asin_f32(x);
    atan2_core_f32(s.hi, s.lo, x, 0.0)
}
