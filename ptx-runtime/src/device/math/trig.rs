//! `sin`, `cos`, `tan`.
//!
//! The argument is reduced to `r` in [−π/4, π/4] and a quadrant (see `reduce`), then `sin r`
//! and `cos r` come from their Taylor polynomials (to `r^17` and `r^16`: truncation below
//! 2^-58 relative), evaluated in `f64` with the reduction's low part as a first-order
//! correction. The `f32` functions are in `trig_f32`.

use super::reduce::{rem_pio2, Reduced};
use ptx_runtime::device_fn;

const PIO4: f64 = core::f64::consts::FRAC_PI_4;

/// `sin(hi + lo)` for `|hi| ≤ π/4`.
#[device_fn]
pub(crate) fn sin_kernel(hi: f64, lo: f64) -> f64 {
    let z = hi * hi;
    let mut p = z.mul_add(2.811_457_254_345_520_6e-15, -7.647_163_731_819_816e-13);
    p = z.mul_add(p, 1.605_904_383_682_161_3e-10);
    p = z.mul_add(p, -2.505_210_838_544_172e-8);
    p = z.mul_add(p, 2.755_731_922_398_589_3e-6);
    p = z.mul_add(p, -1.984_126_984_126_984e-4);
    p = z.mul_add(p, 8.333_333_333_333_333e-3);
    p = z.mul_add(p, -0.166_666_666_666_666_66);
    hi + (hi * z).mul_add(p, lo)
}

/// `cos(hi + lo)` for `|hi| ≤ π/4`.
#[device_fn]
pub(crate) fn cos_kernel(hi: f64, lo: f64) -> f64 {
    let z = hi * hi;
    let mut c = z.mul_add(4.779_477_332_387_385e-14, -1.147_074_559_772_972_5e-11);
    c = z.mul_add(c, 2.087_675_698_786_81e-9);
    c = z.mul_add(c, -2.755_731_922_398_589e-7);
    c = z.mul_add(c, 2.480_158_730_158_73e-5);
    c = z.mul_add(c, -1.388_888_888_888_889e-3);
    c = z.mul_add(c, 4.166_666_666_666_666_4e-2);
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * z).mul_add(c, -(hi * lo)))
}

/// `sin` or `cos` (by `cosine`) of a reduced argument.
#[device_fn]
pub(crate) fn sin_cos_reduced(red: Reduced, cosine: bool) -> f64 {
    let q = if cosine { (red.q + 1) & 3 } else { red.q };
    let v = if q & 1 == 0 { sin_kernel(red.hi, red.lo) } else { cos_kernel(red.hi, red.lo) };
    if q & 2 == 0 {
        v
    } else {
        -v
    }
}

/// `tan` of a reduced argument.
#[device_fn]
pub(crate) fn tan_reduced(red: Reduced) -> f64 {
    let s = sin_kernel(red.hi, red.lo);
    let c = cos_kernel(red.hi, red.lo);
    if red.q & 1 == 0 {
        s / c
    } else {
        -c / s
    }
}

/// `sin x` (`f64::sin`).
#[device_fn]
pub fn sin_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x.abs() <= PIO4 {
        // sin(−0) is −0, which the kernel's sums would make +0.
        return if x == 0.0 { x } else { sin_kernel(x, 0.0) };
    }
    sin_cos_reduced(rem_pio2(x), false)
}

/// `cos x` (`f64::cos`).
#[device_fn]
pub fn cos_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x.abs() <= PIO4 {
        return cos_kernel(x, 0.0);
    }
    sin_cos_reduced(rem_pio2(x), true)
}

/// `tan x` (`f64::tan`).
#[device_fn]
pub fn tan_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return x;
    }
    if x.abs() <= PIO4 {
        return tan_reduced(Reduced { q: 0, hi: x, lo: 0.0 });
    }
    tan_reduced(rem_pio2(x))
}
