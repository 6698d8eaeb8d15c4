//! `cbrtf`: an approximate `|x|^(−2/3)` from `lg2.approx` and `ex2.approx`, one correction.

use ptx_runtime::device_fn;

/// CUDA's `cbrtf`, as nvcc emits it. r = 2^(-2/3·log2|x|) ≈ |x|^(-2/3) from the approximate
/// log2 and exp2; c = |x|·r ≈ ∛|x| is corrected once as c + c·(1 − c·(r·c))/3 and given x's
/// sign. Where x + x == x (±0, ±∞, NaN) the result is x + x.
#[device_fn]
#[inline(always)]
pub fn cbrtf(x: f32) -> f32 {
    let ax = x.abs();
    let l = ::ptx_runtime::device::fast::log2(ax);
    let r = ::ptx_runtime::device::fast::exp2_ftz(l * f32::from_bits(0xBF2A_AAAB));
    let c = ax * r;
    let rc = r * c;
    let e = c.mul_add(-rc, 1.0);
    let e = e * f32::from_bits(0x3EAA_AAAB);
    let c = c.mul_add(e, c);
    let c = if x < 0.0 { -c } else { c };
    let xx = x + x;
    if xx == x {
        xx
    } else {
        c
    }
}
