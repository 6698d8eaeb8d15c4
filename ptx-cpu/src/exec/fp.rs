//! Floating-point instructions: IEEE arithmetic exactly rounded in every mode, `.ftz`, `.sat`,
//! `.relu`, NaN rules, the `.approx` functions, comparisons and classification.
//!
//! `k` layout: bits 0–2 rounding mode ([`Rnd::index`]), [`FTZ`], [`SAT`], [`RELU`], format in
//! bits 8–11 ([`F32`] …), [`X2`] for packed pairs, operation-specific bits above 16.
//!
//! Round-to-nearest f32/f64 arithmetic runs on the host FPU (IEEE 754 fixes the result bits);
//! everything else goes through [`softfloat`]. Every NaN result is the canonical NaN, as on
//! NVIDIA GPUs. Approximate functions are computed in f64 and rounded once, which is within
//! (tighter than) the error bounds the PTX ISA documents for them.

use super::lanes::{map1, map2, map3};
use super::softfloat::{self as sf, Fmt, Rnd};
use crate::program::Lanes;

type L = Lanes;

pub const FTZ: u32 = 1 << 3;
pub const SAT: u32 = 1 << 4;
pub const RELU: u32 = 1 << 5;
/// `min/max.NaN`: any NaN input gives NaN.
pub const NAN: u32 = 1 << 6;
/// `min/max.xorsign.abs`.
pub const XORSIGN: u32 = 1 << 7;
pub const F32: u32 = 0 << 8;
pub const F64: u32 = 1 << 8;
pub const F16: u32 = 2 << 8;
pub const BF16: u32 = 3 << 8;
/// Two packed 16-bit values (`.f16x2`, `.bf16x2`).
pub const X2: u32 = 1 << 12;

#[inline(always)]
fn rnd(k: u32) -> Rnd {
    Rnd::from_index(k & 7)
}

pub fn fmt(k: u32) -> Fmt {
    match (k >> 8) & 0xf {
        0 => sf::F32,
        1 => sf::F64,
        2 => sf::F16,
        _ => sf::BF16,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
    Rcp,
}

/// `x × y + z` rounded once to f32, without an FMA instruction: the product is exact in f64,
/// the sum is rounded to f64 *to odd* (TwoSum gives its exact error), and rounding that to f32
/// is then correct — f64 carries more than twice f32's precision plus two bits
/// (Boldo & Melquiond, "When double rounding is odd").
#[inline(always)]
pub fn fma32(x: f32, y: f32, z: f32) -> f32 {
    let p = x as f64 * y as f64;
    let zd = z as f64;
    let s = p + zd;
    if !s.is_finite() {
        return s as f32;
    }
    let bb = s - p;
    let e = (p - (s - bb)) + (zd - bb);
    let bits = s.to_bits();
    let odd = if e != 0.0 && bits & 1 == 0 {
        if (e > 0.0) == (s > 0.0) {
            bits + 1
        } else {
            bits - 1
        }
    } else {
        bits
    };
    f64::from_bits(odd) as f32
}

/// f64 fused multiply-add over the lanes with the host's FMA instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma64_lanes_hw(a: &L, b: &L, c: &L, o: &mut L) {
    for i in 0..32 {
        o[i] = canon64(f64::from_bits(a[i]).mul_add(f64::from_bits(b[i]), f64::from_bits(c[i])));
    }
}

#[inline(always)]
fn canon64(v: f64) -> u64 {
    if v.is_nan() {
        sf::F64.canonical_nan()
    } else {
        v.to_bits()
    }
}

