//! Exponentials: `exp`, `exp2`, `exp_m1`.
//!
//! `e^x = 2^n · e^r` with `n = round(x / ln 2)` and `r = x − n·ln 2` (two-part `ln 2`, each
//! product exact in an `fma`), `|r| ≤ ln 2 / 2`; `e^r` by its Taylor polynomial to a degree
//! whose truncation error is below a quarter ulp (7 for `f32`, 13 for `f64`), evaluated by
//! Horner's rule with `mul_add`; `2^n` applied in at most two exact-or-once-rounded steps, so
//! subnormal results are rounded once.

use ptx_runtime::device_fn;

pub(crate) const LOG2_E_F32: f32 = core::f32::consts::LOG2_E;
pub(crate) const LN2_HI_F32: f32 = 0.693_145_75; // 0x3f317200: 12 bits, so k·LN2_HI is exact
pub(crate) const LN2_LO_F32: f32 = 1.428_606_8e-6;
pub(crate) const LN2_F32: f32 = core::f32::consts::LN_2;
pub(crate) const LN2_F32_LO: f32 = -1.904_654_2e-9;
pub(crate) const LOG2_E_F64: f64 = core::f64::consts::LOG2_E;
pub(crate) const LN2_HI_F64: f64 = core::f64::consts::LN_2;
pub(crate) const LN2_LO_F64: f64 = 2.319_046_813_846_299_6e-17;

/// `p · 2^n` for `p` in [0.5, 2], rounded once.
#[device_fn]
#[inline(always)]
pub(crate) fn scale_f32(p: f32, n: i32) -> f32 {
    if n > 127 {
        // Overflows to infinity (n ≤ 160 here).
        return p * f32::from_bits(254 << 23) * f32::from_bits(((n - 127 + 127) as u32) << 23);
    }
    if n < -126 {
        // p · 2^(n + 64) is exact; the last product rounds into the subnormals once.
        return p * f32::from_bits(((n + 64 + 127) as u32) << 23) * f32::from_bits(63 << 23);
    }
    p * f32::from_bits(((n + 127) as u32) << 23)
}

/// `p · 2^n` for `p` in [0.5, 2], rounded once.
#[device_fn]
pub(crate) fn scale_f64(p: f64, n: i32) -> f64 {
    if n > 1023 {
        return p * f64::from_bits(2046 << 52) * f64::from_bits(((n - 1023 + 1023) as u64) << 52);
    }
    if n < -1022 {
        return p * f64::from_bits(((n + 128 + 1023) as u64) << 52) * f64::from_bits(895 << 52);
    }
    p * f64::from_bits(((n + 1023) as u64) << 52)
}

/// `e^r − 1 − r` for `|r| ≤ 0.35`, as `r² · (1/2 + r/6 + …)`.
#[device_fn]
#[inline(always)]
pub(crate) fn expm1_tail_f32(r: f32) -> f32 {
    let p = r.mul_add(1.984_127e-4, 1.388_888_9e-3);
    let p = r.mul_add(p, 8.333_334e-3);
    let p = r.mul_add(p, 4.166_666_8e-2);
    let p = r.mul_add(p, 0.166_666_67);
    let p = r.mul_add(p, 0.5);
    r * r * p
}

/// `e^r − 1 − r` for `|r| ≤ 0.35`.
#[device_fn]
pub(crate) fn expm1_tail_f64(r: f64) -> f64 {
    let p = r.mul_add(1.605_904_383_682_161_3e-10, 2.087_675_698_786_81e-9);
    let p = r.mul_add(p, 2.505_210_838_544_172e-8);
    let p = r.mul_add(p, 2.755_731_922_398_589e-7);
    let p = r.mul_add(p, 2.755_731_922_398_589_3e-6);
    let p = r.mul_add(p, 2.480_158_730_158_73e-5);
    let p = r.mul_add(p, 1.984_126_984_126_984e-4);
    let p = r.mul_add(p, 1.388_888_888_888_889e-3);
    let p = r.mul_add(p, 8.333_333_333_333_333e-3);
    let p = r.mul_add(p, 4.166_666_666_666_666_4e-2);
    let p = r.mul_add(p, 0.166_666_666_666_666_66);
    let p = r.mul_add(p, 0.5);
    r * r * p
}

/// `e^x · 2^k` for `|x| ≤ 110` (`sinh`, `cosh` halve `e^x` past its overflow): the same steps
/// as [`exp_f32`].
#[device_fn]
#[inline(always)]
pub(crate) fn exp_scaled_f32(x: f32, k: i32) -> f32 {
    let n = (x * LOG2_E_F32).round_ties_even();
    let r_hi = (-n).mul_add(LN2_HI_F32, x);
    let r = (-n).mul_add(LN2_LO_F32, r_hi);
    let r_err = (-n).mul_add(LN2_LO_F32, r_hi - r);
    let s = 1.0 + r;
    let s_err = (1.0 - s) + r;
    scale_f32(s + (s_err + (expm1_tail_f32(r) + r_err.mul_add(r, r_err))), n as i32 + k)
}

