//! Exactly rounded floating point in software, for every format PTX computes in (f16, bf16,
//! tf32, f32, f64) and every rounding mode (`.rn .rz .rm .rp`, and `.rna` for tf32).
//!
//! An operation first computes its exact result — or, where that is infinite (division,
//! square root), a truncated result plus a *sticky* bit saying that more nonzero bits follow —
//! as an integer significand times a power of two; [`encode`] then rounds it once into the
//! target format, subnormals and overflow included. Inputs have at most 53 significant bits, so
//! a product fits in 106 bits and every intermediate fits in a `u128`.
//!
//! The executor uses the hardware's own f32/f64 operations for round-to-nearest (IEEE 754
//! requires the same bits), and this module for everything else; the unit tests check the two
//! against each other, and the directed modes against the host FPU's directed modes.

/// A rounding mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rnd {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward −∞.
    Rm,
    /// Toward +∞.
    Rp,
    /// To nearest, ties away from zero (`cvt.rna.tf32.f32`).
    Rna,
}

impl Rnd {
    #[cfg(test)]
    pub const ALL: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

    pub fn from_index(i: u32) -> Rnd {
        match i & 7 {
            0 => Rnd::Rn,
            1 => Rnd::Rz,
            2 => Rnd::Rm,
            3 => Rnd::Rp,
            _ => Rnd::Rna,
        }
    }

    pub fn index(self) -> u32 {
        self as u32
    }
}

/// An IEEE-style binary format: significand bits (without the hidden bit) and exponent bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fmt {
    pub mant: u32,
    pub exp: u32,
}

pub const F16: Fmt = Fmt { mant: 10, exp: 5 };
pub const BF16: Fmt = Fmt { mant: 7, exp: 8 };
pub const F32: Fmt = Fmt { mant: 23, exp: 8 };
pub const F64: Fmt = Fmt { mant: 52, exp: 11 };
/// tf32's value set (f32's range, 10 significand bits); stored as f32 bits with the low 13
/// bits zero, which [`encode`] does not do by itself (see `cvt`).
pub const TF32: Fmt = Fmt { mant: 10, exp: 8 };

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn sign_bit(self) -> u64 {
        1 << (self.mant + self.exp)
    }
    fn exp_mask(self) -> u64 {
        (1 << self.exp) - 1
    }
    fn mant_mask(self) -> u64 {
        (1 << self.mant) - 1
    }
    pub fn inf(self, neg: bool) -> u64 {
        (if neg { self.sign_bit() } else { 0 }) | self.exp_mask() << self.mant
    }
    pub fn max_finite(self, neg: bool) -> u64 {
        (if neg { self.sign_bit() } else { 0 }) | (self.exp_mask() - 1) << self.mant | self.mant_mask()
    }
    /// NVIDIA GPUs return this NaN (all exponent and significand bits set, sign clear) from
    /// every arithmetic operation whose result is NaN.
    pub fn canonical_nan(self) -> u64 {
        self.exp_mask() << self.mant | self.mant_mask()
    }
    pub fn is_nan(self, bits: u64) -> bool {
        (bits >> self.mant) & self.exp_mask() == self.exp_mask() && bits & self.mant_mask() != 0
    }
    /// Is `bits` a subnormal (nonzero with a zero exponent field)?
    pub fn is_subnormal(self, bits: u64) -> bool {
        (bits >> self.mant) & self.exp_mask() == 0 && bits & self.mant_mask() != 0
    }
    /// Replaces a subnormal by a zero of the same sign (`.ftz`).
    pub fn flush(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & self.sign_bit()
        } else {
            bits
        }
    }
}

/// A finite nonzero value `mant × 2^exp`, plus "a little more" (strictly between 0 and one unit
/// of `mant`'s last place) when `sticky`. A sticky value always carries at least 64 significant
/// bits, so rounding to any format sees the sticky bits below its rounding position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fin {
    pub neg: bool,
    pub mant: u128,
    pub exp: i32,
    pub sticky: bool,
}

/// A decoded floating-point value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Num {
    Nan,
    Inf(bool),
    Zero(bool),
    Fin(Fin),
}