/// One arithmetic operation on one element of format `f`, with `k`'s modifiers.
fn arith_one(op: Arith, a: u64, b: u64, c: u64, f: Fmt, k: u32) -> u64 {
    let ftz = k & FTZ != 0;
    let (a, b, c) = if ftz { (f.flush(a), f.flush(b), f.flush(c)) } else { (a, b, c) };
    let r = rnd(k);
    let native = r == Rnd::Rn && (f == sf::F32 || f == sf::F64);
    let mut d = if native && f == sf::F32 {
        let (x, y, z) = (f32::from_bits(a as u32), f32::from_bits(b as u32), f32::from_bits(c as u32));
        let v = match op {
            Arith::Add => x + y,
            Arith::Sub => x - y,
            Arith::Mul => x * y,
            Arith::Fma => fma32(x, y, z),
            Arith::Div => x / y,
            Arith::Sqrt => x.sqrt(),
            Arith::Rcp => 1.0 / x,
        };
        if v.is_nan() {
            f.canonical_nan()
        } else {
            v.to_bits() as u64
        }
    } else if native {
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let v = match op {
            Arith::Add => x + y,
            Arith::Sub => x - y,
            Arith::Mul => x * y,
            Arith::Fma => x.mul_add(y, z),
            Arith::Div => x / y,
            Arith::Sqrt => x.sqrt(),
            Arith::Rcp => 1.0 / x,
        };
        if v.is_nan() {
            f.canonical_nan()
        } else {
            v.to_bits()
        }
    } else {
        let (x, y, z) = (sf::decode(a, f), sf::decode(b, f), sf::decode(c, f));
        let v = match op {
            Arith::Add => sf::add(x, y, r),
            Arith::Sub => sf::sub(x, y, r),
            Arith::Mul => sf::mul(x, y),
            Arith::Fma => sf::fma(x, y, z, r),
            Arith::Div => sf::div(x, y),
            Arith::Sqrt => sf::sqrt(x),
            Arith::Rcp => sf::div(sf::from_int(1), x),
        };
        sf::encode(v, f, r)
    };
    if ftz {
        d = f.flush(d);
    }
    saturate(d, f, k)
}

/// `.sat` clamps to [0, 1] (NaN → +0); `.relu` clamps negatives to +0 (NaN stays NaN).
#[inline(always)]
fn saturate(d: u64, f: Fmt, k: u32) -> u64 {
    if k & (SAT | RELU) == 0 {
        return d;
    }
    let neg = d >> (f.mant + f.exp) & 1 == 1;
    if f.is_nan(d) {
        return if k & SAT != 0 { 0 } else { f.canonical_nan() };
    }
    if neg {
        return 0;
    }
    if k & SAT != 0 {
        let one = sf::encode(sf::from_int(1), f, Rnd::Rn);
        if d > one {
            return one;
        }
    }
    d
}

/// Applies `op` to every lane, element-wise for packed pairs.
#[inline(always)]
fn arith(op: Arith, a: &L, b: &L, c: &L, k: u32, o: &mut L) {
    let f = fmt(k);
    if k & (X2 | 0xf00 | 0x7f) == 0 {
        // f32, round to nearest, no modifiers: the hot path.
        match op {
            Arith::Add => map2(a, b, o, |x, y| canon32(f32::from_bits(x as u32) + f32::from_bits(y as u32))),
            Arith::Sub => map2(a, b, o, |x, y| canon32(f32::from_bits(x as u32) - f32::from_bits(y as u32))),
            Arith::Mul => map2(a, b, o, |x, y| canon32(f32::from_bits(x as u32) * f32::from_bits(y as u32))),
            Arith::Fma => map3(a, b, c, o, |x, y, z| canon32(fma32(f32::from_bits(x as u32), f32::from_bits(y as u32), f32::from_bits(z as u32)))),
            _ => map3(a, b, c, o, |x, y, z| arith_one(op, x, y, z, f, k)),
        }
    } else if k & (X2 | 0xf00 | 0x7f) == F64 && op == Arith::Fma && cfg!(target_arch = "x86_64") && fma_hw() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the host has the FMA instruction set (checked by `fma_hw`).
        unsafe {
            fma64_lanes_hw(a, b, c, o)
        }
    } else if k & X2 != 0 {
        map3(a, b, c, o, |x, y, z| {
            let lo = arith_one(op, x & 0xffff, y & 0xffff, z & 0xffff, f, k);
            let hi = arith_one(op, (x >> 16) & 0xffff, (y >> 16) & 0xffff, (z >> 16) & 0xffff, f, k);
            hi << 16 | lo
        });
    } else {
        map3(a, b, c, o, |x, y, z| arith_one(op, x, y, z, f, k));
    }
}

fn fma_hw() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

#[inline(always)]
fn canon32(v: f32) -> u64 {
    if v.is_nan() {
        0x7fff_ffff
    } else {
        v.to_bits() as u64
    }
}

pub fn add(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Add, a, b, c, k, o);
}
pub fn sub(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Sub, a, b, c, k, o);
}
pub fn mul(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Mul, a, b, c, k, o);
}
pub fn fma(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Fma, a, b, c, k, o);
}
pub fn div(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Div, a, b, c, k, o);
}
pub fn sqrt(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Sqrt, a, b, c, k, o);
}
pub fn rcp(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    arith(Arith::Rcp, a, b, c, k, o);
}

