//! `sinf`, `cosf`, `tanf`: `x = q·π/2 + r` (Cody–Waite below 105615, Payne–Hanek above), then
//! the sine or cosine polynomial by the quadrant, or `tan r` and `−1/tan r`.

use ptx_runtime::device_fn;


/// Shared argument reduction for sinf/cosf/tanf: returns (r, q) with x ≈ q·π/2 + r, |r| ≤ ~π/4.
/// Moderate arguments use a three-part Cody–Waite subtraction of the nearest multiple of π/2.
/// For |x| ≥ 105615 (or ±inf), a Payne–Hanek reduction multiplies the 24-bit significand by
/// 192 bits of 2/π (in 32-bit limbs into a small local array), picks the window of the product
/// that the exponent selects, takes the quadrant from its top two bits (rounding to nearest),
/// and converts the 64-bit fraction to a float through one f64 multiply by π/2·2⁻⁶⁴. ±inf
/// reduces to NaN with quadrant 0; NaN stays on the fast path and propagates.
#[device_fn]
#[inline(always)]
#[doc(hidden)]
pub fn trig_reduce_f32(x: f32) -> (f32, i32) {
    let j = x * f32::from_bits(0x3F22_F983);
    let mut q = j.round_ties_even() as i32;
    let qf = q as f32;
    let mut r = qf.mul_add(f32::from_bits(0xBFC9_0FDA), x);
    r = qf.mul_add(f32::from_bits(0xB3A2_2168), r);
    r = qf.mul_add(f32::from_bits(0xA7C2_34C5), r);
    let ax = x.abs();
    if ax >= f32::from_bits(0x47CE_4780) {
        if ax == f32::INFINITY {
            r = x * 0.0;
            q = 0;
        } else {
            let a = x.to_bits();
            let e = ((a >> 23) & 255).wrapping_sub(128);
            let m = ((a << 8) | 0x8000_0000) as u64;
            let idx = e >> 5;
            let p0 = 0x3C43_9041u64 * m;
            let p1 = 0xDB62_9599u64 * m + (p0 >> 32);
            let p2 = 0xF534_DDC0u64 * m + (p1 >> 32);
            let p3 = 0xFC27_57D1u64 * m + (p2 >> 32);
            let p4 = 0x4E44_1529u64 * m + (p3 >> 32);
            let p5 = 0xA2F9_836Eu64 * m + (p4 >> 32);
            let w = [p0 as u32, p1 as u32, p2 as u32, p3 as u32, p4 as u32, p5 as u32, (p5 >> 32) as u32];
            let sh = e & 31;
            // e is in [15, 126] here, so idx is in [0, 3]; the `& 3` changes no value but lets
            // the compiler drop the bounds checks on the three reads below.
            let k = (6 - (idx & 3)) as usize;
            let mut hi = w[k];
            let mut lo = w[k - 1];
            if sh != 0 {
                let hi2 = (lo >> (32 - sh)).wrapping_add(hi << sh);
                lo = (w[k - 2] >> (32 - sh)).wrapping_add(lo << sh);
                hi = hi2;
            }
            let sign = a & 0x8000_0000;
            let t = (lo >> 30) | (hi << 2);
            let b = t >> 31;
            let qq = b.wrapping_add(hi >> 30) as i32;
            q = if sign == 0 { qq } else { qq.wrapping_neg() };
            let s = if b != 0 { sign ^ 0x8000_0000 } else { sign };
            let mask = if b != 0 { 0xFFFF_FFFFu32 } else { 0 };
            let v = (((t ^ mask) as u64) << 32) | (((lo << 2) ^ mask) as u64);
            let d = (v as i64) as f64 * f64::from_bits(0x3BF9_21FB_5444_2D19);
            let rf = d as f32;
            r = if s == 0 { rf } else { -rf };
        }
    }
    (r, q)
}

/// Shared sin/cos polynomial on the reduced argument `r` in quadrant `q`: odd quadrants use the
/// even (cosine) minimax polynomial, even ones the odd (sine) polynomial; bit 1 of `q` negates.
#[device_fn]
#[inline(always)]
#[doc(hidden)]
pub fn sincos_poly_f32(r: f32, q: i32) -> f32 {
    let even = (q & 1) == 0;
    let z = if even { r } else { 1.0 };
    let r2 = r * r;
    let mut p = f32::from_bits(0xB94D_4153);
    if !even {
        p = f32::from_bits(0x37CB_AC00).mul_add(r2, f32::from_bits(0xBAB6_07ED));
    }
    p = p.mul_add(r2, if even { f32::from_bits(0x3C08_85E4) } else { f32::from_bits(0x3D2A_AABB) });
    p = p.mul_add(r2, if even { f32::from_bits(0xBE2A_AAA8) } else { f32::from_bits(0xBEFF_FFFF) });
    let zr2 = r2.mul_add(z, 0.0);
    let mut res = p.mul_add(zr2, z);
    if (q & 2) != 0 {
        res = res.mul_add(-1.0, 0.0);
    }
    res
}

/// CUDA's `sinf`, as nvcc emits it: reduce by π/2 (see `trig_reduce_f32`), then evaluate the
/// sine or cosine polynomial according to the quadrant.
#[device_fn]
#[inline(always)]
pub fn sinf(x: f32) -> f32 {
    let (r, q) = trig_reduce_f32(x);
    sincos_poly_f32(r, q)
}

/// CUDA's `cosf`, as nvcc emits it: same as `sinf` with the quadrant advanced by one.
#[device_fn]
#[inline(always)]
pub fn cosf(x: f32) -> f32 {
    let (r, q) = trig_reduce_f32(x);
    sincos_poly_f32(r, q.wrapping_add(1))
}

/// CUDA's `sincosf`: `(sinf(x), cosf(x))` from one reduction, as nvcc computes a `sinf` and a
/// `cosf` of the same argument. `x.sin_cos()` in device code.
#[device_fn]
#[inline(always)]
pub fn sincosf(x: f32) -> (f32, f32) {
    let (r, q) = trig_reduce_f32(x);
    (sincos_poly_f32(r, q), sincos_poly_f32(r, q.wrapping_add(1)))
}

/// CUDA's `tanf`, as nvcc emits it: reduce by π/2, evaluate an odd polynomial for tan(r)
/// (r + r³·P(r²)); in odd quadrants return -1/tan(r) via the approximate (ftz) reciprocal.
/// One reduced value, |r| = 0x3A00B43C, returns r itself instead of the polynomial.
#[device_fn]
#[inline(always)]
pub fn tanf(x: f32) -> f32 {
    let (r, q) = trig_reduce_f32(x);
    let r2 = r * r;
    let mut p = f32::from_bits(0x3C19_0000).mul_add(r2, f32::from_bits(0x3B56_0000));
    p = p.mul_add(r2, f32::from_bits(0x3CC7_0000));
    p = p.mul_add(r2, f32::from_bits(0x3D5B_0000));
    p = p.mul_add(r2, f32::from_bits(0x3E08_9438));
    p = p.mul_add(r2, f32::from_bits(0x3EAA_AA88));
    let r3 = r2 * r;
    let mut t = p.mul_add(r3, r);
    if r.abs() == f32::from_bits(0x3A00_B43C) {
        t = r;
    }
    if (q & 1) == 1 {
        ::ptx_runtime::device::fast::recip_ftz(-t)
    } else {
        t
    }
}