pub fn decode(bits: u64, fmt: Fmt) -> Num {
    let neg = bits & fmt.sign_bit() != 0;
    let e = (bits >> fmt.mant) & fmt.exp_mask();
    let m = bits & fmt.mant_mask();
    if e == fmt.exp_mask() {
        return if m == 0 { Num::Inf(neg) } else { Num::Nan };
    }
    if e == 0 {
        if m == 0 {
            return Num::Zero(neg);
        }
        return Num::Fin(Fin { neg, mant: m as u128, exp: 1 - fmt.bias() - fmt.mant as i32, sticky: false });
    }
    Num::Fin(Fin { neg, mant: (m | 1 << fmt.mant) as u128, exp: e as i32 - fmt.bias() - fmt.mant as i32, sticky: false })
}

/// An exact integer as a [`Num`].
pub fn from_int(v: i128) -> Num {
    if v == 0 {
        Num::Zero(false)
    } else {
        Num::Fin(Fin { neg: v < 0, mant: v.unsigned_abs(), exp: 0, sticky: false })
    }
}

/// Rounds `n` into `fmt` (NaN becomes the canonical NaN).
pub fn encode(n: Num, fmt: Fmt, rnd: Rnd) -> u64 {
    match n {
        Num::Nan => fmt.canonical_nan(),
        Num::Inf(neg) => fmt.inf(neg),
        Num::Zero(neg) => {
            if neg {
                fmt.sign_bit()
            } else {
                0
            }
        }
        Num::Fin(f) => round(f, fmt, rnd),
    }
}

fn round(f: Fin, fmt: Fmt, rnd: Rnd) -> u64 {
    let p = fmt.mant as i32 + 1;
    let emin = 1 - fmt.bias();
    let top = 127 - f.mant.leading_zeros() as i32;
    let e = f.exp + top;
    let lsb = (e - (p - 1)).max(emin - (p - 1));
    let shift = lsb - f.exp;
    let (mut m, half, rest) = if shift <= 0 {
        debug_assert!(!f.sticky || shift == 0 || top + 1 >= 64);
        (f.mant << (-shift) as u32, false, f.sticky)
    } else if shift > 128 {
        (0, false, true)
    } else if shift == 128 {
        (0, f.mant >> 127 == 1, f.mant << 1 != 0 || f.sticky)
    } else {
        let s = shift as u32;
        let below = f.mant & ((1u128 << (s - 1)) - 1);
        (f.mant >> s, (f.mant >> (s - 1)) & 1 == 1, below != 0 || f.sticky)
    };
    let up = match rnd {
        Rnd::Rn => half && (rest || m & 1 == 1),
        Rnd::Rna => half,
        Rnd::Rz => false,
        Rnd::Rp => !f.neg && (half || rest),
        Rnd::Rm => f.neg && (half || rest),
    };
    m += up as u128;
    let mut lsb = lsb;
    if m >> p != 0 {
        m >>= 1;
        lsb += 1;
    }
    let sign = if f.neg { fmt.sign_bit() } else { 0 };
    if m == 0 {
        return sign;
    }
    let biased = if m >> (p - 1) != 0 { (lsb + p - 1 + fmt.bias()) as i64 } else { 0 };
    if biased >= fmt.exp_mask() as i64 {
        let to_inf = match rnd {
            Rnd::Rn | Rnd::Rna => true,
            Rnd::Rz => false,
            Rnd::Rp => !f.neg,
            Rnd::Rm => f.neg,
        };
        return if to_inf { fmt.inf(f.neg) } else { fmt.max_finite(f.neg) };
    }
    sign | (biased as u64) << fmt.mant | (m as u64 & fmt.mant_mask())
}

/// Normalizes an exact (non-sticky) value so its leading bit is at bit 125.
fn norm125(f: Fin) -> Fin {
    let top = 127 - f.mant.leading_zeros() as i32;
    let s = 125 - top;
    debug_assert!(s >= 0 && !f.sticky);
    Fin { mant: f.mant << s, exp: f.exp - s, ..f }
}

fn neg(n: Num) -> Num {
    match n {
        Num::Nan => Num::Nan,
        Num::Inf(s) => Num::Inf(!s),
        Num::Zero(s) => Num::Zero(!s),
        Num::Fin(f) => Num::Fin(Fin { neg: !f.neg, ..f }),
    }
}

