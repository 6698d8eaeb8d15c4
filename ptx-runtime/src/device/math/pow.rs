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
pub(crate) const LN2_HI_32: f64 = 6.931_471_803_691_238e-1;
pub(crate) const LN2_LO_32: f64 = 1.908_214_929_270_587_7e-10;

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
#[inline(always)]
pub(crate) fn is_odd_integer_f32(y: f32) -> bool {
    y.is_finite() && y == y.trunc() && (y * 0.5) != (y * 0.5).trunc()
}

/// `$name(x, y)`: `x^y` with C's `pow` special cases (NaN, ±0, ±∞, `x = 1`, `y = 0`, a
/// negative `x` with a non-integer `y`) taken first and `$core(|x|, y)` computing the rest,
/// negated for a negative `x` with an odd integer `y`. One shape for `powf_f64` (here) and
/// `powf_f32` (`pow_f32`); `$core` is an `#[inline(always)]` function of the invoking module.
macro_rules! powf_with_c_cases {
    ($(#[$doc:meta])* $name:ident($F:ident), odd: $odd:ident, core: $core:ident) => {
        $(#[$doc])*
        #[device_fn]
        pub fn $name(x: $F, y: $F) -> $F {
            if y == 0.0 || x == 1.0 {
                return 1.0;
            }
            if x.is_nan() || y.is_nan() {
                return x + y;
            }
            let odd = $odd(y);
            if x == 0.0 {
                let mag = if y < 0.0 { $F::INFINITY } else { 0.0 };
                return if odd { mag.copysign(x) } else { mag };
            }
            if y.is_infinite() {
                let ax = x.abs();
                if ax == 1.0 {
                    return 1.0;
                }
                return if (ax > 1.0) == (y > 0.0) { $F::INFINITY } else { 0.0 };
            }
            if x.is_infinite() {
                let mag = if y < 0.0 { 0.0 } else { $F::INFINITY };
                return if x < 0.0 && odd { -mag } else { mag };
            }
            if x < 0.0 && y != y.trunc() {
                return $F::NAN;
            }
            let v = $core(x.abs(), y);
            if x < 0.0 && odd {
                -v
            } else {
                v
            }
        }
    };
}

pub(crate) use powf_with_c_cases;

/// `exp(y · ln ax)` for finite `ax > 0` and `y`, with `ln ax` and the product as
/// double-doubles.
#[device_fn]
#[inline(always)]
fn powf_core_f64(ax: f64, y: f64) -> f64 {
    let l = log_dd(ax);
    let p_hi = y * l.hi;
    let p_lo = y.mul_add(l.hi, -p_hi) + y * l.lo;
    exp_dd(p_hi, p_lo)
}

powf_with_c_cases! {
    /// `x^y` (`f64::powf`).
    powf_f64(f64), odd: is_odd_integer, core: powf_core_f64
}

/// `$name(x, n)`: `x^n` by compiler-rt's square-and-multiply, for `$F`.
macro_rules! powi {
    ($(#[$doc:meta])* $name:ident($F:ident)) => {
        $(#[$doc])*
        #[device_fn]
        pub fn $name(x: $F, n: i32) -> $F {
            let recip = n < 0;
            let mut a = x;
            let mut b = n;
            let mut r: $F = 1.0;
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
    };
}

powi! {
    /// `x^n` (`f32::powi`): compiler-rt's `__powisf2`.
    powi_f32(f32)
}

powi! {
    /// `x^n` (`f64::powi`): compiler-rt's `__powidf2`.
    powi_f64(f64)
}

/// `$name(x, y)`: `√(x² + y²)` without overflow or underflow on the way, for `$F` (bits
/// `$U`, exponent field from bit `$mant`, bias `$bias`, its signed type `$I`).
///
/// Scales by `2^-e` so the larger is near 1: exact, and `b·s` at worst underflows when `b ≪ a`.
/// `2^-bias` is not a normal number, so the top binade scales by `2^(1 - bias)` (into 2..4):
/// `e` is clamped to `$clamp`.
macro_rules! hypot {
    ($(#[$doc:meta])* $name:ident($F:ident), bits: $U:ident, exponent: $I:ident, mant: $mant:tt, bias: $bias:tt, clamp: $clamp:tt) => {
        $(#[$doc])*
        #[device_fn]
        pub fn $name(x: $F, y: $F) -> $F {
            let ax = x.abs();
            let ay = y.abs();
            if ax.is_infinite() || ay.is_infinite() {
                return $F::INFINITY;
            }
            if ax.is_nan() || ay.is_nan() {
                return ax + ay;
            }
            let a = ax.max(ay);
            let b = ax.min(ay);
            if b == 0.0 {
                return a;
            }
            let e = ((a.to_bits() >> $mant) as $I - $bias).clamp $clamp;
            let s = $F::from_bits((($bias - e) as $U) << $mant);
            let t = $F::from_bits((($bias + e) as $U) << $mant);
            let sa = a * s;
            let sb = b * s;
            sa.mul_add(sa, sb * sb).sqrt() * t
        }
    };
}

pub(crate) use hypot;

hypot! {
    /// `√(x² + y²)` (`f64::hypot`) without overflow or underflow on the way.
    hypot_f64(f64), bits: u64, exponent: i64, mant: 52, bias: 1023, clamp: (-1000, 1022)
}

/// `$name(x, y)`: `x % y`, the exact remainder with the sign of `x` (C's `fmod`), for `$F`.
macro_rules! fmod {
    ($(#[$doc:meta])* $name:ident($F:ident)) => {
        $(#[$doc])*
        #[device_fn]
        pub fn $name(x: $F, y: $F) -> $F {
            if y == 0.0 || x.is_nan() || y.is_nan() || x.is_infinite() {
                return $F::NAN;
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
    };
}

fmod! {
    /// `x % y` for `f64`: the exact remainder with the sign of `x` (C's `fmod`).
    fmod_f64(f64)
}

fmod! {
    /// `x % y` for `f32` (C's `fmodf`), exact.
    fmod_f32(f32)
}
