//! `logf`, `log2f`, `log10f`, `log1pf`: `x = 2^e · m` with `m` near 1 (split at 2/3, at √½ for
//! `log2f`, at 3/4 for `1 + x`), a polynomial in `f = m − 1`, and `e` times the base's `log 2`.

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

/// CUDA's `log2f`, as nvcc emits it. Subnormals are scaled up by 2^23 first. The input is split
/// as 2^e·m with m in [√½, √2) by subtracting the bits of √½ and masking the exponent; a
/// degree-10 polynomial in f = m − 1 gives log2(m) − f·log2(e) as f²·p(f), the leading
/// f·log2(e) term is added with one fma, then e. Infinity, NaN and negatives go through
/// x·∞ + ∞; ±0 gives −∞.
#[device_fn]
#[inline(always)]
pub fn log2f(x: f32) -> f32 {
    let sub = x < f32::from_bits(0x0080_0000);
    let a = if sub { x * f32::from_bits(0x4B00_0000) } else { x };
    let bias = if sub { f32::from_bits(0xC1B8_0000) } else { 0.0 };
    let bits = a.to_bits();
    let e = bits.wrapping_sub(0x3F35_04F3) & 0xFF80_0000;
    let m = f32::from_bits(bits.wrapping_sub(e));
    let n = ((e as i32) as f32).mul_add(f32::from_bits(0x3400_0000), bias);
    let f = m - 1.0;
    let mut p = f32::from_bits(0x3DC6_B27F).mul_add(f, f32::from_bits(0xBE2C_7F30));
    p = p.mul_add(f, f32::from_bits(0x3E2F_CF2A));
    p = p.mul_add(f, f32::from_bits(0xBE37_4E43));
    p = p.mul_add(f, f32::from_bits(0x3E52_0BF4));
    p = p.mul_add(f, f32::from_bits(0xBE76_3C8B));
    p = p.mul_add(f, f32::from_bits(0x3E93_BF99));
    p = p.mul_add(f, f32::from_bits(0xBEB8_AA49));
    p = p.mul_add(f, f32::from_bits(0x3EF6_384A));
    p = p.mul_add(f, f32::from_bits(0xBF38_AA3B));
    let q = f * (f * p);
    let l = f.mul_add(f32::from_bits(0x3FB8_AA3B), q);
    let mut r = n + l;
    if bits >= 0x7F80_0000 {
        r = a.mul_add(f32::INFINITY, f32::INFINITY);
    }
    if a == 0.0 { f32::NEG_INFINITY } else { r }
}

/// CUDA's `log10f`, as nvcc emits it: [`logf`]'s operations, special cases included, then one
/// multiplication by log10(e).
#[device_fn]
#[inline(always)]
pub fn log10f(x: f32) -> f32 {
    logf(x) * f32::from_bits(0x3EDE_5BD9)
}

/// CUDA's `log1pf`, as nvcc emits it. The exponent k of 1 + x (rounded toward zero, split at
/// 3/4) is found from its bits; then (1 + x)·2^-k − 1 is formed without rounding error as
/// (2^-k − 1) + x·2^-k, with both scalings done on the bits. A degree-8 polynomial gives
/// ln(1 + f) = f + f²·p(f), and k·ln2 is added last. x ≥ +∞, NaN and x < −1 give x·∞ + ∞;
/// −0 stays −0.
#[device_fn]
#[inline(always)]
pub fn log1pf(x: f32) -> f32 {
    // nvcc rounds 1 + x toward zero (add.rz). Emulated with round-to-nearest: of s − 1 and
    // s − x, the one whose first operand is the larger is exact (Fast2Sum) and rounding is
    // monotone, so s was rounded up exactly when either passes its counterpart; then step one
    // ulp down. Right for 1 + x ≥ 0; for 1 + x < 0 (x < −1) k is unused: the result is NaN.
    let s = x + 1.0;
    let up = s - 1.0 > x || s - x > 1.0;
    let s = if up { f32::from_bits(s.to_bits().wrapping_sub(1)) } else { s };
    let k = s.to_bits().wrapping_sub(0x3F40_0000) & 0xFF80_0000;
    let bits = x.to_bits();
    let xs = f32::from_bits(bits.wrapping_sub(k));
    let four = f32::from_bits(0x4080_0000u32.wrapping_sub(k));
    let f = f32::from_bits(0x3E80_0000).mul_add(four, -1.0) + xs;
    let n = ((k as i32) as f32) * f32::from_bits(0x3400_0000);
    let mut p = f32::from_bits(0xBD39_BF78).mul_add(f, f32::from_bits(0x3DD8_0012));
    p = p.mul_add(f, f32::from_bits(0xBE07_78E0));
    p = p.mul_add(f, f32::from_bits(0x3E14_6475));
    p = p.mul_add(f, f32::from_bits(0xBE2A_68DD));
    p = p.mul_add(f, f32::from_bits(0x3E4C_AF9E));
    p = p.mul_add(f, f32::from_bits(0xBE80_0042));
    p = p.mul_add(f, f32::from_bits(0x3EAA_AAE6));
    p = p.mul_add(f, -0.5);
    let l = (f * p).mul_add(f, f);
    let mut r = n.mul_add(f32::from_bits(0x3F31_7218), l);
    if bits >= 0x7F80_0000 {
        if (bits as i32) >= -1_082_130_431 {
            r = x.mul_add(f32::INFINITY, f32::INFINITY);
        }
        if x == 0.0 {
            r = -0.0;
        }
    }
    r
}