/// `a + b`, exact (or sticky); `rnd` only decides the sign of an exact zero sum.
pub fn add(a: Num, b: Num, rnd: Rnd) -> Num {
    match (a, b) {
        (Num::Nan, _) | (_, Num::Nan) => Num::Nan,
        (Num::Inf(x), Num::Inf(y)) => {
            if x == y {
                Num::Inf(x)
            } else {
                Num::Nan
            }
        }
        (Num::Inf(x), _) | (_, Num::Inf(x)) => Num::Inf(x),
        (Num::Zero(x), Num::Zero(y)) => Num::Zero(if x == y { x } else { rnd == Rnd::Rm }),
        (Num::Zero(_), v) | (v, Num::Zero(_)) => v,
        (Num::Fin(x), Num::Fin(y)) => add_fin(x, y, rnd),
    }
}

fn add_fin(x: Fin, y: Fin, rnd: Rnd) -> Num {
    let (mut x, mut y) = (norm125(x), norm125(y));
    if (y.exp, y.mant) > (x.exp, x.mant) {
        std::mem::swap(&mut x, &mut y);
    }
    let d = (x.exp - y.exp) as u32;
    let (ym, lost) = if d >= 128 { (0, true) } else { (y.mant >> d, d > 0 && y.mant & ((1u128 << d) - 1) != 0) };
    let mant = if x.neg == y.neg {
        x.mant + ym
    } else {
        let m = x.mant - ym - lost as u128;
        if m == 0 && !lost {
            return Num::Zero(rnd == Rnd::Rm);
        }
        m
    };
    Num::Fin(Fin { neg: x.neg, mant, exp: x.exp, sticky: lost })
}

pub fn sub(a: Num, b: Num, rnd: Rnd) -> Num {
    add(a, neg(b), rnd)
}

pub fn mul(a: Num, b: Num) -> Num {
    match (a, b) {
        (Num::Nan, _) | (_, Num::Nan) => Num::Nan,
        (Num::Inf(_), Num::Zero(_)) | (Num::Zero(_), Num::Inf(_)) => Num::Nan,
        (Num::Inf(x), v) | (v, Num::Inf(x)) => Num::Inf(x ^ sign(v)),
        (Num::Zero(x), v) | (v, Num::Zero(x)) => Num::Zero(x ^ sign(v)),
        (Num::Fin(x), Num::Fin(y)) => {
            Num::Fin(Fin { neg: x.neg ^ y.neg, mant: x.mant * y.mant, exp: x.exp + y.exp, sticky: false })
        }
    }
}

fn sign(n: Num) -> bool {
    match n {
        Num::Nan => false,
        Num::Inf(s) | Num::Zero(s) => s,
        Num::Fin(f) => f.neg,
    }
}

/// `a × b + c` with one rounding (by the caller).
pub fn fma(a: Num, b: Num, c: Num, rnd: Rnd) -> Num {
    add(mul(a, b), c, rnd)
}

pub fn div(a: Num, b: Num) -> Num {
    match (a, b) {
        (Num::Nan, _) | (_, Num::Nan) => Num::Nan,
        (Num::Inf(_), Num::Inf(_)) | (Num::Zero(_), Num::Zero(_)) => Num::Nan,
        (Num::Inf(x), v) => Num::Inf(x ^ sign(v)),
        (v, Num::Inf(x)) => Num::Zero(x ^ sign(v)),
        (Num::Zero(x), v) => Num::Zero(x ^ sign(v)),
        (v, Num::Zero(x)) => Num::Inf(x ^ sign(v)),
        (Num::Fin(x), Num::Fin(y)) => {
            let top = 127 - x.mant.leading_zeros() as i32;
            let s = 126 - top;
            let n = x.mant << s;
            let q = n / y.mant;
            let r = n % y.mant;
            Num::Fin(Fin { neg: x.neg ^ y.neg, mant: q, exp: x.exp - s - y.exp, sticky: r != 0 })
        }
    }
}

pub fn sqrt(a: Num) -> Num {
    match a {
        Num::Nan => Num::Nan,
        Num::Inf(false) => Num::Inf(false),
        Num::Inf(true) => Num::Nan,
        Num::Zero(s) => Num::Zero(s),
        Num::Fin(f) if f.neg => Num::Nan,
        Num::Fin(f) => {
            let (mut m, mut e) = (f.mant, f.exp);
            let top = 127 - m.leading_zeros() as i32;
            let mut s = 120 - top;
            if (e - s) % 2 != 0 {
                s += 1;
            }
            m <<= s;
            e -= s;
            let q = isqrt(m);
            Num::Fin(Fin { neg: false, mant: q, exp: e / 2, sticky: q * q != m })
        }
    }
}