/// Sign-bit operations: they keep NaN payloads, as the GPU's do; `.ftz` flushes.
pub fn abs(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let f = fmt(k);
    let x2 = k & X2 != 0;
    let ftz = k & FTZ != 0;
    let one = move |x: u64| {
        let x = if ftz { f.flush(x) } else { x };
        x & !(1 << (f.mant + f.exp))
    };
    map1(a, o, |x| if x2 { one(x >> 16 & 0xffff) << 16 | one(x & 0xffff) } else { one(x) });
}

pub fn neg(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let f = fmt(k);
    let x2 = k & X2 != 0;
    let ftz = k & FTZ != 0;
    let one = move |x: u64| {
        let x = if ftz { f.flush(x) } else { x };
        x ^ (1 << (f.mant + f.exp))
    };
    map1(a, o, |x| if x2 { one(x >> 16 & 0xffff) << 16 | one(x & 0xffff) } else { one(x) });
}

/// A value of format `f` as f64 (exact: every format here is a subset of f64).
#[inline(always)]
pub fn to_f64(x: u64, f: Fmt) -> f64 {
    if f == sf::F64 {
        f64::from_bits(x)
    } else if f == sf::F32 {
        f32::from_bits(x as u32) as f64
    } else {
        f64::from_bits(sf::encode(sf::decode(x, f), sf::F64, Rnd::Rn))
    }
}

fn minmax_one(x: u64, y: u64, f: Fmt, k: u32, max: bool) -> u64 {
    let (x, y) = if k & FTZ != 0 { (f.flush(x), f.flush(y)) } else { (x, y) };
    let (nx, ny) = (f.is_nan(x), f.is_nan(y));
    let sign = 1u64 << (f.mant + f.exp);
    if (nx && ny) || (k & NAN != 0 && (nx || ny)) {
        return f.canonical_nan();
    }
    if nx {
        return y;
    }
    if ny {
        return x;
    }
    let (vx, vy) = if k & XORSIGN != 0 { (x & !sign, y & !sign) } else { (x, y) };
    let (fx, fy) = (to_f64(vx, f), to_f64(vy, f));
    // +0.0 > -0.0.
    let x_less = fx < fy || (fx == fy && vx & sign != 0 && vy & sign == 0);
    let r = if x_less != max { vx } else { vy };
    if k & XORSIGN != 0 {
        r | ((x ^ y) & sign)
    } else {
        r
    }
}

fn minmax(a: &L, b: &L, k: u32, o: &mut L, max: bool) {
    let f = fmt(k);
    if k & X2 != 0 {
        map2(a, b, o, |x, y| {
            let lo = saturate(minmax_one(x & 0xffff, y & 0xffff, f, k, max), f, k & RELU);
            let hi = saturate(minmax_one(x >> 16 & 0xffff, y >> 16 & 0xffff, f, k, max), f, k & RELU);
            hi << 16 | lo
        });
    } else {
        map2(a, b, o, |x, y| saturate(minmax_one(x, y, f, k, max), f, k & RELU));
    }
}

pub fn min(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    minmax(a, b, k, o, false);
}
pub fn max(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    minmax(a, b, k, o, true);
}

/// The `.approx` transcendental functions (`k >> 16` selects one).
pub const SIN: u32 = 0;
pub const COS: u32 = 1;
pub const EX2: u32 = 2;
pub const LG2: u32 = 3;
pub const RSQRT: u32 = 4;
pub const RCP: u32 = 5;
pub const SQRT: u32 = 6;
pub const TANH: u32 = 7;

fn approx_one(x: u64, f: Fmt, k: u32) -> u64 {
    let ftz = k & FTZ != 0;
    let x = if ftz { f.flush(x) } else { x };
    let func = k >> 16;
    if f == sf::F64 && func == RCP {
        // rcp.approx.ftz.f64: the reciprocal of the operand's upper 32 bits, returned in the
        // upper 32 bits (the PTX ISA's own description of this instruction).
        let hi = f64::from_bits(x & 0xffff_ffff_0000_0000);
        let r = 1.0 / hi;
        if r.is_nan() {
            return f.canonical_nan();
        }
        return sf::F64.flush(r.to_bits()) & 0xffff_ffff_0000_0000;
    }
    let v = to_f64(x, f);
    let r = match func {
        SIN => v.sin(),
        COS => v.cos(),
        EX2 => v.exp2(),
        LG2 => v.log2(),
        RSQRT => 1.0 / v.sqrt(),
        RCP => 1.0 / v,
        SQRT => v.sqrt(),
        _ => v.tanh(),
    };
    let d = sf::encode(sf::decode(r.to_bits(), sf::F64), f, Rnd::Rn);
    if ftz || f == sf::F64 && func == RSQRT {
        f.flush(d)
    } else {
        d
    }
}

