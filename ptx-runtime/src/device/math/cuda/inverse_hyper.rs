//! `asinhf`, `acoshf`, `atanhf`: an argument formed with approximate square roots and
//! reciprocals, then `log1pf` (nvcc inlines all of CUDA's `log1pf` into each).

use ptx_runtime::device_fn;

/// CUDA's `asinhf`, as nvcc emits it. asinh |x| = log1p(|x| + x²/(1 + √(1 + x²))), the
/// square root as (1 + x²)·rsqrt(1 + x²) and the quotient as |x|·(|x|·rcp(·)), both
/// approximate, then [`log1pf`](super::log1pf); above 2^23, log1p(|x|) + ln2. x's sign is put
/// back unless x is NaN.
#[device_fn]
#[inline(always)]
pub fn asinhf(x: f32) -> f32 {
    let ax = x.abs();
    let s = x.mul_add(x, 1.0);
    let rs = ::ptx_runtime::device::fast::rsqrt_ftz(s);
    let d = s.mul_add(rs, 1.0);
    let q = ax * ::ptx_runtime::device::fast::recip_ftz(d);
    let t = ax.mul_add(q, ax);
    let big = ax > f32::from_bits(0x4B00_0000);
    let t = if big { ax } else { t };
    let l = ::ptx_runtime::device::math::cuda::log1pf(t);
    let r = if big { l + f32::from_bits(0x3F31_7218) } else { l };
    if ax <= f32::INFINITY {
        r.copysign(x)
    } else {
        r
    }
}

/// CUDA's `acoshf`, as nvcc emits it. acosh x = log1p((x − 1) + √(x² − 1)), the square root
/// as rsqrt(x² − 1)·(x² − 1) (approximate) with one Newton correction, 0 at x² − 1 = 0. Where
/// the bits of x − 1 exceed 2^23's (x − 1 > 2^23, negative, or NaN), log1p(x − 1 − (1 + 2^-23))
/// + ln2 instead, which is NaN below 1.
#[device_fn]
#[inline(always)]
pub fn acoshf(x: f32) -> f32 {
    let xm = x - 1.0;
    let big = xm.to_bits() > 0x4B00_0000;
    let s = x.mul_add(x, -1.0);
    let rs = ::ptx_runtime::device::fast::rsqrt_ftz(s);
    let h = s * rs;
    let rh = rs * 0.5;
    let e = (-h).mul_add(h, s);
    let h = e.mul_add(rh, h);
    let h = if s == 0.0 { 0.0 } else { h };
    let h = if big { f32::from_bits(0xBF80_0001) } else { h };
    let l = ::ptx_runtime::device::math::cuda::log1pf(xm + h);
    if big {
        l + f32::from_bits(0x3F31_7218)
    } else {
        l
    }
}

/// CUDA's `atanhf`, as nvcc emits it. atanh |x| = ½·log1p(2|x|/(1 − |x|)), the quotient as
/// |x|·2·rcp(1 − |x|) (approximate), −2 for |x| > 2^126 (where the reciprocal would flush;
/// log1p then gives NaN as for all |x| > 1), then [`log1pf`](super::log1pf), times ½ with x's
/// sign.
#[device_fn]
#[inline(always)]
pub fn atanhf(x: f32) -> f32 {
    let ax = x.abs();
    let r = ::ptx_runtime::device::fast::recip_ftz(1.0 - ax);
    let t = ax * (r + r);
    let t = if ax > f32::from_bits(0x7E80_0000) { -2.0 } else { t };
    let l = ::ptx_runtime::device::math::cuda::log1pf(t);
    0.5f32.copysign(x) * l
}