fn isqrt(m: u128) -> u128 {
    let mut q = (m as f64).sqrt() as u128;
    if q > 0 {
        q = (q + m / q) / 2;
    }
    while q * q > m {
        q -= 1;
    }
    while (q + 1) * (q + 1) <= m {
        q += 1;
    }
    q
}

/// Rounds to an integral value in the same format (`cvt.rni.f32.f32`): the exact value is
/// rounded at the units place.
pub fn round_integral(a: Num, rnd: Rnd) -> Num {
    let Num::Fin(f) = a else { return a };
    if f.exp >= 0 {
        return a;
    }
    let s = (-f.exp) as u32;
    let (int, half, rest) = if s > 127 {
        (0, false, true)
    } else {
        let below = if s >= 1 { f.mant & ((1u128 << (s - 1)) - 1) } else { 0 };
        (f.mant >> s, (f.mant >> (s - 1)) & 1 == 1, below != 0 || f.sticky)
    };
    let up = match rnd {
        Rnd::Rn => half && (rest || int & 1 == 1),
        Rnd::Rna => half,
        Rnd::Rz => false,
        Rnd::Rp => !f.neg && (half || rest),
        Rnd::Rm => f.neg && (half || rest),
    };
    let v = int + up as u128;
    if v == 0 {
        Num::Zero(f.neg)
    } else {
        Num::Fin(Fin { neg: f.neg, mant: v, exp: 0, sticky: false })
    }
}

