//! `atan`, `atan2`, `asin`, `acos`.
//!
//! `atan` folds its argument into [0, tan(π/12)] (`atan x = π/2 − atan(1/x)` above 1,
//! `atan x = π/6 + atan((x√3 − 1)/(x + √3))` above tan(π/12)) and sums the alternating series
//! to `x^31/31` (truncation below 2^-60). `atan2` handles the quadrants and IEEE special cases
//! of C's `atan2`; `asin x = atan2(x, √((1−x)(1+x)))`, `acos x = atan2(√((1−x)(1+x)), x)`.
//! The `f32` versions compute in `f64` and round once.

use ptx_runtime::device_fn;

const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
const SQRT3: f64 = 1.732_050_807_568_877_2;
const PIO2_HI: f64 = core::f64::consts::FRAC_PI_2;
const PIO2_LO: f64 = 6.123_233_995_736_766e-17;
const PIO6_HI: f64 = core::f64::consts::FRAC_PI_6;
const PIO6_LO: f64 = -5.360_408_832_255_455e-17;
const PI_HI: f64 = core::f64::consts::PI;
const PI_LO: f64 = 1.224_646_799_147_353_2e-16;
const PIO4_HI: f64 = core::f64::consts::FRAC_PI_4;
const PIO4_LO: f64 = 3.061_616_997_868_383e-17;

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

/// `atan x` (`f32::atan`).
#[device_fn]
pub fn atan_f32(x: f32) -> f32 {
    atan_f64(x as f64) as f32
}

/// `atan2(y, x)` (`f32::atan2`).
#[device_fn]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    atan2_f64(y as f64, x as f64) as f32
}

/// `asin x` (`f32::asin`).
#[device_fn]
pub fn asin_f32(x: f32) -> f32 {
    asin_f64(x as f64) as f32
}

/// `acos x` (`f32::acos`).
#[device_fn]
pub fn acos_f32(x: f32) -> f32 {
    acos_f64(x as f64) as f32
}
