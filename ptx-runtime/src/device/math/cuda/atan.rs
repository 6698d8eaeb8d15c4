//! `atanf`, `atan2f`, `asinf`, `acosf`, `hypotf`: argument folding to a small range and odd
//! minimax polynomials (a square root for `asinf`/`acosf` above 0.56), then the fold undone.

use ptx_runtime::device_fn;

/// CUDA's `atanf`. Works on |x|: above 1 it evaluates on the approximate reciprocal
/// 1/|x| and reflects with π/2 − atan(1/|x|) (π/2 formed by one fma of two constants);
/// the core is an odd minimax polynomial t + t·s·P(s), s = t², P of degree 7. The sign of
/// x is put back at the end, unless x is NaN (then the NaN passes through).
#[device_fn]
#[inline(always)]
pub fn atanf(x: f32) -> f32 {
    let a = x.abs();
    let big = a > 1.0;
    let rc = ::ptx_runtime::device::fast::recip_ftz(a);
    let t = if big { rc } else { a };
    let s = t * t;
    let mut p = f32::from_bits(0x3B20_90AA).mul_add(s, f32::from_bits(0xBC6B_E14F));
    p = p.mul_add(s, f32::from_bits(0x3D23_397E));
    p = p.mul_add(s, f32::from_bits(0xBD94_8A7A));
    p = p.mul_add(s, f32::from_bits(0x3DD7_6B21));
    p = p.mul_add(s, f32::from_bits(0xBE11_1E88));
    p = p.mul_add(s, f32::from_bits(0x3E4C_AF60));
    p = p.mul_add(s, f32::from_bits(0xBEAA_AA27));
    let q = s * p;
    let mut r = q.mul_add(t, t);
    if big {
        r = f32::from_bits(0x3F6E_E581).mul_add(f32::from_bits(0x3FD7_74EB), -r);
    }
    if a <= f32::INFINITY { r.copysign(x) } else { r }
}

/// CUDA's `atan2f(y, x)` (Rust `y.atan2(x)`). Divides the smaller of |x|, |y| by the larger
/// (correctly rounded), runs an odd degree-8-in-s polynomial on that ratio, then unfolds the
/// octant: π/2 − r when |y| > |x| (π/2 + r if x < 0), π − r when |y| ≤ |x| and x < 0; the sign
/// test on x is a bit test, so x = −0 counts as negative. Equal magnitudes give exactly π/4
/// or 3π/4, both zero gives 0 or π, a NaN operand propagates via |x| + |y|; otherwise y's
/// sign is copied on.
#[device_fn]
#[inline(always)]
pub fn atan2f(y: f32, x: f32) -> f32 {
    let ax = x.abs();
    let ay = y.abs();
    let swap = ay > ax;
    let hi = if swap { ay } else { ax };
    let lo = if swap { ax } else { ay };
    let t = lo / hi;
    let s = t * t;
    let mut p = f32::from_bits(0x3B33_710B).mul_add(s, f32::from_bits(0xBC80_7748));
    p = p.mul_add(s, f32::from_bits(0x3D2C_DAB2));
    p = p.mul_add(s, f32::from_bits(0xBD99_2D10));
    p = p.mul_add(s, f32::from_bits(0x3DD9_EA6C));
    p = p.mul_add(s, f32::from_bits(0xBE11_7CB1));
    p = p.mul_add(s, f32::from_bits(0x3E4C_BCE0));
    p = p.mul_add(s, f32::from_bits(0xBEAA_AA7D));
    let q = s * p;
    let mut r = q.mul_add(t, t);
    let xneg = (x.to_bits() as i32) < 0;
    if swap {
        if xneg {
            r = f32::from_bits(0x3F6E_E581).mul_add(f32::from_bits(0x3FD7_74EB), r);
        } else {
            r = f32::from_bits(0x3F6E_E581).mul_add(f32::from_bits(0x3FD7_74EB), -r);
        }
    } else if xneg {
        r = f32::from_bits(0x3FEE_E581).mul_add(f32::from_bits(0x3FD7_74EB), -r);
    }
    let zero_case = if xneg { f32::from_bits(0x4049_0FDB) } else { 0.0 };
    let diag = if xneg { f32::from_bits(0x4016_CBE4) } else { f32::from_bits(0x3F49_0FDB) };
    let r1 = if ax == ay { diag } else { r };
    let r2 = if hi == 0.0 { zero_case } else { r1 };
    let sum = ax + ay;
    if !(sum.abs() <= f32::INFINITY) { sum } else { r2.copysign(y) }
}