/// The integer a value rounds to, or `None` for NaN; infinities give ±`i128::MAX`-ish bounds
/// (callers saturate).
pub fn to_int(a: Num, rnd: Rnd) -> Option<i128> {
    match round_integral(a, rnd) {
        Num::Nan => None,
        Num::Inf(s) => Some(if s { i128::MIN } else { i128::MAX }),
        Num::Zero(_) => Some(0),
        Num::Fin(f) => {
            let v = if f.exp >= 64 || f.mant >> (127 - f.exp.max(0)) != 0 {
                i128::MAX
            } else {
                (f.mant << f.exp as u32).min(i128::MAX as u128) as i128
            };
            Some(if f.neg { -v } else { v })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator of interesting bit patterns: random bits, with extra
    /// weight on subnormals, tiny and huge exponents, and values near powers of two.
    pub struct Gen(u64);
    impl Gen {
        pub fn new(seed: u64) -> Gen {
            Gen(seed ^ 0x9e37_79b9_7f4a_7c15)
        }
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn f32(&mut self) -> u32 {
            let r = self.next();
            let bits = r as u32;
            match (r >> 32) % 8 {
                0 => bits & 0x807f_ffff,                                  // subnormal
                1 => (bits & 0x80ff_ffff) | 0x0080_0000,                  // tiny normal
                2 => (bits & 0x807f_ffff) | 0x7f00_0000,                  // huge
                3 => (bits & 0x8000_0000) | 0x3f80_0000 | (bits & 0xf),   // near 1
                4 => (bits & 0xffff_0000) | 0x3f80_0000 >> 16 << 16,      // short significand
                _ => bits,
            }
        }
        pub fn f64(&mut self) -> u64 {
            let r = self.next();
            match self.next() % 8 {
                0 => r & 0x800f_ffff_ffff_ffff,
                1 => (r & 0x801f_ffff_ffff_ffff) | 0x0010_0000_0000_0000,
                2 => (r & 0x800f_ffff_ffff_ffff) | 0x7fe0_0000_0000_0000,
                3 => (r & 0x8000_0000_0000_00ff) | 0x3ff0_0000_0000_0000,
                4 => (r & 0x8000_0000_0000_0000) | ((r >> 1) & 0x000f_ffff_0000_0000) | 0x3ff0_0000_0000_0000,
                _ => r,
            }
        }
    }

    fn canon32(x: f32) -> u32 {
        if x.is_nan() {
            F32.canonical_nan() as u32
        } else {
            x.to_bits()
        }
    }
    fn canon64(x: f64) -> u64 {
        if x.is_nan() {
            F64.canonical_nan()
        } else {
            x.to_bits()
        }
    }

    /// `sqrt.rn` as PTX specifies it: without `.ftz` subnormals are supported and the result is
    /// IEEE 754's, so the square root of every negative number but -0.0 (subnormals included)
    /// is NaN, and a NaN result is the canonical NaN. Decided from the bits for negative
    /// inputs, not by the host, whose square root of a negative subnormal depends on the CPU
    /// and its modes (one that treats subnormal inputs as zero returns -0.0).
    fn sqrt32(x: f32) -> u32 {
        if x.to_bits() > 0x8000_0000 {
            F32.canonical_nan() as u32
        } else {
            canon32(x.sqrt())
        }
    }
    fn sqrt64(x: f64) -> u64 {
        if x.to_bits() > 0x8000_0000_0000_0000 {
            F64.canonical_nan()
        } else {
            canon64(x.sqrt())
        }
    }

    #[test]
    fn sqrt_of_a_negative_is_the_canonical_nan() {
        for bits in [0x8000_0001u32, 0x807f_ffff, 0x8080_0000, 0xbf80_0000, 0xff80_0000] {
            assert_eq!(encode(sqrt(decode(bits as u64, F32)), F32, Rnd::Rn) as u32, 0x7fff_ffff, "sqrt {bits:#x}");
        }
        assert_eq!(encode(sqrt(decode(0x8000_0000, F32)), F32, Rnd::Rn), 0x8000_0000, "sqrt(-0) = -0");
        assert_eq!(encode(sqrt(decode(0x8000_0000_0000_0001, F64)), F64, Rnd::Rn), F64.canonical_nan());
    }

    /// Round-to-nearest in software equals the host's IEEE arithmetic (NaN results compared as
    /// the ISA's canonical NaN, and `sqrt` of a negative as the ISA says).
    #[test]
    fn nearest_matches_hardware() {
        let mut g = Gen::new(1);
        for _ in 0..200_000 {
            let (a, b, c) = (g.f32(), g.f32(), g.f32());
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let d = |v| decode(v as u64, F32);
            let e = |n| encode(n, F32, Rnd::Rn) as u32;
            assert_eq!(e(add(d(a), d(b), Rnd::Rn)), canon32(x + y), "{x:e} + {y:e}");
            assert_eq!(e(sub(d(a), d(b), Rnd::Rn)), canon32(x - y), "{x:e} - {y:e}");
            assert_eq!(e(mul(d(a), d(b))), canon32(x * y), "{x:e} * {y:e}");
            assert_eq!(e(div(d(a), d(b))), canon32(x / y), "{x:e} / {y:e}");
            assert_eq!(e(sqrt(d(a))), sqrt32(x), "sqrt {x:e}");
            assert_eq!(e(fma(d(a), d(b), d(c), Rnd::Rn)), canon32(x.mul_add(y, z)), "fma {x:e} {y:e} {z:e}");

            let (a, b, c) = (g.f64(), g.f64(), g.f64());
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let d = |v| decode(v, F64);
            let e = |n| encode(n, F64, Rnd::Rn);
            assert_eq!(e(add(d(a), d(b), Rnd::Rn)), canon64(x + y), "{x:e} + {y:e}");
            assert_eq!(e(mul(d(a), d(b))), canon64(x * y), "{x:e} * {y:e}");
            assert_eq!(e(div(d(a), d(b))), canon64(x / y), "{x:e} / {y:e}");
            assert_eq!(e(sqrt(d(a))), sqrt64(x), "sqrt {x:e}");
            assert_eq!(e(fma(d(a), d(b), d(c), Rnd::Rn)), canon64(x.mul_add(y, z)), "fma {x:e} {y:e} {z:e}");
            // Narrowing conversion.
            assert_eq!(encode(d(a), F32, Rnd::Rn) as u32, canon32(x as f32), "{x:e} as f32");
        }
    }

    #[test]
    fn directed_rounding_brackets_the_exact_value() {
        // For add/mul/div of f32 the exact result is representable as an f64 pair; check
        // rz/rm/rp against it: rm ≤ exact ≤ rp, one ulp apart unless exact, rz toward zero.
        let mut g = Gen::new(2);
        for _ in 0..100_000 {
            let (a, b) = (g.f32(), g.f32());
            let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
            let exact = x * y; // exact: 48-bit product
            if !exact.is_finite() || exact == 0.0 {
                continue;
            }
            let p = mul(decode(a as u64, F32), decode(b as u64, F32));
            let rm = f32::from_bits(encode(p, F32, Rnd::Rm) as u32) as f64;
            let rp = f32::from_bits(encode(p, F32, Rnd::Rp) as u32) as f64;
            let rz = f32::from_bits(encode(p, F32, Rnd::Rz) as u32) as f64;
            assert!(rm <= exact && exact <= rp, "{x:e}*{y:e}: {rm:e} {exact:e} {rp:e}");
            if rm.is_finite() && rp.is_finite() {
                assert!(rm == rp || (rp as f32) == (rm as f32).next_up(), "{rm:e} {rp:e}");
            }
            assert_eq!(rz, if exact > 0.0 { rm } else { rp });
        }
    }

    #[test]
    fn special_values() {
        let d = |v: f32| decode(v.to_bits() as u64, F32);
        let e = |n, r| f32::from_bits(encode(n, F32, r) as u32);
        assert_eq!(e(add(d(1.0), d(-1.0), Rnd::Rm), Rnd::Rm).to_bits(), (-0.0f32).to_bits());
        assert_eq!(e(add(d(1.0), d(-1.0), Rnd::Rn), Rnd::Rn).to_bits(), 0);
        assert_eq!(e(mul(d(f32::MAX), d(2.0)), Rnd::Rz), f32::MAX);
        assert_eq!(e(mul(d(f32::MAX), d(-2.0)), Rnd::Rp), -f32::MAX);
        assert_eq!(e(mul(d(f32::MAX), d(-2.0)), Rnd::Rm), f32::NEG_INFINITY);
        assert_eq!(encode(sqrt(d(-1.0)), F32, Rnd::Rn), 0x7fff_ffff);
        // Smallest subnormal, rounded up from below half of it.
        assert_eq!(e(mul(d(1.0e-30), d(1.0e-30)), Rnd::Rp).to_bits(), 1);
        assert_eq!(e(mul(d(1.0e-30), d(1.0e-30)), Rnd::Rn).to_bits(), 0);
        assert_eq!(to_int(d(2.5), Rnd::Rn), Some(2));
        assert_eq!(to_int(d(-2.5), Rnd::Rm), Some(-3));
        assert_eq!(to_int(d(3.5), Rnd::Rn), Some(4));
        assert_eq!(to_int(d(1e30), Rnd::Rz).map(|v| v > u64::MAX as i128), Some(true));
        assert_eq!(encode(decode(0x3c00, F16), F32, Rnd::Rn), 1.0f32.to_bits() as u64);
        assert_eq!(encode(d(65520.0), F16, Rnd::Rn), 0x7c00); // rounds to +inf
        assert_eq!(encode(d(65519.0), F16, Rnd::Rn), 0x7bff);
        assert_eq!(encode(d(1.0 + 1.0 / 256.0), BF16, Rnd::Rn), 0x3f80); // tie to even
    }

    /// The host FPU in directed-rounding modes (x86 MXCSR) as an independent oracle.
    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::*;
        use std::arch::asm;

        fn with_mode<T>(rnd: Rnd, f: impl FnOnce() -> T) -> T {
            let rc: u32 = match rnd {
                Rnd::Rn => 0,
                Rnd::Rm => 1,
                Rnd::Rp => 2,
                Rnd::Rz => 3,
                Rnd::Rna => unreachable!(),
            };
            let mut old: u32 = 0;
            unsafe { asm!("stmxcsr [{}]", in(reg) &mut old) };
            let new = (old & !(3 << 13)) | rc << 13;
            unsafe { asm!("ldmxcsr [{}]", in(reg) &new) };
            let r = f();
            unsafe { asm!("ldmxcsr [{}]", in(reg) &old) };
            r
        }

        fn hw32(op: u8, a: f32, b: f32) -> f32 {
            let mut x = a;
            unsafe {
                match op {
                    0 => asm!("addss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
                    1 => asm!("mulss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
                    2 => asm!("divss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
                    _ => asm!("sqrtss {x}, {x}", x = inout(xmm_reg) x),
                }
            }
            x
        }

        fn hw64(op: u8, a: f64, b: f64) -> f64 {
            let mut x = a;
            unsafe {
                match op {
                    0 => asm!("addsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
                    1 => asm!("mulsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
                    2 => asm!("divsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
                    _ => asm!("sqrtsd {x}, {x}", x = inout(xmm_reg) x),
                }
            }
            x
        }

        fn hw_cvt(rnd: Rnd, a: f64) -> f32 {
            with_mode(rnd, || {
                let x: f32;
                unsafe { asm!("cvtsd2ss {x}, {y}", x = out(xmm_reg) x, y = in(xmm_reg) a) };
                x
            })
        }

        #[test]
        fn directed_modes_match_the_host_fpu() {
            let mut g = Gen::new(3);
            for i in 0..200_000u32 {
                let rnd = Rnd::ALL[(i % 4) as usize];
                let op = (i / 4 % 4) as u8;
                let (a, b) = (g.f32(), g.f32());
                let (na, nb) = (decode(a as u64, F32), decode(b as u64, F32));
                let soft = match op {
                    0 => add(na, nb, rnd),
                    1 => mul(na, nb),
                    2 => div(na, nb),
                    _ => sqrt(na),
                };
                let got = encode(soft, F32, rnd) as u32;
                let want = with_mode(rnd, || hw32(op, f32::from_bits(a), f32::from_bits(b)));
                let want = if want.is_nan() { 0x7fff_ffff } else { want.to_bits() };
                assert_eq!(got, want, "op {op} {rnd:?} {:e} {:e}", f32::from_bits(a), f32::from_bits(b));

                let (a, b) = (g.f64(), g.f64());
                let (na, nb) = (decode(a, F64), decode(b, F64));
                let soft = match op {
                    0 => add(na, nb, rnd),
                    1 => mul(na, nb),
                    2 => div(na, nb),
                    _ => sqrt(na),
                };
                let got = encode(soft, F64, rnd);
                let want = with_mode(rnd, || hw64(op, f64::from_bits(a), f64::from_bits(b)));
                let want = if want.is_nan() { F64.canonical_nan() } else { want.to_bits() };
                assert_eq!(got, want, "op {op} {rnd:?} {:e} {:e}", f64::from_bits(a), f64::from_bits(b));

                let got = encode(na, F32, rnd) as u32;
                let want = hw_cvt(rnd, f64::from_bits(a));
                let want = if want.is_nan() { 0x7fff_ffff } else { want.to_bits() };
                assert_eq!(got, want, "cvt {rnd:?} {:e}", f64::from_bits(a));
            }
        }

        #[test]
        fn directed_fma_matches_the_host_fpu() {
            if !std::arch::is_x86_feature_detected!("fma") {
                eprintln!("host has no FMA instruction; directed fma checked only by bracketing");
                return;
            }
            let mut g = Gen::new(4);
            for i in 0..100_000u32 {
                let rnd = Rnd::ALL[(i % 4) as usize];
                let (a, b, c) = (g.f64(), g.f64(), g.f64());
                let got = encode(fma(decode(a, F64), decode(b, F64), decode(c, F64), rnd), F64, rnd);
                let want = with_mode(rnd, || {
                    let mut x = f64::from_bits(a);
                    unsafe {
                        asm!("vfmadd213sd {x}, {y}, {z}", x = inout(xmm_reg) x, y = in(xmm_reg) f64::from_bits(b), z = in(xmm_reg) f64::from_bits(c))
                    };
                    x
                });
                let want = if want.is_nan() { F64.canonical_nan() } else { want.to_bits() };
                assert_eq!(got, want, "fma {rnd:?} {a:x} {b:x} {c:x}");

                let (a, b, c) = (g.f32(), g.f32(), g.f32());
                let got = encode(fma(decode(a as u64, F32), decode(b as u64, F32), decode(c as u64, F32), rnd), F32, rnd) as u32;
                let want = with_mode(rnd, || {
                    let mut x = f32::from_bits(a);
                    unsafe {
                        asm!("vfmadd213ss {x}, {y}, {z}", x = inout(xmm_reg) x, y = in(xmm_reg) f32::from_bits(b), z = in(xmm_reg) f32::from_bits(c))
                    };
                    x
                });
                let want = if want.is_nan() { 0x7fff_ffff } else { want.to_bits() };
                assert_eq!(got, want, "fma32 {rnd:?} {a:x} {b:x} {c:x}");
            }
        }
    }
}
