//! `cbrt` (`f64`): a first guess from the exponent's bits, a polynomial step to 23 bits, then
//! one Newton–Raphson step in the form that rounds least (the classic fdlibm method): within
//! 0.67 ulp. The `f32` method is CUDA's `cbrtf` ([`super::cuda`]).

use ptx_runtime::device_fn;

/// `∛x` (`f64::cbrt`). ±0, ±∞ and NaN are themselves; subnormals are scaled by 2^54 first.
#[device_fn]
pub fn cbrt_f64(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut hi = ((bits >> 32) as u32) & 0x7FFF_FFFF;
    if hi >= 0x7FF0_0000 {
        return x + x;
    }
    // The high word over 3 plus a bias: the exponent divided by 3 and a rough significand,
    // within about 5 bits of the root.
    if hi < 0x0010_0000 {
        let scaled = (x * f64::from_bits(0x4350_0000_0000_0000)).to_bits();
        hi = ((scaled >> 32) as u32) & 0x7FFF_FFFF;
        if hi == 0 {
            return x;
        }
        hi = hi / 3 + 696_219_795;
    } else {
        hi = hi / 3 + 715_094_163;
    }
    let mut t = f64::from_bits((bits & 0x8000_0000_0000_0000) | ((hi as u64) << 32));
    // To 23 bits: t·P(t³/x), P a polynomial fit of 1/∛r near r = 1.
    let r = (t * t) * (t / x);
    let p = (f64::from_bits(0x3FFE_03E6_0F61_E692) + r * (f64::from_bits(0xBFFE_28E0_92F0_2420) + r * f64::from_bits(0x3FF9_F160_4A49_D6C2)))
        + ((r * r) * r) * (f64::from_bits(0xBFE8_44CB_BEE7_51D9) + r * f64::from_bits(0x3FC2_B000_D4E4_EDD7));
    t *= p;
    // Rounded up to 22 bits, so t² is exact and t is an overestimate.
    t = f64::from_bits(t.to_bits().wrapping_add(0x8000_0000) & 0xFFFF_FFFF_C000_0000);
    // Newton–Raphson to 53 bits: t + t·(x/t² − t)/(2t + x/t²).
    let s = t * t;
    let q = x / s;
    let w = t + t;
    let d = (q - t) / (w + q);
    t + t * d
}
