//! `logf`: `x = 2^e · m` with `m` in [2/3, 4/3), `ln x = e·ln 2 + ln(1 + f)` for `f = m − 1`,
//! `ln(1 + f) = f + f²·p(f)` with `p` a degree-8 polynomial.

use ptx_runtime::device_fn;

/// CUDA's `logf` (1 ulp): `f32::ln` in device code.
#[device_fn]
#[inline(always)]
pub fn logf(x: f32) -> f32 {
    // Subnormals are scaled by 2^23 into the normal range (negative numbers and zero too:
    // the test is a float comparison, and the scaling keeps their sign and zero).
    let sub = x < f32::from_bits(0x0080_0000);
    let a = if sub { x * f32::from_bits(0x4B00_0000) } else { x };
    let bias = if sub { f32::from_bits(0xC1B8_0000) } else { 0.0 };
    let bits = a.to_bits();
    // e·2^23: the exponent that brings the mantissa into [2/3, 4/3) (0x3f2aaaab is 2/3).
    let e = bits.wrapping_sub(0x3F2A_AAAB) & 0xFF80_0000;
    let m = f32::from_bits(bits.wrapping_sub(e));
    let n = ((e as i32) as f32).mul_add(f32::from_bits(0x3400_0000), bias);
    let f = m - 1.0;
    let mut p = f32::from_bits(0xBE05_5027).mul_add(f, f32::from_bits(0x3E10_39F6));
    p = p.mul_add(f, f32::from_bits(0xBDF8_CDCC));
    p = p.mul_add(f, f32::from_bits(0x3E0F_2955));
    p = p.mul_add(f, f32::from_bits(0xBE2A_D8B9));
    p = p.mul_add(f, f32::from_bits(0x3E4C_ED0B));
    p = p.mul_add(f, f32::from_bits(0xBE7F_FF22));
    p = p.mul_add(f, f32::from_bits(0x3EAA_AA78));
    p = p.mul_add(f, -0.5);
    let l = (f * p).mul_add(f, f);
    let mut r = n.mul_add(f32::from_bits(0x3F31_7218), l);
    // +∞, NaN and negative numbers (their bits compare above +∞'s): x·∞ + ∞ is +∞, NaN, NaN.
    if bits >= 0x7F80_0000 {
        r = a.mul_add(f32::INFINITY, f32::INFINITY);
    }
    if a == 0.0 {
        f32::NEG_INFINITY
    } else {
        r
    }
}
