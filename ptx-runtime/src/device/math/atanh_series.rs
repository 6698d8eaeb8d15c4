//! The series both logarithms evaluate (`log` in `f64`, `log_f32` in `f32`), written once.
//!
//! For `1 + f` in [√½, √2] (`f` exact) and `s = f / (2 + f)`,
//! `ln(1 + f) = 2·atanh s = 2s·(1 + w)` with `w = z/3 + z²/5 + …` and `z = s²`
//! (`|s| ≤ 0.172`, `|z| ≤ 0.0295`). `s`, `z`, `w` and the result are pairs of floats
//! (double-double, double-float); the tail `z²·(1/7 + z/9 + …)` is one float, its rounding
//! below the pair's precision. `atanh_series!` stamps the function for one type, with that
//! type's pair struct, two-part `1/3` and `1/5 − 0.2`, and the tail's coefficients from the
//! highest down (their number sets the degree). The function is `#[inline(always)]`: the one
//! caller of each (in the module that invokes the macro, whose names the body resolves in)
//! compiles as it did with the series written in its body.

/// `$name(f)`: `ln(1 + f)` as an unnormalized pair `hi + lo` (`2·(s + s·w)`, `|lo|` small
/// beside `|hi|`); see the module's documentation.
macro_rules! atanh_series {
    ($(#[$doc:meta])* $name:ident($F:ident) -> $D:ident, third: ($third_hi:ident, $third_lo:ident), fifth_lo: $fifth_lo:ident, tail: [$c0:tt, $c1:tt $(, $c:tt)*]) => {
        $(#[$doc])*
        #[device_fn]
        #[inline(always)]
        pub(crate) fn $name(f: $F) -> $D {
            let d_hi = 2.0 + f;
            let d_lo = f - (d_hi - 2.0);
            let s_hi = f / d_hi;
            let s_lo = ((-s_hi).mul_add(d_hi, f) - s_hi * d_lo) / d_hi;
            let z_hi = s_hi * s_hi;
            let z_lo = s_hi.mul_add(s_hi, -z_hi) + 2.0 * s_hi * s_lo;
            // The tail z²·(1/7 + z/9 + …) in one float.
            let mut r = z_hi.mul_add($c0, $c1);
            $(r = z_hi.mul_add(r, $c);)*
            // q5 = 1/5 + z·r, q3 = 1/3 + z·q5, w = z·q3, each a pair (u is z times the last).
            let u_hi = z_hi * r;
            let u_lo = z_hi.mul_add(r, -u_hi) + z_lo * r;
            let q5_hi = 0.2 + u_hi;
            let q5_lo = ((0.2 - q5_hi) + u_hi) + (u_lo + $fifth_lo);
            let u_hi = z_hi * q5_hi;
            let u_lo = z_hi.mul_add(q5_hi, -u_hi) + (z_hi * q5_lo + z_lo * q5_hi);
            let q3_hi = $third_hi + u_hi;
            let q3_lo = (($third_hi - q3_hi) + u_hi) + (u_lo + $third_lo);
            let w_hi = z_hi * q3_hi;
            let w_lo = z_hi.mul_add(q3_hi, -w_hi) + (z_hi * q3_lo + z_lo * q3_hi);
            // s·w, then s + s·w (|s| ≥ |s·w|), doubled exactly.
            let p_hi = s_hi * w_hi;
            let p_lo = s_hi.mul_add(w_hi, -p_hi) + (s_hi * w_lo + s_lo * w_hi);
            let a = s_hi + p_hi;
            let a_err = (s_hi - a) + p_hi;
            let lo = 2.0 * (a_err + (s_lo + p_lo));
            $D { hi: 2.0 * a, lo }
        }
    };
}

pub(crate) use atanh_series;
