//! `tanhf`, `sinhf`, `coshf`: odd polynomials near 0, and beyond, the exponential (`ex2.approx`)
//! with an approximate reciprocal or division, as CUDA computes them.

use ptx_runtime::device_fn;

/// CUDA's `tanhf`, as nvcc emits it. For |x| >= 0.6, tanh |x| = 1 - 2/(e^(2|x|) + 1) with an
/// approximate exponential and reciprocal, saturated to 1 from |x| >= 9.01 and given x's sign;
/// below 0.6, an odd polynomial x + x^3·P(x^2).
#[device_fn]
#[inline(always)]
pub fn tanhf(x: f32) -> f32 {
    let ax = x.abs();
    let e = ::ptx_runtime::device::fast::exp2_ftz(ax * f32::from_bits(0x4038_AA3B));
    let d = e + 1.0;
    let r = ::ptx_runtime::device::fast::recip_ftz(d);
    let t = r.mul_add(-2.0, 1.0);
    let t = if ax >= f32::from_bits(0x4110_2CB4) { 1.0 } else { t };
    let big = t.copysign(x);
    let x2 = x * x;
    let mut p = f32::from_bits(0x3C80_F082).mul_add(x2, f32::from_bits(0xBD56_3CAE));
    p = p.mul_add(x2, f32::from_bits(0x3E08_5941));
    p = p.mul_add(x2, f32::from_bits(0xBEAA_A9ED));
    p = p.mul_add(x2, 0.0);
    let small = p.mul_add(x, x);
    if ax >= f32::from_bits(0x3F19_999A) { big } else { small }
}

/// e^|x| / 4 for sinhf and coshf: |x| = k·ln2 + r with k = trunc(|x|·log2 e) clamped to ±126,
/// r in two-part ln2; 2^(r·log2 e) approximately, times 2^(k-2) built in the exponent field.
#[device_fn]
#[inline(always)]
#[doc(hidden)]
pub fn exp_quarter(ax: f32) -> f32 {
    let mut k = (ax * f32::from_bits(0x3FB8_AA3B)).trunc();
    if k.abs() > f32::from_bits(0x42FC_0000) {
        k = f32::from_bits(0x42FC_0000).copysign(k);
    }
    let mut r = k.mul_add(f32::from_bits(0xBF31_7218), ax);
    r = k.mul_add(f32::from_bits(0x3102_E308), r);
    let r = r * f32::from_bits(0x3FB8_AA3B);
    let s = f32::from_bits((k + f32::from_bits(0x4B40_007D)).to_bits() << 23);
    ::ptx_runtime::device::fast::exp2_ftz(r) * s
}

/// CUDA's `sinhf`, as nvcc emits it. For |x| >= 1, (e^|x| - e^-|x|)/2 from E = e^|x|/4 as
/// 2E - (1/8)/E (approximate division), with x's sign; below 1, x + x^3·P(x^2).
#[device_fn]
#[inline(always)]
pub fn sinhf(x: f32) -> f32 {
    let ax = x.abs();
    let e = exp_quarter(ax);
    let q = ::ptx_runtime::device::fast::div_ftz(f32::from_bits(0xBE00_0000), e);
    let big = 2.0f32.mul_add(e, q);
    let x2 = x * x;
    let mut p = f32::from_bits(0x363D_0ADA).mul_add(x2, f32::from_bits(0x394F_FF49));
    p = p.mul_add(x2, f32::from_bits(0x3C08_889A));
    p = p.mul_add(x2, f32::from_bits(0x3E2A_AAAB));
    let p = x2 * p;
    let small = p.mul_add(x, x);
    if ax >= 1.0 { big.copysign(x) } else { small }
}

/// CUDA's `coshf`, as nvcc emits it: (e^|x| + e^-|x|)/2 from E = e^|x|/4 as
/// 2E + (1/8)/E (approximate division), for every x.
#[device_fn]
#[inline(always)]
pub fn coshf(x: f32) -> f32 {
    let e = exp_quarter(x.abs());
    let q = ::ptx_runtime::device::fast::div_ftz(f32::from_bits(0x3E00_0000), e);
    2.0f32.mul_add(e, q)
}

