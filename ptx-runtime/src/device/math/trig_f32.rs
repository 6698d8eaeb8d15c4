//! `f32` `sin`, `cos`, `tan` in `f32` arithmetic.
//!
//! The argument is reduced to `hi + lo`, `|hi| ≲ π/4`, and a quadrant (see `reduce_f32`);
//! `sin` and `cos` of it come from their Taylor polynomials (to `r^11` and `r^12`: truncation
//! below 2^-28 relative), with `lo` as a first-order correction and `cos`'s `1 − r²/2` summed
//! exactly, so the one rounding of size is the last addition. `tan` is their quotient.

use super::reduce_f32::{rem_pio2_f32, rem_pio2_f32_large, ReducedF32, CODY_WAITE_LIMIT, PIO2_1, PIO2_2, PIO2_3, TWO_OVER_PI};
use ptx_runtime::device_fn;

pub(crate) const PIO4: f32 = core::f32::consts::FRAC_PI_4;

/// `sin(hi + lo)` for `|hi| ≤ 0.82`.
#[device_fn]
#[inline(always)]
pub(crate) fn sin_kernel_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let mut p = z.mul_add(-2.505_210_8e-8, 2.755_731_9e-6);
    p = z.mul_add(p, -1.984_127e-4);
    p = z.mul_add(p, 8.333_334e-3);
    p = z.mul_add(p, -0.166_666_67);
    // sin(hi + lo) ≈ sin hi + lo·(1 − hi²/2).
    hi + (hi * z).mul_add(p, lo.mul_add(-0.5 * z, lo))
}

/// `cos(hi + lo)` for `|hi| ≤ 0.82`.
#[device_fn]
#[inline(always)]
pub(crate) fn cos_kernel_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let z_err = hi.mul_add(hi, -z);
    let mut c = z.mul_add(2.087_675_6e-9, -2.755_732e-7);
    c = z.mul_add(c, 2.480_158_8e-5);
    c = z.mul_add(c, -1.388_888_9e-3);
    c = z.mul_add(c, 4.166_666_8e-2);
    // 1 − hi²/2 as w plus its exact rounding error, then the small terms (cos(hi + lo) ≈
    // cos hi − lo·hi).
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let small = (z * z).mul_add(c, (-hi).mul_add(lo, -0.5 * z_err));
    w + (((1.0 - w) - hz) + small)
}

/// `sin x` or (by `cosine`) `cos x` for finite `x`: the Cody–Waite reduction and both
/// polynomials written out (the same arithmetic as `rem_pio2_f32` and the kernels), so an
/// argument below 2^17 costs no call beyond this one.
#[device_fn]
#[inline(always)]
pub(crate) fn sin_cos_f32(x: f32, cosine: bool) -> f32 {
    let red = if x.abs() <= PIO4 {
        ReducedF32 { q: 0, hi: x, lo: 0.0 }
    } else if x.abs() < CODY_WAITE_LIMIT {
        let k = (x * TWO_OVER_PI).round_ties_even();
        let r1 = (-k).mul_add(PIO2_1, x);
        let p2 = k * PIO2_2;
        let p2_err = k.mul_add(PIO2_2, -p2);
        let s = r1 - p2;
        let b = s - r1;
        let e = (r1 - (s - b)) + (-p2 - b);
        let lo = (e - p2_err) - k * PIO2_3;
        let hi = s + lo;
        ReducedF32 { q: (k as i32 & 3) as u32, hi, lo: lo - (hi - s) }
    } else {
        rem_pio2_f32_large(x)
    };
    let q = if cosine { (red.q + 1) & 3 } else { red.q };
    let hi = red.hi;
    let lo = red.lo;
    let z = hi * hi;
    let v = if q & 1 == 0 {
        let mut p = z.mul_add(-2.505_210_8e-8, 2.755_731_9e-6);
        p = z.mul_add(p, -1.984_127e-4);
        p = z.mul_add(p, 8.333_334e-3);
        p = z.mul_add(p, -0.166_666_67);
        hi + (hi * z).mul_add(p, lo.mul_add(-0.5 * z, lo))
    } else {
        let z_err = hi.mul_add(hi, -z);
        let mut c = z.mul_add(2.087_675_6e-9, -2.755_732e-7);
        c = z.mul_add(c, 2.480_158_8e-5);
        c = z.mul_add(c, -1.388_888_9e-3);
        c = z.mul_add(c, 4.166_666_8e-2);
        let hz = 0.5 * z;
        let w = 1.0 - hz;
        let small = (z * z).mul_add(c, (-hi).mul_add(lo, -0.5 * z_err));
        w + (((1.0 - w) - hz) + small)
    };
    if q & 2 == 0 {
        v
    } else {
        -v
    }
}

/// `sin x` (`f32::sin`).
#[device_fn]
pub fn sin_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    if x == 0.0 {
        // sin(−0) is −0, which the polynomial's sums would make +0.
        return x;
    }
    sin_cos_f32(x, false)
}

/// `cos x` (`f32::cos`).
#[device_fn]
pub fn cos_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    sin_cos_f32(x, true)
}

/// `tan x` (`f32::tan`).
#[device_fn]
pub fn tan_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    if x == 0.0 {
        return x;
    }
    let red = if x.abs() <= PIO4 { ReducedF32 { q: 0, hi: x, lo: 0.0 } } else { rem_pio2_f32(x) };
    let s = sin_kernel_f32(red.hi, red.lo);
    let c = cos_kernel_f32(red.hi, red.lo);
    if red.q & 1 == 0 {
        s / c
    } else {
        -c / s
    }
}
