//! `powf`: `log₂|x|` as a pair of floats, times `y` as a pair, `2^` of it in two scalings, then
//! C's special cases.

use ptx_runtime::device_fn;

/// CUDA's `powf(x, y)`, as nvcc emits it. log2|x| in two floats (hi + lo): |x| = 2^n·m with
/// m in [0.707, 1.414), q = 2(m-1)/(m+1) with an approximate reciprocal and its correction,
/// log2 m = q·log2e + q^3·P(q^2)...; times y as a double-float product; 2^(y·log2|x|) split
/// into round(·) and a fraction for a polynomial, scaled in two steps to reach subnormals;
/// overflow/underflow past |y·log2|x|| > 152. Then C's special cases: y = 0 or x = 1 give 1,
/// NaN propagates, zero/infinite x by sign rules, -1^±inf = 1, negative x needs integer y
/// (odd y negates).
#[device_fn]
#[inline(always)]
pub fn powf(x: f32, y: f32) -> f32 {
    let yh = (y * 0.5).trunc();
    let odd = (y - (yh + yh)).abs();
    let ax = x.abs();
    let sub = ax < f32::from_bits(0x0080_0000);
    let a = if sub { ax * f32::from_bits(0x4B80_0000) } else { ax };
    let bias = if sub { f32::from_bits(0xC1C0_0000) } else { 0.0 };
    let bits = a.to_bits();
    let e = bits.wrapping_sub(0x3F35_04F3) & 0xFF80_0000;
    let m = f32::from_bits(bits.wrapping_sub(e));
    let n = ((e as i32) as f32).mul_add(f32::from_bits(0x3400_0000), bias);
    let f = m - 1.0;
    let fp = m + 1.0;
    let r = ::ptx_runtime::device::fast::recip_ftz(fp);
    let f2 = f + f;
    let q = f2 * r;
    let q2 = q * q;
    let mut t = f - q;
    t = t + t;
    t = (-q).mul_add(f, t);
    let lo = r * t;
    let mut p = f32::from_bits(0x3A2C_32E4).mul_add(q2, f32::from_bits(0x3B52_E7DB));
    p = p.mul_add(q2, f32::from_bits(0x3C93_BB73));
    p = p.mul_add(q2, f32::from_bits(0x3DF6_384F));
    let p = p * q2;
    let hi = q.mul_add(f32::from_bits(0x3FB8_AA3B), n);
    let mut d = n - hi;
    d = q.mul_add(f32::from_bits(0x3FB8_AA3B), d);
    d = lo.mul_add(f32::from_bits(0x3FB8_AA3B), d);
    d = q.mul_add(f32::from_bits(0x32A5_5E34), d);
    let p3 = p * 3.0;
    d = p3.mul_add(lo, d);
    d = p.mul_add(q, d);
    let s = hi + d;
    let e1 = s - hi;
    let lo2 = d - e1;
    let ph = s * y;
    let mut pl = s.mul_add(y, -ph);
    pl = lo2.mul_add(y, pl);
    let k = ph.round_ties_even();
    let mut g = ph - k;
    g = pl + g;
    let mut c = f32::from_bits(0x391F_CB8E).mul_add(g, f32::from_bits(0x3AAF_85ED));
    c = c.mul_add(g, f32::from_bits(0x3C1D_9856));
    c = c.mul_add(g, f32::from_bits(0x3D63_57BB));
    c = c.mul_add(g, f32::from_bits(0x3E75_FDEC));
    c = c.mul_add(g, f32::from_bits(0x3F31_7218));
    let ex = c.mul_add(g, 1.0);
    let ki = k as i32;
    let adj: u32 = if k > 0.0 { 0 } else { 0x8300_0000 };
    let r1 = ex * f32::from_bits(adj.wrapping_add(0x7F00_0000));
    let r2 = r1 * f32::from_bits(((ki as u32) << 23).wrapping_sub(adj));
    let sat = if ph < 0.0 { 0.0 } else { f32::INFINITY };
    let res = if ph.abs() > f32::from_bits(0x4318_0000) { sat } else { r2 };
    // C's special cases, flat: the later assignments take precedence (nvcc tests them in the
    // reverse order, with branches).
    let mut out = res;
    if x < 0.0 {
        let v = if odd == 1.0 { -res } else { res };
        out = if y.floor() != y { f32::from_bits(0x7FFF_FFFF) } else { v };
    }
    if (x == -1.0) & (y.abs() == f32::INFINITY) {
        out = 1.0;
    }
    if (x == 0.0) | (ax == f32::INFINITY) {
        let b = (x + x).to_bits();
        let b = if y < 0.0 { b ^ 0x7F80_0000 } else { b };
        out = f32::from_bits(if odd == 1.0 { b } else { b & 0x7FFF_FFFF });
    }
    if ax.is_nan() | y.is_nan() {
        out = x + y;
    }
    if (x == 1.0) | (y == 0.0) {
        out = 1.0;
    }
    out
}