/// `e^x` (`f32::exp`).
///
/// `r = x − n·ln 2` keeps its rounding error `r_err` (`n·LN2_HI` and the first difference are
/// exact), and `e^r = (1 + r) + (tail(r) + r_err·(1 + r))` with `1 + r` split exactly, so the
/// one rounding of size is the last addition (then the scaling's, for subnormal results).
#[device_fn]
pub fn exp_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 100.0 {
        return f32::INFINITY;
    }
    if x < -110.0 {
        return 0.0;
    }
    let n = (x * LOG2_E_F32).round_ties_even();
    let r_hi = (-n).mul_add(LN2_HI_F32, x);
    let r = (-n).mul_add(LN2_LO_F32, r_hi);
    let r_err = (-n).mul_add(LN2_LO_F32, r_hi - r);
    // expm1_tail_f32 and the common case of scale_f32 written out: this is the hot one.
    let mut t = r.mul_add(1.984_127e-4, 1.388_888_9e-3);
    t = r.mul_add(t, 8.333_334e-3);
    t = r.mul_add(t, 4.166_666_8e-2);
    t = r.mul_add(t, 0.166_666_67);
    t = r.mul_add(t, 0.5);
    let s = 1.0 + r;
    let s_err = (1.0 - s) + r;
    let p = s + (s_err + ((r * r).mul_add(t, r_err.mul_add(r, r_err))));
    let k = n as i32;
    if ((k + 126) as u32) <= 253 {
        // −126 ≤ k ≤ 127: 2^k is a normal float.
        return p * f32::from_bits(((k + 127) as u32) << 23);
    }
    scale_f32(p, k)
}

/// `2^x` (`f32::exp2`); exact for integer `x`.
#[device_fn]
pub fn exp2_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 130.0 {
        return f32::INFINITY;
    }
    if x < -160.0 {
        return 0.0;
    }
    let n = x.round_ties_even();
    let f = x - n;
    let r = f * LN2_F32;
    let r_err = f.mul_add(LN2_F32, -r) + f * LN2_F32_LO;
    let s = 1.0 + r;
    let s_err = (1.0 - s) + r;
    scale_f32(s + (s_err + (expm1_tail_f32(r) + r_err.mul_add(r, r_err))), n as i32)
}

/// `e^x` (`f64::exp`).
#[device_fn]
pub fn exp_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 710.0 {
        return f64::INFINITY;
    }
    if x < -746.0 {
        return 0.0;
    }
    let n = (x * LOG2_E_F64).round_ties_even();
    let r_hi = (-n).mul_add(LN2_HI_F64, x);
    let r = (-n).mul_add(LN2_LO_F64, r_hi);
    let p = 1.0 + (r + expm1_tail_f64(r));
    scale_f64(p, n as i32)
}

/// `2^x` (`f64::exp2`); exact for integer `x`.
#[device_fn]
pub fn exp2_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 1100.0 {
        return f64::INFINITY;
    }
    if x < -1100.0 {
        return 0.0;
    }
    let n = x.round_ties_even();
    let f = x - n;
    let r_hi = f * LN2_HI_F64;
    let r_lo = f.mul_add(LN2_HI_F64, -r_hi) + f * LN2_LO_F64;
    let p = 1.0 + (r_hi + (r_lo + expm1_tail_f64(r_hi)));
    scale_f64(p, n as i32)
}

/// `e^x − 1` (`f64::exp_m1`), accurate near 0.
#[device_fn]
pub fn exp_m1_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 710.0 {
        return f64::INFINITY;
    }
    if x < -40.0 {
        return -1.0;
    }
    if x == 0.0 {
        return x;
    }
    if x.abs() < 0.34 {
        return x + expm1_tail_f64(x);
    }
    let n = (x * LOG2_E_F64).round_ties_even();
    let r = (-n).mul_add(LN2_LO_F64, (-n).mul_add(LN2_HI_F64, x));
    let p = r + expm1_tail_f64(r);
    let k = n as i32;
    if k > 60 {
        return scale_f64(1.0 + p, k);
    }
    // e^x − 1 = 2^k·p + (2^k − 1): the first product and the difference are exact here.
    let s = scale_f64(1.0, k);
    s.mul_add(p, s - 1.0)
}

/// `e^x − 1` (`f32::exp_m1`), accurate near 0.
#[device_fn]
pub fn exp_m1_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 100.0 {
        return f32::INFINITY;
    }
    if x < -17.4 {
        // e^x < 2^-25: −1 is the nearest float.
        return -1.0;
    }
    if x.abs() < 1e-8 {
        // x + x²/2 + …: x is within 2^-27 relative, and keeps the sign of a zero.
        return x;
    }
    if x.abs() < 0.5 {
        // Directly: 2^k·p + (2^k − 1) would cancel for k = ±1 here.
        let mut p = x.mul_add(2.755_732e-7, 2.755_731_9e-6);
        p = x.mul_add(p, 2.480_158_8e-5);
        p = x.mul_add(p, 1.984_127e-4);
        p = x.mul_add(p, 1.388_888_9e-3);
        p = x.mul_add(p, 8.333_334e-3);
        p = x.mul_add(p, 4.166_666_8e-2);
        p = x.mul_add(p, 0.166_666_67);
        p = x.mul_add(p, 0.5);
        return (x * x).mul_add(p, x);
    }
    let n = (x * LOG2_E_F32).round_ties_even();
    let r_hi = (-n).mul_add(LN2_HI_F32, x);
    let r = (-n).mul_add(LN2_LO_F32, r_hi);
    let r_err = (-n).mul_add(LN2_LO_F32, r_hi - r);
    let small = expm1_tail_f32(r) + r_err.mul_add(r, r_err);
    let k = n as i32;
    if k > 24 {
        // 2^k − 1 is not a float: 2^k·(e^r − 2^-k), with 1 + r split exactly and 2^-k among
        // the small terms, rounded once.
        let s = 1.0 + r;
        let s_err = (1.0 - s) + r;
        return scale_f32(s + ((s_err - scale_f32(1.0, -k)) + small), k);
    }
    // e^x − 1 = 2^k·p + (2^k − 1): the difference is exact for −24 ≤ k ≤ 24.
    let s = scale_f32(1.0, k);
    s.mul_add(r + small, s - 1.0)
}
