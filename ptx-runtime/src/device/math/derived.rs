//! `log(base)`, `rem_euclid`, `div_euclid`, `midpoint`, `next_up`, `next_down`, `is_normal`,
//! `is_subnormal`: the float methods `std` defines from others, written as `std` writes them, so
//! a kernel's result is the host's wherever the parts agree (`%` and `/` are exact or correctly
//! rounded on both; `ln` on an `f32` is CUDA's `logf` on the device). Each is
//! `#[inline(always)]`: a few operations where it is called.

use ptx_runtime::device_fn;

/// `x.log(base)` (`f32::log`): `ln x / ln base`, with CUDA's `logf`.
#[device_fn]
#[inline(always)]
pub fn log_base_f32(x: f32, base: f32) -> f32 {
    ::ptx_runtime::device::math::cuda::logf(x) / ::ptx_runtime::device::math::cuda::logf(base)
}

/// `x.log(base)` (`f64::log`): `ln x / ln base`.
#[device_fn]
#[inline(always)]
pub fn log_base_f64(x: f64, base: f64) -> f64 {
    ::ptx_runtime::device::math::ln_f64(x) / ::ptx_runtime::device::math::ln_f64(base)
}

/// `x.rem_euclid(y)` (`f32::rem_euclid`): the remainder made non-negative.
#[device_fn]
#[inline(always)]
pub fn rem_euclid_f32(x: f32, y: f32) -> f32 {
    let r = x % y;
    if r < 0.0 {
        r + y.abs()
    } else {
        r
    }
}

/// `x.rem_euclid(y)` (`f64::rem_euclid`).
#[device_fn]
#[inline(always)]
pub fn rem_euclid_f64(x: f64, y: f64) -> f64 {
    let r = x % y;
    if r < 0.0 {
        r + y.abs()
    } else {
        r
    }
}

/// `x.div_euclid(y)` (`f32::div_euclid`): the truncated quotient, one step down (or up, for a
/// negative `y`) where the remainder is negative.
#[device_fn]
#[inline(always)]
pub fn div_euclid_f32(x: f32, y: f32) -> f32 {
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

/// `x.div_euclid(y)` (`f64::div_euclid`).
#[device_fn]
#[inline(always)]
pub fn div_euclid_f64(x: f64, y: f64) -> f64 {
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

/// `x.next_up()` (`f32::next_up`): the least `f32` above `x`; NaN and +∞ are themselves.
#[device_fn]
#[inline(always)]
pub fn next_up_f32(x: f32) -> f32 {
    let bits = x.to_bits();
    let abs = bits & 0x7FFF_FFFF;
    if abs > 0x7F80_0000 || bits == 0x7F80_0000 {
        return x;
    }
    f32::from_bits(if abs == 0 {
        1
    } else if bits == abs {
        bits.wrapping_add(1)
    } else {
        bits.wrapping_sub(1)
    })
}

/// `x.next_up()` (`f64::next_up`).
#[device_fn]
#[inline(always)]
pub fn next_up_f64(x: f64) -> f64 {
    let bits = x.to_bits();
    let abs = bits & 0x7FFF_FFFF_FFFF_FFFF;
    if abs > 0x7FF0_0000_0000_0000 || bits == 0x7FF0_0000_0000_0000 {
        return x;
    }
    f64::from_bits(if abs == 0 {
        1
    } else if bits == abs {
        bits.wrapping_add(1)
    } else {
        bits.wrapping_sub(1)
    })
}

/// `x.next_down()` (`f32::next_down`): the greatest `f32` below `x`; NaN and −∞ are themselves.
#[device_fn]
#[inline(always)]
pub fn next_down_f32(x: f32) -> f32 {
    let bits = x.to_bits();
    let abs = bits & 0x7FFF_FFFF;
    if abs > 0x7F80_0000 || bits == 0xFF80_0000 {
        return x;
    }
    f32::from_bits(if abs == 0 {
        0x8000_0001
    } else if bits == abs {
        bits.wrapping_sub(1)
    } else {
        bits.wrapping_add(1)
    })
}

/// `x.next_down()` (`f64::next_down`).
#[device_fn]
#[inline(always)]
pub fn next_down_f64(x: f64) -> f64 {
    let bits = x.to_bits();
    let abs = bits & 0x7FFF_FFFF_FFFF_FFFF;
    if abs > 0x7FF0_0000_0000_0000 || bits == 0xFFF0_0000_0000_0000 {
        return x;
    }
    f64::from_bits(if abs == 0 {
        0x8000_0000_0000_0001
    } else if bits == abs {
        bits.wrapping_sub(1)
    } else {
        bits.wrapping_add(1)
    })
}

/// `x.is_normal()` (`f32::is_normal`): neither zero, subnormal, infinite nor NaN.
#[device_fn]
#[inline(always)]
pub fn is_normal_f32(x: f32) -> bool {
    let e = x.to_bits() & 0x7F80_0000;
    e != 0 && e != 0x7F80_0000
}

/// `x.is_normal()` (`f64::is_normal`).
#[device_fn]
#[inline(always)]
pub fn is_normal_f64(x: f64) -> bool {
    let e = x.to_bits() & 0x7FF0_0000_0000_0000;
    e != 0 && e != 0x7FF0_0000_0000_0000
}

/// `x.is_subnormal()` (`f32::is_subnormal`): a zero exponent and a nonzero significand.
#[device_fn]
#[inline(always)]
pub fn is_subnormal_f32(x: f32) -> bool {
    let bits = x.to_bits();
    bits & 0x7F80_0000 == 0 && bits & 0x007F_FFFF != 0
}

/// `x.is_subnormal()` (`f64::is_subnormal`).
#[device_fn]
#[inline(always)]
pub fn is_subnormal_f64(x: f64) -> bool {
    let bits = x.to_bits();
    bits & 0x7FF0_0000_0000_0000 == 0 && bits & 0x000F_FFFF_FFFF_FFFF != 0
}
