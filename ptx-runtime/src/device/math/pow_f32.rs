//! `f32` `powf` and `hypot` in `f32` arithmetic.
//!
//! `powf` follows C's `powf` for every special case and computes `2^(y · log₂ |x|)` with
//! `log₂ |x|` (see `log_f32`, about 2^-44) and the product as double-floats, and `2^t` of a
//! double-float `t` rounded once: a result below 2^128 needs `|t| < 150`, so the product's
//! error stays below 2^-35 and the one rounding of size is the last. `hypot` scales by a power
//! of two and takes the square root of an `fma`.

use super::exp::{expm1_tail_f32, scale_f32};
use super::log_f32::{log_parts, times};
use super::pow::{hypot, is_odd_integer_f32, powf_with_c_cases};
use ptx_runtime::device_fn;

pub(crate) const LOG2_E_HI: f32 = core::f32::consts::LOG2_E;
pub(crate) const LOG2_E_LO: f32 = 1.925_963e-8;
pub(crate) const LN2_HI: f32 = core::f32::consts::LN_2;
pub(crate) const LN2_LO: f32 = -1.904_654_2e-9;

/// `2^(hi + lo)` for a double-float argument, rounded once.
#[device_fn]
#[inline(always)]
pub(crate) fn exp2_df(hi: f32, lo: f32) -> f32 {
    if hi >= 129.0 {
        return f32::INFINITY;
    }
    if hi < -152.0 {
        return 0.0;
    }
    let n = hi.round_ties_even();
    // Two-sum: g + g_lo == (hi − n) + lo exactly (hi − n is exact).
    let f = hi - n;
    let g = f + lo;
    let v = g - f;
    let g_lo = (f - (g - v)) + (lo - v);
    // r + r_lo = (g + g_lo)·ln 2.
    let r = g * LN2_HI;
    let r_lo = g.mul_add(LN2_HI, -r) + g.mul_add(LN2_LO, g_lo * LN2_HI);
    // e^(r + r_lo) = (1 + r) + tail(r) + r_lo·(1 + r), with 1 + r split exactly.
    let s = 1.0 + r;
    let s_err = (1.0 - s) + r;
    let p = s + (s_err + (expm1_tail_f32(r) + r_lo.mul_add(r, r_lo)));
    scale_f32(p, n as i32)
}

/// `2^(y · log₂ ax)` for finite `ax > 0` and `y`, with `log₂ ax` and the product as
/// double-floats.
#[device_fn]
#[inline(always)]
fn powf_core_f32(ax: f32, y: f32) -> f32 {
    // log₂ ax = e + ln(1 + f)·log₂ e, a double-float (e is exact and dominates when e ≠ 0).
    let l = log_parts(ax);
    let m = times(l, LOG2_E_HI, LOG2_E_LO);
    let s = l.e + m.hi;
    let b = s - l.e;
    let l_lo = ((l.e - (s - b)) + (m.hi - b)) + m.lo;
    let l_hi = s + l_lo;
    let l_lo = l_lo - (l_hi - s);
    // t = y·log₂ ax as a double-float.
    let t_hi = y * l_hi;
    let t_lo = y.mul_add(l_hi, -t_hi) + y * l_lo;
    exp2_df(t_hi, t_lo)
}

powf_with_c_cases! {
    /// `x^y` (`f32::powf`).
    powf_f32(f32), odd: is_odd_integer_f32, core: powf_core_f32
}

hypot! {
    /// `√(x² + y²)` (`f32::hypot`) without overflow or underflow on the way.
    hypot_f32(f32), bits: u32, exponent: i32, mant: 23, bias: 127, clamp: (-100, 126)
}
