//! `expm1f`: `x = j·ln 2 + r`, a polynomial for `e^r − 1`, and `2^j·(e^r − 1) + (2^j − 1)` in one
//! `fma`.

use ptx_runtime::device_fn;

/// CUDA's `expm1f`, as nvcc emits it. |x| is clamped to just above ln(FLT_MAX); j = round(x·log2 e)
/// comes from adding 1.5·2^23 + 127 (so the sum's low bits are already the biased exponent of
/// 2^j), r = x − j·ln2 in two fma steps (ln2 split in two), a degree-5 polynomial gives
/// e^r − 1 = r + r²·p(r), and the result is (e^r − 1)·2^j − (1 − 2^j) with one fma. For j ≥ 25
/// it uses 2^(j−1) and doubles at the end (so 2^j cannot overflow); j = −128 uses 2^j = 0.
#[device_fn]
#[inline(always)]
pub fn expm1f(x: f32) -> f32 {
    let big = x.abs() > f32::from_bits(0x42B1_7218);
    let a = if big { f32::from_bits(0x42B1_7218).copysign(x) } else { x };
    let t = a.mul_add(f32::from_bits(0x3FB8_AA3B), f32::from_bits(0x4B40_007F));
    let j = t + f32::from_bits(0xCB40_007F);
    let nj = -j;
    let r = nj.mul_add(f32::from_bits(0x3F31_7217), a);
    let r = nj.mul_add(f32::from_bits(0x3377_D1CF), r);
    let sh = t.to_bits() << 23;
    let halve = j >= 25.0;
    let sb = if halve { sh.wrapping_sub(0x0080_0000) } else { sh };
    let scale = if j == -128.0 { 0.0 } else { f32::from_bits(sb) };
    let mut p = f32::from_bits(0x3AB5_B2C6).mul_add(r, f32::from_bits(0x3C09_1356));
    p = p.mul_add(r, f32::from_bits(0x3D2A_A9AF));
    p = p.mul_add(r, f32::from_bits(0x3E2A_AA59));
    p = p.mul_add(r, f32::from_bits(0x3F00_0003));
    p = p.mul_add(r, 0.0);
    let em1 = p.mul_add(r, r);
    let u = 1.0 - scale;
    let v = em1.mul_add(scale, -u);
    if halve { v + v } else { v }
}

