//! `cvt`: every conversion between the integer and floating-point types, with PTX's rounding,
//! saturation, `.ftz`, `.relu` and `.satfinite` rules.
//!
//! `k` layout: bits 0–2 rounding mode; [`FTZ`], [`SAT`], [`RELU`], [`SATFINITE`], [`IRND`]
//! (an integer rounding modifier: `.rni .rzi .rmi .rpi`); destination type in bits 8–11,
//! source type in bits 12–15 ([`Ty`]); destination register width in bits 16–23.
//!
//! - integer → integer: sign- or zero-extends per the source type, truncates, or with `.sat`
//!   clamps to the destination range;
//! - float → integer: rounds per the modifier and always saturates; NaN gives 0;
//! - integer → float, float → narrower float: rounds once per the mode;
//! - float → same float: `.rni`-style rounding to an integral value, or only `.ftz`/`.sat`;
//! - a result narrower than its register is sign-extended (signed types) or zero-extended.

use super::lanes::{map1, mask, sext};
use super::softfloat::{self as sf, Fmt, Num, Rnd};
use crate::program::Lanes;

pub const FTZ: u32 = 1 << 3;
pub const SAT: u32 = 1 << 4;
pub const RELU: u32 = 1 << 5;
pub const SATFINITE: u32 = 1 << 6;
pub const IRND: u32 = 1 << 7;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Ty {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    Bf16,
    F32,
    F64,
    Tf32,
}

impl Ty {
    pub fn from_index(i: u32) -> Ty {
        use Ty::*;
        [U8, U16, U32, U64, S8, S16, S32, S64, F16, Bf16, F32, F64, Tf32][(i & 15).min(12) as usize]
    }

    pub fn bits(self) -> u32 {
        use Ty::*;
        match self {
            U8 | S8 => 8,
            U16 | S16 | F16 | Bf16 => 16,
            U32 | S32 | F32 | Tf32 => 32,
            U64 | S64 | F64 => 64,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64 | Ty::Tf32)
    }

    fn fmt(self) -> Fmt {
        match self {
            Ty::F16 => sf::F16,
            Ty::Bf16 => sf::BF16,
            Ty::F64 => sf::F64,
            _ => sf::F32,
        }
    }