/// The argument `asinf` and `acosf` evaluate their polynomial on, for `a = |x|`: `a` up to 0.56,
/// beyond it `√((1 − a)/2)` from the approximate reciprocal square root and one Newton step
/// (0 at `a = 1`).
#[doc(hidden)]
#[device_fn]
#[inline(always)]
pub fn asin_argument(a: f32) -> f32 {
    let h = f32::from_bits(0x3F00_0000).mul_add(-a, 0.5);
    let rs = ::ptx_runtime::device::fast::rsqrt_ftz(h);
    let sq = h * rs;
    let hr = rs * 0.5;
    let e = (-sq).mul_add(hr, 0.5);
    let sq2 = sq.mul_add(e, sq);
    let sq3 = if a == 1.0 { 0.0 } else { sq2 };
    if a > f32::from_bits(0x3F0F_5C29) { sq3 } else { a }
}

/// CUDA's `asinf`. For |x| ≤ 0.56 it is an odd polynomial t + t·s·P(s) (s = t², P degree 4)
/// on t = |x|; above, it uses asin|x| = π/2 − 2·asin(√((1−|x|)/2)), where the square root
/// comes from the approximate rsqrt plus one Newton step (forced to 0 at |x| = 1). The sign
/// of x is copied on unless the result is NaN.
#[device_fn]
#[inline(always)]
pub fn asinf(x: f32) -> f32 {
    let a = x.abs();
    let far = a > f32::from_bits(0x3F0F_5C29);
    let t = asin_argument(a);
    let s = t * t;
    let mut p = f32::from_bits(0x3D4D_D2F7).mul_add(s, f32::from_bits(0x3C99_CA97));
    p = p.mul_add(s, f32::from_bits(0x3D3F_90E8));
    p = p.mul_add(s, f32::from_bits(0x3D99_3CCF));
    p = p.mul_add(s, f32::from_bits(0x3E2A_AC04));
    let q = s * p;
    let r = q.mul_add(t, t);
    let m2 = r * -2.0;
    let refl = f32::from_bits(0x3F6E_E581).mul_add(f32::from_bits(0x3FD7_74EB), m2);
    let r2 = if far { refl } else { r };
    if r2 <= f32::INFINITY { r2.copysign(x) } else { r2 }
}

/// CUDA's `acosf`. Shares asinf's reduction: t = |x| up to 0.56, else t = √((1−|x|)/2)
/// (rsqrt approximation + Newton step, 0 at |x| = 1); then t takes x's sign and an odd
/// polynomial (P degree 5) gives a = asin(t). Near zero acos = π/2 − a; for x > 0.56 the result is
/// 2a, for x < −0.56 it is 2(π/2 + a).
#[device_fn]
#[inline(always)]
pub fn acosf(x: f32) -> f32 {
    let a = x.abs();
    let far = a > f32::from_bits(0x3F0F_5C29);
    let t = asin_argument(a).copysign(x);
    let s = t * t;
    let mut p = f32::from_bits(0x3D10_ECEF).mul_add(s, f32::from_bits(0x3C8B_1ABB));
    p = p.mul_add(s, f32::from_bits(0x3CFC_028C));
    p = p.mul_add(s, f32::from_bits(0x3D37_2139));
    p = p.mul_add(s, f32::from_bits(0x3D99_93DB));
    p = p.mul_add(s, f32::from_bits(0x3E2A_AAC6));
    let q = s * p;
    let r = q.mul_add(t, t);
    let rr = if far { r } else { -r };
    let c = f32::from_bits(0x3F6E_E581).mul_add(f32::from_bits(0x3FD7_74EB), rr);
    let r2 = if x > f32::from_bits(0x3F0F_5C29) { r } else { c };
    let d = r2 + r2;
    if far { d } else { r2 }
}

/// CUDA's `hypotf(x, y)` (Rust `x.hypot(y)`). Orders |x|, |y| by their bit patterns, scales
/// both by a power of two chosen from the larger one's exponent (so the sum of squares cannot
/// overflow or underflow), takes sqrt.rn of lo² + hi² (one fma), and scales back. A zero
/// smaller operand returns the larger exactly; an infinite one returns +∞ (even with NaN).
#[device_fn]
#[inline(always)]
pub fn hypotf(x: f32, y: f32) -> f32 {
    let bx = x.abs().to_bits() as i32;
    let by = y.abs().to_bits() as i32;
    let lob = by.min(bx);
    let hib = by.max(bx);
    let lo = f32::from_bits(lob as u32);
    let hi = f32::from_bits(hib as u32);
    let e = hib & (0xFE00_0000u32 as i32);
    let scale = f32::from_bits(0x7E80_0000i32.wrapping_sub(e) as u32);
    let l = lo * scale;
    let h = hi * scale;
    let l2 = l * l;
    let s = h.mul_add(h, l2).sqrt();
    let r = s * f32::from_bits((e | 0x0080_0000) as u32);
    let r1 = if lo == 0.0 { hi } else { r };
    if lo == f32::INFINITY { f32::INFINITY } else { r1 }
}

