//! `f32` `powf` and `hypot` in `f32` arithmetic.
//!
//! `powf` follows C's `powf` for every special case and computes `2^(y · log₂ |x|)` with
//! `log₂ |x|` (see `log_f32`, about 2^-44) and the product as double-floats, and `2^t` of a
//! double-float `t` rounded once: a result below 2^128 needs `|t| < 150`, so the product's
//! error stays below 2^-35 and the one rounding of size is the last. `hypot` scales by a power
//! of two and takes the square root of an `fma`.

use super::exp::{expm1_tail_f32, scale_f32};
use super::log_f32::{log_parts, times};
use super::pow::is_odd_integer_f32;
use ptx_runtime::device_fn;

const LOG2_E_HI: f32 = core::f32::consts::LOG2_E;
const LOG2_E_LO: f32 = 1.925_963e-8;
const LN2_HI: f32 = core::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_2e-9;

/// `2^(hi + lo)` for a double-float argument, rounded once.
#[device_fn]
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

/// `x^y` (`f32::powf`).
#[device_fn]
pub fn powf_f32(x: f32, y: f32) -> f32 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let odd = is_odd_integer_f32(y);
    if x == 0.0 {
        let mag = if y < 0.0 { f32::INFINITY } else { 0.0 };
        return if odd { mag.copysign(x) } else { mag };
    }
    if y.is_infinite() {
        let ax = x.abs();
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax > 1.0) == (y > 0.0) { f32::INFINITY } else { 0.0 };
    }
    if x.is_infinite() {
        let mag = if y < 0.0 { 0.0 } else { f32::INFINITY };
        return if x < 0.0 && odd { -mag } else { mag };
    }
    if x < 0.0 && y != y.trunc() {
        return f32::NAN;
    }
    // log₂|x| = e + ln(1 + f)·log₂ e, a double-float (e is exact and dominates when e ≠ 0).
    let l = log_parts(x.abs());
    let m = times(l, LOG2_E_HI, LOG2_E_LO);
    let s = l.e + m.hi;
    let b = s - l.e;
    let l_lo = ((l.e - (s - b)) + (m.hi - b)) + m.lo;
    let l_hi = s + l_lo;
    let l_lo = l_lo - (l_hi - s);
    // t = y·log₂|x| as a double-float.
    let t_hi = y * l_hi;
    let t_lo = y.mul_add(l_hi, -t_hi) + y * l_lo;
    let v = exp2_df(t_hi, t_lo);
    if x < 0.0 && odd {
        -v
    } else {
        v
    }
}

/// `√(x² + y²)` (`f32::hypot`) without overflow or underflow on the way.
#[device_fn]
pub fn hypot_f32(x: f32, y: f32) -> f32 {
    let ax = x.abs();
    let ay = y.abs();
    if ax.is_infinite() || ay.is_infinite() {
        return f32::INFINITY;
    }
    if ax.is_nan() || ay.is_nan() {
        return ax + ay;
    }
    let a = ax.max(ay);
    let b = ax.min(ay);
    if b == 0.0 {
        return a;
    }
    // Scale by 2^-e so the larger is near 1: exact, and b·s at worst underflows when b ≪ a.
    // 2^-127 is not a normal number, so the top binade scales by 2^-126 (into 2..4).
    let e = ((a.to_bits() >> 23) as i32 - 127).clamp(-100, 126);
    let s = f32::from_bits(((127 - e) as u32) << 23);
    let t = f32::from_bits(((127 + e) as u32) << 23);
    let sa = a * s;
    let sb = b * s;
    sa.mul_add(sa, sb * sb).sqrt() * t
}