pub fn approx(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let f = fmt(k);
    if k & X2 != 0 {
        map1(a, o, |x| approx_one(x >> 16 & 0xffff, f, k) << 16 | approx_one(x & 0xffff, f, k));
    } else {
        map1(a, o, |x| approx_one(x, f, k));
    }
}

/// `div.approx.f32` (`a × (1/b)`, 0 for 2^126 < |b| < 2^128 as documented) and `div.full.f32`
/// (with [`NAN`] set: full range, ≤ 2 ulp; computed correctly rounded here).
pub fn div_approx(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let ftz = k & FTZ != 0;
    let full = k & NAN != 0;
    map2(a, b, o, |x, y| {
        let (x, y) = if ftz { (sf::F32.flush(x), sf::F32.flush(y)) } else { (x, y) };
        let (fx, fy) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
        let d = if !full && fy.is_finite() && fy.abs() > f32::from_bits(0x7e80_0000) && fx.is_finite() {
            if (fx < 0.0) != (fy < 0.0) {
                -0.0f32
            } else {
                0.0
            }
        } else {
            ((fx as f64) / (fy as f64)) as f32
        };
        let d = canon32(d);
        if ftz {
            sf::F32.flush(d)
        } else {
            d
        }
    });
}

/// Float comparison operators, numbered for `k >> 16`.
pub const EQ: u32 = 0;
pub const NE: u32 = 1;
pub const LT: u32 = 2;
pub const LE: u32 = 3;
pub const GT: u32 = 4;
pub const GE: u32 = 5;
pub const EQU: u32 = 6;
pub const NEU: u32 = 7;
pub const LTU: u32 = 8;
pub const LEU: u32 = 9;
pub const GTU: u32 = 10;
pub const GEU: u32 = 11;
pub const NUM: u32 = 12;
pub const ISNAN: u32 = 13;

#[inline(always)]
fn fcmp_one(x: f64, y: f64, op: u32) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match op {
        EQ => x == y,
        NE => !unordered && x != y,
        LT => x < y,
        LE => x <= y,
        GT => x > y,
        GE => x >= y,
        EQU => unordered || x == y,
        NEU => x != y,
        LTU => unordered || x < y,
        LEU => unordered || x <= y,
        GTU => unordered || x > y,
        GEU => unordered || x >= y,
        NUM => !unordered,
        _ => unordered,
    }
}

/// Comparisons into 0/1 (`setp`, `set`); for `x2` the low half's result is in `out`, the high
/// half's in bit 1.
pub fn cmp(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let f = fmt(k);
    let op = k >> 16;
    let ftz = k & FTZ != 0;
    let one = move |x: u64, y: u64| {
        let (x, y) = if ftz { (f.flush(x), f.flush(y)) } else { (x, y) };
        fcmp_one(to_f64(x, f), to_f64(y, f), op) as u64
    };
    if k & X2 != 0 {
        map2(a, b, o, |x, y| one(x & 0xffff, y & 0xffff) | one(x >> 16 & 0xffff, y >> 16 & 0xffff) << 1);
    } else if k & (0xf00 | FTZ) == 0 {
        map2(a, b, o, |x, y| fcmp_one(f32::from_bits(x as u32) as f64, f32::from_bits(y as u32) as f64, op) as u64);
    } else {
        map2(a, b, o, one);
    }
}

/// `testp.op`: `k >> 16` = 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal.
pub fn testp(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let f = fmt(k);
    let op = k >> 16;
    map1(a, o, |x| {
        let v = to_f64(x, f);
        (match op {
            0 => v.is_finite(),
            1 => v.is_infinite(),
            2 => !v.is_nan(),
            3 => v.is_nan(),
            4 => v.is_finite() && v != 0.0 && !f.is_subnormal(x),
            _ => f.is_subnormal(x),
        }) as u64
    });
}