    /// The range of an integer type.
    fn range(self) -> (i128, i128) {
        let b = self.bits();
        if self.signed() {
            (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
        } else {
            (0, (1i128 << b) - 1)
        }
    }
}

pub fn key(dst: Ty, src: Ty, dst_reg_bits: u32) -> u32 {
    (dst as u32) << 8 | (src as u32) << 12 | (dst_reg_bits & 0xff) << 16
}

pub fn cvt(a: &Lanes, _: &Lanes, _: &Lanes, k: u32, o: &mut Lanes, _: &mut Lanes) {
    let dst = Ty::from_index(k >> 8);
    let src = Ty::from_index(k >> 12);
    let reg_bits = (k >> 16) & 0xff;
    if !dst.is_float() && !src.is_float() && k & SAT == 0 {
        // Integer widening/narrowing: the hot case (index arithmetic).
        let (sb, db) = (src.bits(), dst.bits());
        let (ss, ds) = (src.signed(), dst.signed());
        map1(a, o, |x| {
            let v = if ss { sext(x, sb) as u64 } else { x & mask(sb) };
            let v = if ds { sext(v, db) as u64 } else { v & mask(db) };
            v & mask(reg_bits)
        });
        return;
    }
    map1(a, o, |x| one(x, k, dst, src) & mask(reg_bits));
}

fn one(x: u64, k: u32, dst: Ty, src: Ty) -> u64 {
    let rnd = Rnd::from_index(k & 7);
    let ftz = k & FTZ != 0;
    if !src.is_float() {
        let v: i128 = if src.signed() { sext(x, src.bits()) as i128 } else { (x & mask(src.bits())) as i128 };
        if !dst.is_float() {
            let (lo, hi) = dst.range();
            return extend(v.clamp(lo, hi) as u64, dst);
        }
        return finish_float(sf::from_int(v), dst, k, rnd);
    }
    // Float source.
    let sfmt = src.fmt();
    let x = if ftz && src == Ty::F32 { sfmt.flush(x) } else { x };
    let n = sf::decode(x & mask(src.bits()), sfmt);
    if !dst.is_float() {
        let (lo, hi) = dst.range();
        return match sf::to_int(n, rnd) {
            None => 0,
            Some(v) => extend(v.clamp(lo, hi) as u64, dst),
        };
    }
    let n = if k & IRND != 0 { sf::round_integral(n, rnd) } else { n };
    finish_float(n, dst, k, rnd)
}

/// Rounds `n` into the float type `dst` and applies `.ftz/.sat/.relu/.satfinite`.
fn finish_float(n: Num, dst: Ty, k: u32, rnd: Rnd) -> u64 {
    let f = dst.fmt();
    let n = match n {
        Num::Inf(s) if k & SATFINITE != 0 => return f.max_finite(s),
        Num::Nan if k & SAT != 0 => Num::Zero(false),
        _ => n,
    };
    if dst == Ty::Tf32 {
        let t = sf::encode(n, sf::TF32, rnd);
        return if matches!(n, Num::Nan) { 0x7fff_ffff } else { t << 13 };
    }
    let mut d = sf::encode(n, f, if k & IRND != 0 { Rnd::Rn } else { rnd });
    if k & FTZ != 0 && dst == Ty::F32 {
        d = f.flush(d);
    }
    if k & SATFINITE != 0 && d & !(1 << (f.mant + f.exp)) == f.inf(false) {
        d = f.max_finite(d >> (f.mant + f.exp) & 1 == 1);
    }
    let sign = d >> (f.mant + f.exp) & 1 == 1;
    if k & (SAT | RELU) != 0 && !f.is_nan(d) && sign {
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

/// Extends an integer result of type `t` to 64 bits (sign for signed types).
fn extend(v: u64, t: Ty) -> u64 {
    if t.signed() {
        sext(v, t.bits()) as u64
    } else {
        v & mask(t.bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(x: u64, dst: Ty, src: Ty, flags: u32, reg: u32) -> u64 {
        let (mut o, mut o2) = ([0; 32], [0; 32]);
        cvt(&[x; 32], &[0; 32], &[0; 32], key(dst, src, reg) | flags, &mut o, &mut o2);
        o[0]
    }
    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }

    #[test]
    fn conversions() {
        assert_eq!(c(0xffff_fff0, Ty::S64, Ty::S32, 0, 64), (-16i64) as u64);
        assert_eq!(c(0xffff_fff0, Ty::U64, Ty::U32, 0, 64), 0xffff_fff0);
        assert_eq!(c(300, Ty::U8, Ty::U32, SAT, 16), 255);
        assert_eq!(c(0x80, Ty::S8, Ty::U32, 0, 32), 0xffff_ff80);
        assert_eq!(c(f(2.5), Ty::S32, Ty::F32, IRND, 32), 2); // rni
        assert_eq!(c(f(-2.5), Ty::S32, Ty::F32, IRND | 2, 32), (-3i32) as u32 as u64); // rmi
        assert_eq!(c(f(1e20), Ty::S32, Ty::F32, IRND | 1, 32), i32::MAX as u64);
        assert_eq!(c(f(-1.0), Ty::U32, Ty::F32, IRND | 1, 32), 0);
        assert_eq!(c(f(f32::NAN), Ty::S32, Ty::F32, IRND | 1, 32), 0);
        assert_eq!(c(f(1.0e-40), Ty::S32, Ty::F32, IRND | 3, 32), 1); // rpi of a subnormal
        assert_eq!(c(f(1.0e-40), Ty::S32, Ty::F32, IRND | 3 | FTZ, 32), 0);
        assert_eq!(c(16777217, Ty::F32, Ty::U32, 0, 32), f(16777216.0)); // rn
        assert_eq!(c(16777217, Ty::F32, Ty::U32, 3, 32), f(16777218.0)); // rp
        assert_eq!(c(f(1.5), Ty::F16, Ty::F32, 0, 16), 0x3e00);
        assert_eq!(c(0x3e00, Ty::F32, Ty::F16, 0, 32), f(1.5));
        assert_eq!(c(f(2.5), Ty::F32, Ty::F32, IRND, 32), f(2.0));
        assert_eq!(c(f(2.5), Ty::F32, Ty::F32, SAT, 32), f(1.0));
        assert_eq!(c(f(-2.5), Ty::F32, Ty::F32, SAT, 32), 0);
        assert_eq!(c(1.0f64.to_bits(), Ty::F32, Ty::F64, 0, 32), f(1.0));
        assert_eq!(c(f(1e10), Ty::F16, Ty::F32, SATFINITE, 16), 0x7bff);
        assert_eq!(c(f(-1.0), Ty::F16, Ty::F32, RELU, 16), 0);
        assert_eq!(c(f(1.0 + 4.0 / 8192.0), Ty::Tf32, Ty::F32, 4, 32), f(1.0 + 8.0 / 8192.0)); // rna
    }
}
