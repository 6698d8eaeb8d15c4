//! Argument reduction for the `f32` trigonometric functions, in `f32` and integer arithmetic:
//! `x = (4k + q)·π/2 + hi + lo`, `|hi| ≤ π/4` (a little more near the Cody–Waite limit).
//!
//! Below 2^17, Cody–Waite: `π/2` in three `f32` pieces, the first with 24 bits and an exact
//! `x − k·piece` (both multiples of 2^-24, the difference below 1), the second's product and
//! difference kept exactly, so `hi + lo` is good to about 2^-56 absolute, while no `f32` lies
//! closer than 2^-29.2 to a multiple of π/2 (7.729179e28; below 2^17, 252.89821 at 2^-27.8). Above, Payne–Hanek in 32-bit
//! limbs: the 24-bit significand times the 128 bits of `2/π` that matter for its exponent
//! gives `x·2/π mod 4` with at least 95 bits of fraction, of which the top 64 become `r`.

use super::reduce::{limbs64, two_over_pi_word};
use ptx_runtime::{device_fn, DeviceRepr};

pub(crate) const TWO_OVER_PI: f32 = core::f32::consts::FRAC_2_PI;
/// Where Cody–Waite stops and Payne–Hanek takes over: 2^17.
pub(crate) const CODY_WAITE_LIMIT: f32 = 131_072.0;
/// `π/2` truncated to 24 bits (0x3fc90fda), and the next two pieces.
#[allow(clippy::approx_constant)]
pub(crate) const PIO2_1: f32 = 1.570_796_3;
pub(crate) const PIO2_2: f32 = 7.549_79e-8;
pub(crate) const PIO2_3: f32 = -1.715_124_5e-15;
pub(crate) const PIO2_HI: f32 = core::f32::consts::FRAC_PI_2;
pub(crate) const PIO2_LO: f32 = -4.371_139e-8;

/// `x ≈ (4k + q)·π/2 + hi + lo`.
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub(crate) struct ReducedF32 {
    pub q: u32,
    pub hi: f32,
    pub lo: f32,
}

/// Reduces a finite `x`: exact quadrant, `hi + lo` to about 2^-40 relative.
#[device_fn]
#[inline(always)]
pub(crate) fn rem_pio2_f32(x: f32) -> ReducedF32 {
    if x.abs() < CODY_WAITE_LIMIT {
        let k = (x * TWO_OVER_PI).round_ties_even();
        let r1 = (-k).mul_add(PIO2_1, x);
        let p2 = k * PIO2_2;
        let p2_err = k.mul_add(PIO2_2, -p2);
        // r1 − p2 as an exact sum of two floats, then the small terms.
        let s = r1 - p2;
        let b = s - r1;
        let e = (r1 - (s - b)) + (-p2 - b);
        let lo = (e - p2_err) - k * PIO2_3;
        let hi = s + lo;
        return ReducedF32 { q: (k as i32 & 3) as u32, hi, lo: lo - (hi - s) };
    }
    rem_pio2_f32_large(x)
}

/// Payne–Hanek reduction of a finite `x` with `|x| ≥ 2^17`.
#[device_fn]
pub(crate) fn rem_pio2_f32_large(x: f32) -> ReducedF32 {
    let bits = x.to_bits();
    let negative = (bits >> 31) != 0;
    let m = ((bits & 0x007f_ffff) | 0x0080_0000) as u64;
    let e = ((bits >> 23) & 0xff) as i32 - 150;
    // x·2/π = m·2^e·Σ W[i]·2^(−32(i+1)); the words before `j` add multiples of 4.
    let j: i32 = if e >= 2 { (e - 2) / 32 } else { 0 };
    // acc = Σ m·W[j+k]·2^(32(3−k)) in 32-bit limbs, least significant first.
    let mut acc = [0u64; 7];
    for k in 0..4usize {
        let p = m * two_over_pi_word(j as u32 + k as u32) as u64;
        acc[3 - k] += p & 0xffff_ffff;
        acc[4 - k] += p >> 32;
    }
    for i in 0..6usize {
        acc[i + 1] += acc[i] >> 32;
        acc[i] &= 0xffff_ffff;
    }
    // x·2/π = acc·2^(e − 32j − 128): the binary point is at bit 128 + 32j − e of acc.
    let bp = (128 + 32 * j - e) as u32;
    let mut q = (limbs64(acc, bp) & 3) as u32;
    let mut frac = limbs64(acc, bp - 64);
    // A fraction of a half or more counts from the next quadrant down: negate it.
    let below = frac >> 63 != 0;
    if below {
        q = (q + 1) & 3;
        frac = (!frac).wrapping_add(1);
    }
    // The fraction (below 2^63) as a double-float, times 2^-64, times π/2.
    let f_hi = frac as f32;
    let f_lo = (frac.wrapping_sub(f_hi as u64) as i64) as f32;
    let scale = 5.421_011e-20;
    let a = f_hi * scale;
    let b = f_lo * scale;
    let hi = a * PIO2_HI;
    let lo = a.mul_add(PIO2_HI, -hi) + a.mul_add(PIO2_LO, b * PIO2_HI);
    let mut h = hi + lo;
    let mut l = lo - (h - hi);
    if below {
        h = -h;
        l = -l;
    }
    if negative {
        ReducedF32 { q: (4 - q) & 3, hi: -h, lo: -l }
    } else {
        ReducedF32 { q, hi: h, lo: l }
    }
}