/// `copysign d, a, b`: `b` with `a`'s sign.
pub fn copysign(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let f = fmt(k);
    let s = 1u64 << (f.mant + f.exp);
    map2(a, b, o, |x, y| (y & !s) | (x & s));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(f: crate::program::AluFn, k: u32, a: u64, b: u64, c: u64) -> u64 {
        let (mut o, mut o2) = ([0; 32], [0; 32]);
        f(&[a; 32], &[b; 32], &[c; 32], k, &mut o, &mut o2);
        o[0]
    }
    fn b32(x: f32) -> u64 {
        x.to_bits() as u64
    }

    #[test]
    fn fma32_by_round_to_odd_is_correctly_rounded() {
        // Against the soft-float core (itself checked against the host FPU) on hard cases:
        // products near ties, cancellation, subnormal results.
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for i in 0..300_000u32 {
            let r = next();
            let x = f32::from_bits(r as u32 & 0x8fff_ffff | if i % 3 == 0 { 0x3000_0000 } else { 0 });
            let y = f32::from_bits((r >> 32) as u32 & 0x8fff_ffff | if i % 5 == 0 { 0x3000_0000 } else { 0 });
            let z = match i % 4 {
                0 => -(x * y),
                1 => f32::from_bits(next() as u32),
                2 => -(x * y) * (1.0 + f32::EPSILON),
                _ => f32::from_bits(next() as u32 & 0x807f_ffff),
            };
            let want = sf::encode(sf::fma(sf::decode(x.to_bits() as u64, sf::F32), sf::decode(y.to_bits() as u64, sf::F32), sf::decode(z.to_bits() as u64, sf::F32), Rnd::Rn), sf::F32, Rnd::Rn);
            assert_eq!(canon32(fma32(x, y, z)), want, "fma({x:e}, {y:e}, {z:e})");
        }
    }

    #[test]
    fn modifiers() {
        let tiny = 1.0e-40f32; // subnormal
        assert_eq!(one(add, F32, b32(tiny), b32(tiny), 0), 2 * b32(tiny));
        assert_eq!(one(add, F32 | FTZ, b32(tiny), b32(tiny), 0), 0);
        assert_eq!(one(add, F32 | SAT, b32(0.75), b32(0.75), 0), b32(1.0));
        assert_eq!(one(add, F32 | SAT, b32(f32::NAN), 0, 0), 0);
        assert_eq!(one(mul, F32 | SAT, b32(-2.0), b32(3.0), 0), 0);
        assert_eq!(one(add, F32, b32(f32::INFINITY), b32(f32::NEG_INFINITY), 0), 0x7fff_ffff);
        assert_eq!(one(add, F32 | 1, b32(1.0), b32(1e-30), 0), b32(1.0)); // rz
        assert_eq!(one(add, F32 | 3, b32(1.0), b32(1e-30), 0), b32(1.0f32.next_up())); // rp
        assert_eq!(one(fma, F16, 0x3c00, 0x3c00, 0x3c00), 0x4000); // 1*1+1 = 2 in f16
        assert_eq!(one(add, F16 | X2, 0x3c00_4000, 0x3c00_3c00, 0), 0x4000_4200);
        assert_eq!(one(min, F32, b32(0.0), b32(-0.0), 0), b32(-0.0));
        assert_eq!(one(max, F32, b32(-0.0), b32(0.0), 0), b32(0.0));
        assert_eq!(one(min, F32, b32(f32::NAN), b32(2.0), 0), b32(2.0));
        assert_eq!(one(min, F32 | NAN, b32(f32::NAN), b32(2.0), 0), 0x7fff_ffff);
        assert_eq!(one(approx, F32 | EX2 << 16, b32(3.0), 0, 0), b32(8.0));
        assert_eq!(one(approx, F32 | LG2 << 16, b32(0.0), 0, 0), b32(f32::NEG_INFINITY));
        assert_eq!(one(approx, F32 | RSQRT << 16, b32(-0.0), 0, 0), b32(f32::NEG_INFINITY));
        assert_eq!(one(cmp, F32 | LTU << 16, b32(f32::NAN), b32(1.0), 0), 1);
        assert_eq!(one(cmp, F32 | LT << 16, b32(f32::NAN), b32(1.0), 0), 0);
        assert_eq!(one(cmp, F32 | NE << 16, b32(f32::NAN), b32(1.0), 0), 0);
        assert_eq!(one(cmp, F32 | NEU << 16, b32(f32::NAN), b32(1.0), 0), 1);
        assert_eq!(one(copysign, F32, b32(-1.0), b32(2.0), 0), b32(-2.0));
        assert_eq!(one(div_approx, F32, b32(1.0), b32(f32::MAX), 0), 0);
        assert_eq!(one(testp, F32 | 5 << 16, b32(tiny), 0, 0), 1);
    }
}
