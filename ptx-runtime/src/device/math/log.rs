//! Logarithms: `ln`, `log2`, `log10`, `ln_1p`.
//!
//! `x = 2^e · m` with `m` in [√½, √2); with `f = m − 1` and `s = f / (2 + f)`,
//! `ln m = f − f²/2 + s·(f²/2 + R)`, `R = 2s²/3 + 2s⁴/5 + …` (the series of `2·atanh s`,
//! `|s| ≤ 0.172`, to a quarter ulp), and `ln x = e·ln 2 + ln m` with a two-part `ln 2`.
//! The result is kept as a double-double (`log_dd`, which `powf` uses too) and rounded once;
//! the `f32` logarithms compute in `f64`.

use ptx_runtime::{device_fn, DeviceRepr};

const SQRT2_F64: f64 = core::f64::consts::SQRT_2;
const LN2_HI_F64: f64 = core::f64::consts::LN_2;
const LN2_LO_F64: f64 = 2.319_046_813_846_299_6e-17;
const LOG2_E_HI: f64 = core::f64::consts::LOG2_E;
const LOG2_E_LO: f64 = 2.035_527_374_093_103_3e-17;
const LOG10_E_HI: f64 = core::f64::consts::LOG10_E;
const LOG10_E_LO: f64 = 1.098_319_650_216_765e-17;

/// A double-double: `hi + lo` with `|lo| ≤ ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub(crate) struct DoubleF64 {
    pub hi: f64,
    pub lo: f64,
}

/// `ln x` (`f32::ln`), through `f64`.
#[device_fn]
pub fn ln_f32(x: f32) -> f32 {
    ln_f64(x as f64) as f32
}

/// `log₂ x` (`f32::log2`), through `f64`; exact for powers of two.
#[device_fn]
pub fn log2_f32(x: f32) -> f32 {
    log2_f64(x as f64) as f32
}

/// `log₁₀ x` (`f32::log10`), through `f64`.
#[device_fn]
pub fn log10_f32(x: f32) -> f32 {
    log10_f64(x as f64) as f32
}

/// `ln(1 + x)` (`f32::ln_1p`), through `f64`.
#[device_fn]
pub fn ln_1p_f32(x: f32) -> f32 {
    ln_1p_f64(x as f64) as f32
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
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let mut p = z.mul_add(0.086_956_521_739_130_43, 0.095_238_095_238_095_23);
    p = z.mul_add(p, 0.105_263_157_894_736_84);
    p = z.mul_add(p, 0.117_647_058_823_529_41);
    p = z.mul_add(p, 0.133_333_333_333_333_33);
    p = z.mul_add(p, 0.153_846_153_846_153_85);
    p = z.mul_add(p, 0.181_818_181_818_181_82);
    p = z.mul_add(p, 0.222_222_222_222_222_2);
    p = z.mul_add(p, 0.285_714_285_714_285_7);
    p = z.mul_add(p, 0.4);
    p = z.mul_add(p, 0.666_666_666_666_666_6);
    let r = z * p;
    // ln m = f − hfsq + s·(hfsq + r), hfsq = f²/2 split exactly into hi + lo.
    let hf = 0.5 * f;
    let hfsq = hf * f;
    let hfsq_lo = hf.mul_add(f, -hfsq);
    let v = s * (hfsq + r);
    // (f − hfsq) exactly as a sum of two doubles.
    let a = f - hfsq;
    let bb = a - f;
    let a_err = (f - (a - bb)) + (-hfsq - bb);
    let lm_lo = a_err - hfsq_lo + v;
    let lm_hi = a + lm_lo;
    let lm_lo = lm_lo - (lm_hi - a);
    // e·ln 2 as a double-double, then the sum.
    let ef = e as f64;
    let t_hi = ef * LN2_HI_F64;
    let t_lo = ef.mul_add(LN2_HI_F64, -t_hi) + ef * LN2_LO_F64;
    let hi = t_hi + lm_hi;
    let bv = hi - t_hi;
    let err = (t_hi - (hi - bv)) + (lm_hi - bv);
    let lo = err + t_lo + lm_lo;
    let h = hi + lo;
    DoubleF64 { hi: h, lo: lo - (h - hi) }
}

/// `ln x` (`f64::ln`).
#[device_fn]
pub fn ln_f64(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    let l = log_dd(x);
    l.hi + l.lo
}

/// `log₂ x` (`f64::log2`); exact for powers of two.
#[device_fn]
pub fn log2_f64(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    let l = log_dd(x);
    let hi = l.hi * LOG2_E_HI;
    let lo = l.hi.mul_add(LOG2_E_HI, -hi) + l.hi.mul_add(LOG2_E_LO, l.lo * LOG2_E_HI);
    hi + lo
}

/// `log₁₀ x` (`f64::log10`).
#[device_fn]
pub fn log10_f64(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    let l = log_dd(x);
    let hi = l.hi * LOG10_E_HI;
    let lo = l.hi.mul_add(LOG10_E_HI, -hi) + l.hi.mul_add(LOG10_E_LO, l.lo * LOG10_E_HI);
    hi + lo
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
