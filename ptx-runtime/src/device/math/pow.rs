//! `f64` `powf` and `hypot`, `powi`, and `%` on floats (`fmod`); `pow_f32` has the `f32` ones.
//!
//! `powf` follows C's `pow` for every special case and computes `exp(y · ln |x|)` with
//! `ln |x|` and the product as double-doubles, so the one rounding left is `exp`'s. `powi`
//! is compiler-rt's square-and-multiply, which is what `f32::powi` runs on the host. `hypot`
//! scales by a power of two and takes the square root of an `fma`. `fmod` is exact: it
//! subtracts `|y|·2^k` for falling `k` (each subtraction exact).

use super::exp::{expm1_tail_f64, scale_f64};
use super::log::log_dd;
use ptx_runtime::device_fn;

/// `ln 2` in two parts: the first has 32 significant bits (`0x3fe62e42_fee00000`), so
/// `n · LN2_HI_32` is exact for every `n` reached here, and `x − n · LN2_HI_32` is exact too.
const LN2_HI_32: f64 = 6.931_471_803_691_238e-1;
const LN2_LO_32: f64 = 1.908_214_929_270_587_7e-10;

/// `exp(hi + lo)` for a double-double argument, rounded once (≤ 0.65 ulp).
///
/// The reduced argument `r = hi + lo − n·ln 2` is kept as a double-double (`a` exact, the
/// `n·LN2_LO_32` product and `lo − b` off by < 2^-70), and `e^r` is assembled as
/// `(1 + r) + (err + tail(r) + r_lo·(1 + r))` with `1 + r` split exactly, so the only
/// rounding of size is the last addition. `exp(hi)·(1 + lo)` instead rounds twice (two-ulp
/// misses seen by the differential tester for `powf` with results near 1e261).
#[device_fn]
pub(crate) fn exp_dd(hi: f64, lo: f64) -> f64 {
    if hi > 710.0 {
        return f64::INFINITY;
    }
    if hi < -746.0 {
        return 0.0;
    }
    let n = (hi * core::f64::consts::LOG2_E).round_ties_even();
    let a = (-n).mul_add(LN2_HI_32, hi);
    let c = lo - n * LN2_LO_32;
    // Two-sum: r + r_lo == a + c exactly.
    let r = a + c;
    let v = r - a;
    let r_lo = (a - (r - v)) + (c - v);
    // Fast two-sum (|1| ≥ |r|): s + s_err == 1 + r exactly.
    let s = 1.0 + r;
    let s_err = (1.0 - s) + r;
    let p = s + (s_err + (expm1_tail_f64(r) + r_lo.mul_add(r, r_lo)));
    scale_f64(p, n as i32)
}

/// Whether `y` is an integer, and odd.
#[device_fn]
pub(crate) fn is_odd_integer(y: f64) -> bool {
    y.is_finite() && y == y.trunc() && (y * 0.5) != (y * 0.5).trunc()
}

/// Whether `y` is an integer, and odd (every `f32` from 2^24 up is even).
#[device_fn]
pub(crate) fn is_odd_integer_f32(y: f32) -> bool {
    y.is_finite() && y == y.trunc() && (y * 0.5) != (y * 0.5).trunc()
}

/// `x^y` (`f64::powf`).
#[device_fn]
pub fn powf_f64(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let odd = is_odd_integer(y);
    if x == 0.0 {
        let mag = if y < 0.0 { f64::INFINITY } else { 0.0 };
        return if odd { mag.copysign(x) } else { mag };
    }
    if y.is_infinite() {
        let ax = x.abs();
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax > 1.0) == (y > 0.0) { f64::INFINITY } else { 0.0 };
    }
    if x.is_infinite() {
        let mag = if y < 0.0 { 0.0 } else { f64::INFINITY };
        return if x < 0.0 && odd { -mag } else { mag };
    }
    if x < 0.0 && y != y.trunc() {
        return f64::NAN;
    }
    let l = log_dd(x.abs());
    let p_hi = y * l.hi;
    let p_lo = y.mul_add(l.hi, -p_hi) + y * l.lo;
    let v = exp_dd(p_hi, p_lo);
    if x < 0.0 && odd {
        -v
    } else {
        v
    }
}

/// `x^n` (`f32::powi`): compiler-rt's `__powisf2`.
#[device_fn]
pub fn powi_f32(x: f32, n: i32) -> f32 {
    let recip = n < 0;
    let mut a = x;
    let mut b = n;
    let mut r = 1.0f32;
    loop {
        if b & 1 != 0 {
            r *= a;
        }
        b /= 2;
        if b == 0 {
            break;
        }
        a *= a;
    }
    if recip {
        1.0 / r
    } else {
        r
    }
}

/// `x^n` (`f64::powi`): compiler-rt's `__powidf2`.
#[device_fn]
pub fn powi_f64(x: f64, n: i32) -> f64 {
    let recip = n < 0;
    let mut a = x;
    let mut b = n;
    let mut r = 1.0f64;
    loop {
        if b & 1 != 0 {
            r *= a;
        }
        b /= 2;
        if b == 0 {
            break;
        }
        a *= a;
    }
    if recip {
        1.0 / r
    } else {
        r
    }
}

/// `√(x² + y²)` (`f64::hypot`) without overflow or underflow on the way.
#[device_fn]
pub fn hypot_f64(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax.is_infinite() || ay.is_infinite() {
        return f64::INFINITY;
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
    // 2^-1023 is not a normal number, so the top binade scales by 2^-1022 (into 2..4).
    let e = ((a.to_bits() >> 52) as i64) - 1023;
    let e = e.clamp(-1000, 1022);
    let s = f64::from_bits(((1023 - e) as u64) << 52);
    let t = f64::from_bits(((1023 + e) as u64) << 52);
    let (sa, sb) = (a * s, b * s);
    sa.mul_add(sa, sb * sb).sqrt() * t
}

/// `x % y` for `f64`: the exact remainder with the sign of `x` (C's `fmod`).
#[device_fn]
pub fn fmod_f64(x: f64, y: f64) -> f64 {
    if y == 0.0 || x.is_nan() || y.is_nan() || x.is_infinite() {
        return f64::NAN;
    }
    let ax = x.abs();
    let ay = y.abs();
    if ax < ay || y.is_infinite() {
        return x;
    }
    let mut t = ay;
    while t <= ax - t {
        t += t;
    }
    let mut r = ax;
    loop {
        if r >= t {
            r -= t;
        }
        if t == ay {
            break;
        }
        t *= 0.5;
    }
    r.copysign(x)
}

/// `x % y` for `f32` (C's `fmodf`), exact.
#[device_fn]
pub fn fmod_f32(x: f32, y: f32) -> f32 {
    if y == 0.0 || x.is_nan() || y.is_nan() || x.is_infinite() {
        return f32::NAN;
    }
    let ax = x.abs();
    let ay = y.abs();
    if ax < ay || y.is_infinite() {
        return x;
    }
    let mut t = ay;
    while t <= ax - t {
        t += t;
    }
    let mut r = ax;
    loop {
        if r >= t {
            r -= t;
        }
        if t == ay {
            break;
        }
        t *= 0.5;
    }
    r.copysign(x)
}
