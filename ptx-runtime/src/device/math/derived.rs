//! `log(base)`, `rem_euclid`, `div_euclid`, `midpoint`, `next_up`, `next_down`, `is_normal`,
//! `is_subnormal`: the float methods `std` defines from others, written as `std` writes them, so
//! a kernel's result is the host's wherever the parts agree (`%` and `/` are exact or correctly
//! rounded on both; `ln` on an `f32` is CUDA's `logf` on the device). Each is
//! `#[inline(always)]`: a few operations where it is called. One shape for both types where
//! `std`'s are the same, a macro each.

use ptx_runtime::device_fn;

/// `x.log(base)`: `ln x / ln base`, with `$ln`.
macro_rules! log_base {
    ($name:ident($F:ident), $ln:path) => {
        #[doc = concat!("`x.log(base)` (`", stringify!($F), "::log`): `ln x / ln base`.")]
        #[device_fn]
        #[inline(always)]
        pub fn $name(x: $F, base: $F) -> $F {
            $ln(x) / $ln(base)
        }
    };
}

log_base!(log_base_f32(f32), ::ptx_runtime::device::math::cuda::logf);
log_base!(log_base_f64(f64), ::ptx_runtime::device::math::ln_f64);

/// `rem_euclid`: the remainder made non-negative; `div_euclid`: the truncated quotient, one
/// step down (or up, for a negative `y`) where the remainder is negative.
macro_rules! euclid {
    ($rem:ident, $div:ident, $F:ident) => {
        #[doc = concat!("`x.rem_euclid(y)` (`", stringify!($F), "::rem_euclid`).")]
        #[device_fn]
        #[inline(always)]
        pub fn $rem(x: $F, y: $F) -> $F {
            let r = x % y;
            if r < 0.0 {
                r + y.abs()
            } else {
                r
            }
        }

        #[doc = concat!("`x.div_euclid(y)` (`", stringify!($F), "::div_euclid`).")]
        #[device_fn]
        #[inline(always)]
        pub fn $div(x: $F, y: $F) -> $F {
            let q = (x / y).trunc();
            if x % y < 0.0 {
                if y > 0.0 {
                    q - 1.0
                } else {
                    q + 1.0
                }
            } else {
                q
            }
        }
    };
}

euclid!(rem_euclid_f32, div_euclid_f32, f32);
euclid!(rem_euclid_f64, div_euclid_f64, f64);

/// `next_up`, `next_down` (NaN and the infinity in the direction of the step are themselves;
/// from zero, the least subnormal of the direction's sign), `is_normal`, `is_subnormal`: on
/// the bits, with the exponent field `$exp` and the sign bit `$sign`.
macro_rules! bits {
    ($F:ident, sign: $sign:expr, exp: $exp:expr, $up:ident, $down:ident, $normal:ident, $subnormal:ident) => {
        #[doc = concat!("`x.next_up()` (`", stringify!($F), "::next_up`): the least `", stringify!($F), "` above `x`.")]
        #[device_fn]
        #[inline(always)]
        pub fn $up(x: $F) -> $F {
            let bits = x.to_bits();
            let abs = bits & !$sign;
            if abs > $exp || bits == $exp {
                return x;
            }
            $F::from_bits(if abs == 0 {
                1
            } else if bits == abs {
                bits.wrapping_add(1)
            } else {
                bits.wrapping_sub(1)
            })
        }

        #[doc = concat!("`x.next_down()` (`", stringify!($F), "::next_down`): the greatest `", stringify!($F), "` below `x`.")]
        #[device_fn]
        #[inline(always)]
        pub fn $down(x: $F) -> $F {
            let bits = x.to_bits();
            let abs = bits & !$sign;
            if abs > $exp || bits == $sign | $exp {
                return x;
            }
            $F::from_bits(if abs == 0 {
                $sign | 1
            } else if bits == abs {
                bits.wrapping_sub(1)
            } else {
                bits.wrapping_add(1)
            })
        }

        #[doc = concat!("`x.is_normal()` (`", stringify!($F), "::is_normal`): neither zero, subnormal, infinite nor NaN.")]
        #[device_fn]
        #[inline(always)]
        pub fn $normal(x: $F) -> bool {
            let e = x.to_bits() & $exp;
            e != 0 && e != $exp
        }

        #[doc = concat!("`x.is_subnormal()` (`", stringify!($F), "::is_subnormal`): a zero exponent and a nonzero significand.")]
        #[device_fn]
        #[inline(always)]
        pub fn $subnormal(x: $F) -> bool {
            let bits = x.to_bits() & !$sign;
            bits & $exp == 0 && bits != 0
        }
    };
}

bits!(f32, sign: 0x8000_0000u32, exp: 0x7F80_0000u32, next_up_f32, next_down_f32, is_normal_f32, is_subnormal_f32);
bits!(f64, sign: 0x8000_0000_0000_0000u64, exp: 0x7FF0_0000_0000_0000u64, next_up_f64, next_down_f64, is_normal_f64, is_subnormal_f64);

/// `x.midpoint(y)` (`f32::midpoint`): `(x + y) / 2` in `f64`, rounded once.
#[device_fn]
#[inline(always)]
pub fn midpoint_f32(x: f32, y: f32) -> f32 {
    ((x as f64 + y as f64) / 2.0) as f32
}

/// `x.midpoint(y)` (`f64::midpoint`): `(x + y) / 2` without overflow or a lost subnormal.
#[device_fn]
#[inline(always)]
pub fn midpoint_f64(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    let hi = f64::from_bits(0x7FDF_FFFF_FFFF_FFFF);
    let lo = f64::from_bits(0x0020_0000_0000_0000);
    if ax <= hi && ay <= hi {
        (x + y) / 2.0
    } else if ax < lo {
        x + y / 2.0
    } else if ay < lo {
        x / 2.0 + y
    } else {
        x / 2.0 + y / 2.0
    }
}
