//! `mul_add` and `abs` on `f16` / `bf16`, which the `half` crate lacks: the extension trait
//! [`HalfMath`], so `a.mul_add(b, c)` and `x.abs()` read as on `f32` and run on the host too.
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | `a.mul_add(b, c)` | `__hfma(a, b, c)` | `fma.rn.f16`; `fma.rn.bf16` (sm_80+), before sm_80 `f32` rounded to odd, then to bf16 |
//! | `x.abs()` | `__habs(x)` | `abs.f16`; `abs.bf16` (sm_80+), before sm_80 `and.b16 x, 0x7fff` |

use half::{bf16, f16};

/// `mul_add` and `abs` for `f16` and `bf16` (CUDA's `__hfma`, `__habs`). On the host:
/// `mul_add` is the correctly rounded `a × b + c` (one rounding to nearest even), `abs`
/// clears the sign bit.
pub trait HalfMath: Copy + sealed::Sealed {
    /// `self × b + c` rounded once (CUDA `__hfma`, PTX `fma.rn.f16` / `fma.rn.bf16`).
    #[doc(alias = "__hfma")]
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// The magnitude: the sign bit cleared (CUDA `__habs`, PTX `abs.f16` / `abs.bf16`).
    #[doc(alias = "__habs")]
    fn abs(self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

impl HalfMath for f16 {
    #[inline]
    fn mul_add(self, b: f16, c: f16) -> f16 {
        f16::from_f32(fma_to_odd_f32(self.to_f64(), b.to_f64(), c.to_f64()))
    }
    #[inline]
    fn abs(self) -> f16 {
        f16::from_bits(self.to_bits() & 0x7fff)
    }
}

impl HalfMath for bf16 {
    #[inline]
    fn mul_add(self, b: bf16, c: bf16) -> bf16 {
        bf16::from_f32(fma_to_odd_f32(self.to_f64(), b.to_f64(), c.to_f64()))
    }
    #[inline]
    fn abs(self) -> bf16 {
        bf16::from_bits(self.to_bits() & 0x7fff)
    }
}

/// `a × b + c` rounded once to `f32` *to odd*, for `a`, `b`, `c` exactly representable in
/// `f16` or `bf16`. Rounding that to nearest even in `f16` / `bf16` is then the correctly
/// rounded fused multiply-add.
///
/// Why it is exact:
/// 1. `p = a × b` is exact in f64: each significand has at most 11 (f16) or 8 (bf16) bits,
///    so the product has at most 22, and its exponent (at least 2^-48 for f16, 2^-266 for
///    bf16; at most 2^32 or 2^256) is far inside f64's normal range.
/// 2. `s = p + c` rounded to nearest in f64, and TwoSum's `e` is its exact error
///    (`p + c = s + e` exactly; Knuth, TAOCP 4.2.2, valid without overflow, which f64 cannot
///    reach here).
/// 3. `t = s as f32` (nearest), and `r = s - t` is exact in f64 (Sterbenz: `t` is within half
///    an f32 ulp of `s`, both multiples of `s`'s f64 ulp or coarser). The exact value is
///    `t + r + e`. If `r + e` is zero `t` is exact; otherwise it lies strictly on the side of
///    `t` given by the sign of `r` (or of `e` when `r` is zero: `|e|` is at most half an f64
///    ulp of `s`, smaller than any nonzero `r`), so the two f32 values around it are `t` and
///    its neighbour that way, and round-to-odd picks the one whose last bit is 1.
/// 4. Rounding to odd at f32 (24 bits) and then to nearest at 11 or 8 bits (at most 22 in
///    the subnormal ranges of the 16-bit formats, where f32 is still normal or has finer
///    steps) is correct rounding, as 24 ≥ 11 + 2 (Boldo & Melquiond, "Emulation of FMA and
///    correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008).
///    An infinite `t` (an f32 overflow) is past both formats' overflow threshold already.
pub(crate) fn fma_to_odd_f32(a: f64, b: f64, c: f64) -> f32 {
    let p = a * b;
    let s = p + c;
    if !s.is_finite() {
        return s as f32;
    }
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    let t = s as f32;
    if t.is_infinite() {
        return t;
    }
    let r = s - t as f64;
    let dir = if r != 0.0 { r } else { e };
    if dir == 0.0 || t.to_bits() & 1 == 1 {
        return t;
    }
    if dir > 0.0 {
        t.next_up()
    } else {
        t.next_down()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-bit format: significand bits after the point, exponent bias.
    #[derive(Clone, Copy)]
    struct Fmt {
        man: u32,
        bias: i32,
    }
    const F16: Fmt = Fmt { man: 10, bias: 15 };
    const BF16: Fmt = Fmt { man: 7, bias: 127 };

    /// `|x|` of a finite non-negative bit pattern (the infinity pattern counts as 2^(emax+1),
    /// the next value after the largest) in units of 2^-`u`: exact integer arithmetic.
    fn units(f: Fmt, bits: u16, u: i32) -> i128 {
        let (e, m) = ((bits >> f.man) as i32, (bits & ((1 << f.man) - 1)) as i128);
        let (m, e) = if e == 0 { (m, 1 - f.bias - f.man as i32) } else { (m | 1 << f.man, e - f.bias - f.man as i32) };
        assert!(e + u >= 0, "value below the unit");
        m << (e + u)
    }

    /// Signed value in units (`None` for infinities and NaN).
    fn value(f: Fmt, bits: u16, u: i32) -> Option<i128> {
        let mag = bits & 0x7fff;
        if mag >= ((1u16 << (15 - f.man)) - 1) << f.man {
            return None;
        }
        let v = units(f, mag, u);
        Some(if bits & 0x8000 != 0 { -v } else { v })
    }

    /// The correctly rounded (nearest, ties to even) `a × b + c` for finite operands, by exact
    /// integer arithmetic in units of 2^-`u` and a binary search over the ordered magnitudes
    /// `lo..=inf` (the brute-force reference, sharing nothing with `fma_to_odd_f32`).
    fn reference(f: Fmt, a: u16, b: u16, c: u16, u: i32, lo: u16, hi: u16) -> u16 {
        // The operands in units of 2^-(u/2), so their product is in units of 2^-u.
        let (va, vb, vc) = (value(f, a, u / 2).unwrap(), value(f, b, u / 2).unwrap(), value(f, c, u).unwrap());
        let v = va * vb + vc;
        if v == 0 {
            let neg_p = (a ^ b) & 0x8000 != 0;
            return if neg_p && c & 0x8000 != 0 { 0x8000 } else { 0 };
        }
        let inf = ((1u16 << (15 - f.man)) - 1) << f.man;
        let mag = v.abs();
        let sign = if v < 0 { 0x8000 } else { 0 };
        if hi == inf && mag >= units(f, inf, u) {
            return inf | sign;
        }
        // Largest k in lo..=hi with units(k) <= mag.
        let (mut l, mut h) = (lo, hi);
        assert!(units(f, lo, u) <= mag && mag < units(f, hi, u), "outside the search range");
        while l < h {
            let m = l + (h - l).div_ceil(2);
            if units(f, m, u) <= mag { l = m } else { h = m - 1 }
        }
        let k = if l == hi || units(f, l, u) == mag {
            l
        } else {
            let (d0, d1) = (mag - units(f, l, u), units(f, l + 1, u) - mag);
            if d0 < d1 || (d0 == d1 && l & 1 == 0) { l } else { l + 1 }
        };
        k | sign
    }

    fn rng(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    fn f16_fma(a: u16, b: u16, c: u16) -> u16 {
        f16::from_bits(a).mul_add(f16::from_bits(b), f16::from_bits(c)).to_bits()
    }

    fn bf16_fma(a: u16, b: u16, c: u16) -> u16 {
        bf16::from_bits(a).mul_add(bf16::from_bits(b), bf16::from_bits(c)).to_bits()
    }

    #[test]
    fn f16_fma_is_correctly_rounded() {
        // Every finite f16 is a multiple of 2^-24; products are multiples of 2^-48.
        let sp: Vec<u16> = [0x0000u16, 0x0001, 0x0002, 0x03ff, 0x0400, 0x0401, 0x1000, 0x3bff, 0x3c00, 0x3c01, 0x3e00, 0x5bff, 0x7bfe, 0x7bff, 0x6800, 0x1400, 0x0c00]
            .iter()
            .flat_map(|&b| [b, b | 0x8000])
            .collect();
        let mut cases = Vec::new();
        for &a in &sp {
            for &b in &sp {
                for &c in &sp {
                    cases.push((a, b, c));
                }
            }
        }
        let mut next = rng(0x1234_5678_9abc_def1);
        let finite = |x: u16| x & 0x7c00 != 0x7c00;
        while cases.len() < 200_000 {
            let r = next();
            let (a, b) = (r as u16, (r >> 16) as u16);
            // c near -a·b half the time, where the sum cancels and rounds.
            let c = if r >> 63 == 0 { (r >> 32) as u16 } else { (f16::from_f32(-(f16::from_bits(a).to_f32() * f16::from_bits(b).to_f32())).to_bits()).wrapping_add((r >> 40) as u16 & 3) };
            if finite(a) && finite(b) && finite(c) {
                cases.push((a, b, c));
            }
        }
        for (a, b, c) in cases {
            let want = reference(F16, a, b, c, 48, 0, 0x7c00);
            let got = f16_fma(a, b, c);
            assert_eq!(got, want, "f16 fma({a:#06x}, {b:#06x}, {c:#06x})");
        }
    }

    #[test]
    fn bf16_fma_is_correctly_rounded() {
        // Operands in [2^-20, 2^20] (multiples of 2^-27, products of 2^-54); the results'
        // magnitudes lie in [2^-54, 2^41], so the search runs from 2^-70 in units of 2^-80.
        let lo = bf16::from_f32(2f32.powi(-70)).to_bits();
        let hi = bf16::from_f32(2f32.powi(43)).to_bits();
        let mut next = rng(0x0fed_cba9_8765_4321);
        let pick = |r: u64| -> u16 {
            let exp = (127 - 20 + (r % 41) as u16) << 7;
            exp | ((r >> 8) as u16 & 0x7f) | ((r >> 20) as u16 & 0x8000)
        };
        let mut sp = Vec::new();
        for e in [-20i32, -1, 0, 1, 7, 8, 19] {
            let one = bf16::from_f32(2f32.powi(e)).to_bits();
            for d in [0u16, 1, 0x7f] {
                sp.push(one + d);
                sp.push((one + d) | 0x8000);
            }
        }
        let mut cases = Vec::new();
        for &a in &sp {
            for &b in &sp {
                for &c in &sp {
                    cases.push((a, b, c));
                }
            }
        }
        for _ in 0..200_000 {
            let (a, b) = (pick(next()), pick(next()));
            let r = next();
            let c = if r & 1 == 0 { pick(r) } else { bf16::from_f32(-(bf16::from_bits(a).to_f32() * bf16::from_bits(b).to_f32())).to_bits().wrapping_add((r >> 1) as u16 & 3) };
            if c & 0x7f80 < (127 - 20) << 7 || c & 0x7f80 > (127 + 20) << 7 {
                continue;
            }
            cases.push((a, b, c));
        }
        for (a, b, c) in cases {
            let want = reference(BF16, a, b, c, 80, lo, hi);
            assert_eq!(bf16_fma(a, b, c), want, "bf16 fma({a:#06x}, {b:#06x}, {c:#06x})");
        }
    }

    #[test]
    fn fma_special_values() {
        let (inf, nan) = (0x7c00u16, 0x7e00u16);
        let one = 0x3c00u16;
        assert_eq!(f16_fma(inf, one, 0xfbff), inf);
        assert!(f16::from_bits(f16_fma(inf, 0, one)).is_nan());
        assert!(f16::from_bits(f16_fma(inf, one, 0xfc00)).is_nan());
        assert!(f16::from_bits(f16_fma(nan, one, one)).is_nan());
        // Overflow: 65504 + 16 is halfway to 65536 and rounds (to even) to infinity.
        assert_eq!(f16_fma(0x7bff, one, 0x4c00), inf);
        assert_eq!(f16_fma(0x7bff, one, 0x4bff), 0x7bff);
        // Signed zeros: -0·1 + -0 = -0, 1·1 + -1 = +0, -0·1 + +0 = +0.
        assert_eq!(f16_fma(0x8000, one, 0x8000), 0x8000);
        assert_eq!(f16_fma(one, one, 0xbc00), 0x0000);
        assert_eq!(f16_fma(0x8000, one, 0x0000), 0x0000);
        // Products past halfway by less than f32 resolves (an `f32` fma rounds twice and
        // misses): 3 × 683 = 2049 is halfway between f16's 2048 and 2050; + 2^-20 → 2050.
        let h = |x: f32| f16::from_f32(x).to_bits();
        assert_eq!(f16_fma(h(3.0), h(683.0), h(2f32.powi(-20))), h(2050.0));
        assert_eq!(f16_fma(h(3.0), h(683.0), h(-2f32.powi(-20))), h(2048.0));
        // 7 × 37 = 259 is halfway between bf16's 258 and 260; − 2^-20 → 258.
        let b = |x: f32| bf16::from_f32(x).to_bits();
        assert_eq!(bf16_fma(b(7.0), b(37.0), b(-2f32.powi(-20))), b(258.0));
        assert_eq!(bf16_fma(b(7.0), b(37.0), b(2f32.powi(-20))), b(260.0));
        // 1 + 2^-134: the product far below 1's last bit.
        assert_eq!(bf16_fma(0x3b80, 0x0080, 0x3f80), 0x3f80);
        // bf16 overflow past f32's range: max·max + 0 is +infinity, max·max − huge likewise.
        assert_eq!(bf16_fma(0x7f7f, 0x7f7f, 0), 0x7f80);
        assert_eq!(bf16_fma(0xff7f, 0x7f7f, 0), 0xff80);
        assert_eq!(bf16_fma(0x3f80, 0x3f80, 0x7f80), 0x7f80);
    }

    #[test]
    fn abs_clears_the_sign() {
        for bits in [0x8000u16, 0xbc00, 0xfc00, 0x3c00, 0xfe00] {
            assert_eq!(f16::from_bits(bits).abs().to_bits(), bits & 0x7fff);
            assert_eq!(bf16::from_bits(bits).abs().to_bits(), bits & 0x7fff);
        }
    }
}
