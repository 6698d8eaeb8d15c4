//! Conversions with a rounding mode, CUDA's `__float2half_rz`, `__half2int_rd`,
//! `__int2half_ru`, ... as methods named `to_<type>_<mode>`: `_rn` to nearest (ties to
//! even), `_rz` toward zero, `_rd` down (toward −∞), `_ru` up (toward +∞).
//!
//! | here | CUDA | PTX |
//! |------|------|-----|
//! | `x.to_f16_rz()` (`x`: f32, f64, i16–u64) | `__float2half_rz`, `__int2half_rz`, `__ll2half_rz`, ... | `cvt.rz.f16.f32`, `cvt.rz.f16.s32`, ... |
//! | `x.to_bf16_rd()` (`x`: f32, f64, i16–u64) | `__float2bfloat16_rd`, `__double2bfloat16`, `__int2bfloat16_rd`, `__ull2bfloat16_rd`, ... | `cvt.rm.bf16.f32`, `cvt.rm.bf16.s32`, ... (sm_90; through f32 before) |
//! | `h.to_i32_ru()` (`h`: f16, bf16, f32, f64; to i16, u16, i32, u32, i64, u64) | `__half2int_ru`, `__bfloat162int_ru`, `__float2int_ru`, ... | `cvt.rpi.s32.f16`, ... |
//!
//! On the host each is exact: the value is rounded once in the named mode. Out-of-range
//! values: to `f16`/`bf16`, `_rn` and the mode pointing away from zero give ±∞, the others
//! the largest finite value (IEEE); to integers the result saturates and NaN gives 0, as
//! PTX's `cvt` and Rust's `as` both define it.

use half::{bf16, f16};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Nearest,
    Zero,
    Down,
    Up,
}

/// `x` (exactly an f64) rounded in `mode` to a 16-bit format given by its nearest-even
/// conversion from f32 (`from_f32`, which `half` does exactly) and its exact value (`value`).
///
/// Nearest: `x` is first rounded to f32 *to odd* (f32 has at least two bits more than either
/// 16-bit format, so rounding that to nearest is correct: Boldo & Melquiond); exact when `x`
/// is an f32 already. Directed: the nearest result `n` is on the wrong side of `x` at most by
/// one step, which is taken (toward zero for `_rz`, down for `_rd`, up for `_ru`).
fn round16(x: f64, mode: Mode, from_f32: fn(f32) -> u16, value: fn(u16) -> f64) -> u16 {
    if x.is_nan() {
        return from_f32(f32::NAN);
    }
    let mut t = x as f32;
    if t.is_finite() && t as f64 != x && t.to_bits() & 1 == 0 {
        t = if x > t as f64 { t.next_up() } else { t.next_down() };
    }
    let n = from_f32(t);
    let v = value(n);
    let step = match mode {
        Mode::Nearest => return n,
        Mode::Zero => v.abs() > x.abs(),
        Mode::Down => v > x,
        Mode::Up => v < x,
    };
    if !step {
        return n;
    }
    let negative = n & 0x8000 != 0;
    match mode {
        Mode::Zero => n - 1,
        Mode::Down if negative => n + 1,
        Mode::Down if n == 0 => 0x8001,
        Mode::Down => n - 1,
        Mode::Up if !negative => n + 1,
        Mode::Up if n == 0x8000 => 0x0001,
        _ => n - 1,
    }
}

fn f16_of(x: f64, m: Mode) -> f16 {
    f16::from_bits(round16(x, m, |f| f16::from_f32(f).to_bits(), |b| f16::from_bits(b).to_f64()))
}

fn bf16_of(x: f64, m: Mode) -> bf16 {
    bf16::from_bits(round16(x, m, |f| bf16::from_f32(f).to_bits(), |b| bf16::from_bits(b).to_f64()))
}

/// An integer as an f64 that rounds to `f16` in every mode as the integer does: exact up to
/// 2^24, and beyond (where every mode overflows f16 alike) ±2^24.
fn int_value(n: i128) -> f64 {
    n.clamp(-(1 << 24), 1 << 24) as f64
}

/// An exact value rounded to an integer in `mode` (then converted with `as`: saturating, NaN 0).
fn round_int(x: f64, m: Mode) -> f64 {
    match m {
        Mode::Nearest => x.round_ties_even(),
        Mode::Zero => x.trunc(),
        Mode::Down => x.floor(),
        Mode::Up => x.ceil(),
    }
}

/// `to_f16_rn/rz/rd/ru`: to `f16` rounded in the named mode (CUDA `__float2half_rz`,
/// `__int2half_rd`, `__ll2half_ru`, ...; PTX `cvt.<rn|rz|rm|rp>.f16.<type>`).
pub trait ToF16Rounded: Copy {
    #[doc(hidden)]
    fn exact(self) -> f64;
    /// To nearest, ties to even (`__float2half_rn`).
    fn to_f16_rn(self) -> f16 {
        f16_of(self.exact(), Mode::Nearest)
    }
    /// Toward zero (`__float2half_rz`).
    fn to_f16_rz(self) -> f16 {
        f16_of(self.exact(), Mode::Zero)
    }
    /// Down, toward −∞ (`__float2half_rd`).
    fn to_f16_rd(self) -> f16 {
        f16_of(self.exact(), Mode::Down)
    }
    /// Up, toward +∞ (`__float2half_ru`).
    fn to_f16_ru(self) -> f16 {
        f16_of(self.exact(), Mode::Up)
    }
}

impl ToF16Rounded for f32 {
    fn exact(self) -> f64 {
        self as f64
    }
}

impl ToF16Rounded for f64 {
    fn exact(self) -> f64 {
        self
    }
}

macro_rules! int_to_f16 {
    ($($t:ty),*) => {$(
        impl ToF16Rounded for $t {
            fn exact(self) -> f64 {
                int_value(self as i128)
            }
        }
    )*};
}
int_to_f16!(i16, u16, i32, u32, i64, u64);

/// An integer as an f64 rounded *to odd* (exact up to 2^53): rounding that to `bf16` (whose
/// range holds every integer here) in any mode gives the integer's correctly rounded `bf16`,
/// as f64 has more than bf16's 8 bits plus two (Boldo & Melquiond).
fn int_odd(n: i128) -> f64 {
    let f = n as f64;
    let back = f as i128;
    if back == n || f.to_bits() & 1 == 1 {
        f
    } else if back < n {
        f.next_up()
    } else {
        f.next_down()
    }
}

/// `to_bf16_rn/rz/rd/ru` of an `f32`, `f64` or integer (CUDA `__float2bfloat16_rn`, `_rz`,
/// `_rd`, `_ru`, `__double2bfloat16`, `__int2bfloat16_rz`, `__ull2bfloat16_rd`, ...; PTX
/// `cvt.<mode>.bf16.<type>` on sm_90, before it through `f32` as `cuda_bf16.h` does).
pub trait ToBf16Rounded: Copy {
    #[doc(hidden)]
    fn exact_for_bf16(self) -> f64;
    /// To nearest, ties to even.
    fn to_bf16_rn(self) -> bf16 {
        bf16_of(self.exact_for_bf16(), Mode::Nearest)
    }
    /// Toward zero.
    fn to_bf16_rz(self) -> bf16 {
        bf16_of(self.exact_for_bf16(), Mode::Zero)
    }
    /// Down, toward −∞.
    fn to_bf16_rd(self) -> bf16 {
        bf16_of(self.exact_for_bf16(), Mode::Down)
    }
    /// Up, toward +∞.
    fn to_bf16_ru(self) -> bf16 {
        bf16_of(self.exact_for_bf16(), Mode::Up)
    }
}

impl ToBf16Rounded for f32 {
    fn exact_for_bf16(self) -> f64 {
        self as f64
    }
}

impl ToBf16Rounded for f64 {
    fn exact_for_bf16(self) -> f64 {
        self
    }
}

macro_rules! int_to_bf16 {
    ($($t:ty),*) => {$(
        impl ToBf16Rounded for $t {
            fn exact_for_bf16(self) -> f64 {
                int_odd(self as i128)
            }
        }
    )*};
}
int_to_bf16!(i16, u16, i32, u32, i64, u64);

macro_rules! to_int_methods {
    ($($t:ident: $rn:ident $rz:ident $rd:ident $ru:ident),*) => {
        /// `to_<int>_rn/rz/rd/ru` of `f16`, `bf16`, `f32`, `f64`: rounded to an integer in the
        /// named mode, saturating, NaN to 0 (CUDA `__half2int_rz`, `__bfloat162uint_rd`,
        /// `__float2ll_ru`, ...; PTX `cvt.<rni|rzi|rmi|rpi>.<int>.<type>`).
        pub trait ToIntRounded: Copy {
            #[doc(hidden)]
            fn exact(self) -> f64;
            $(
                #[doc = concat!("To `", stringify!($t), "`, to nearest (ties to even).")]
                fn $rn(self) -> $t { round_int(self.exact(), Mode::Nearest) as $t }
                #[doc = concat!("To `", stringify!($t), "`, toward zero.")]
                fn $rz(self) -> $t { round_int(self.exact(), Mode::Zero) as $t }
                #[doc = concat!("To `", stringify!($t), "`, down (toward −∞).")]
                fn $rd(self) -> $t { round_int(self.exact(), Mode::Down) as $t }
                #[doc = concat!("To `", stringify!($t), "`, up (toward +∞).")]
                fn $ru(self) -> $t { round_int(self.exact(), Mode::Up) as $t }
            )*
        }
    };
}
to_int_methods!(
    i16: to_i16_rn to_i16_rz to_i16_rd to_i16_ru,
    u16: to_u16_rn to_u16_rz to_u16_rd to_u16_ru,
    i32: to_i32_rn to_i32_rz to_i32_rd to_i32_ru,
    u32: to_u32_rn to_u32_rz to_u32_rd to_u32_ru,
    i64: to_i64_rn to_i64_rz to_i64_rd to_i64_ru,
    u64: to_u64_rn to_u64_rz to_u64_rd to_u64_ru
);

impl ToIntRounded for f16 {
    fn exact(self) -> f64 {
        self.to_f64()
    }
}
impl ToIntRounded for bf16 {
    fn exact(self) -> f64 {
        self.to_f64()
    }
}
impl ToIntRounded for f32 {
    fn exact(self) -> f64 {
        self as f64
    }
}
impl ToIntRounded for f64 {
    fn exact(self) -> f64 {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every f16 / bf16 in order of value (finite, non-negative), for a brute-force reference.
    fn reference(x: f64, mode: Mode, bf: bool) -> u16 {
        let value = |b: u16| if bf { bf16::from_bits(b).to_f64() } else { f16::from_bits(b).to_f64() };
        let inf: u16 = if bf { 0x7f80 } else { 0x7c00 };
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        let a = x.abs();
        // Largest magnitude <= a (inf counts as the next value after max, 2^(emax+1)).
        let top = if bf { 2f64.powi(128) } else { 65536.0 };
        let val = |b: u16| if b == inf { top } else { value(b) };
        let k = {
            // Binary search of the ordered magnitudes: the largest `b` with `val(b) <= a`.
            let (mut l, mut h) = (0u16, inf);
            while l < h {
                let m = l + (h - l).div_ceil(2);
                if val(m) <= a { l = m } else { h = m - 1 }
            }
            l
        };
        let (lo, hi) = (k, (k + 1).min(inf));
        let exact = val(lo) == a;
        let mag = if exact {
            lo
        } else {
            let toward_zero_dir = match mode {
                Mode::Zero => true,
                Mode::Down => sign == 0,
                Mode::Up => sign != 0,
                Mode::Nearest => {
                    let (d0, d1) = (a - val(lo), val(hi) - a);
                    !(d1 < d0 || (d0 == d1 && lo & 1 == 1))
                }
            };
            if toward_zero_dir { lo } else { hi }
        };
        // Past the top (a >= 2^(emax+1)): `lo` is inf; directed modes toward zero keep max.
        let mag = if mag == inf && matches!((mode, sign), (Mode::Zero, _) | (Mode::Down, 0) | (Mode::Up, 0x8000)) { inf - 1 } else { mag };
        mag | sign
    }

    fn values() -> Vec<f64> {
        let mut v: Vec<f64> = vec![0.0, 1.0, 1.5, 2.5, 3.5, 65504.0, 65519.0, 65520.0, 65535.0, 65536.0, 1e6, 1e30, 3.4e38];
        for e in [-26, -25, -24, -23, -15, -14, -13, -133, -134, -127, -126, 0, 10, 11, 15, 16, 127] {
            let p = 2f64.powi(e);
            v.extend([p, p * 1.5, p * 1.25, p * (1.0 + 2f64.powi(-11)), p * (1.0 + 2f64.powi(-8)), p * (1.0 + 2f64.powi(-12)), p * (1.0 + 2f64.powi(-9)), p * (1.0 - 2f64.powi(-24))]);
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let f = f32::from_bits(s as u32 & 0x7fff_ffff);
            if f.is_finite() && (f.abs() < 1e6 || s & 1 == 0) {
                v.push(f as f64);
            }
            v.push(((s >> 32) as u16 as f64) * 2f64.powi(((s >> 48) as i32 & 63) - 40));
        }
        let neg: Vec<f64> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v.into_iter().filter(|x| (*x as f32) as f64 == *x).collect()
    }

    #[test]
    fn f32_to_16_bits_in_every_mode_matches_a_brute_force_reference() {
        for x in values() {
            let f = x as f32;
            for (m, h, b) in [
                (Mode::Nearest, f.to_f16_rn(), f.to_bf16_rn()),
                (Mode::Zero, f.to_f16_rz(), f.to_bf16_rz()),
                (Mode::Down, f.to_f16_rd(), f.to_bf16_rd()),
                (Mode::Up, f.to_f16_ru(), f.to_bf16_ru()),
            ] {
                assert_eq!(h.to_bits(), reference(x, m, false), "f16 of {x:e} ({f:?})");
                assert_eq!(b.to_bits(), reference(x, m, true), "bf16 of {x:e}");
            }
        }
    }

    #[test]
    fn f64_and_integers_to_f16() {
        // f64 just past halfway between 1 and 1 + 2^-10 (nearest is up; f32 would tie to 1).
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(x.to_f16_rn().to_bits(), 0x3c01);
        assert_eq!((1.0 + 2f64.powi(-11)).to_f16_rn().to_bits(), 0x3c00);
        assert_eq!(x.to_f16_rz().to_bits(), 0x3c00);
        assert_eq!((-x).to_f16_rd().to_bits(), 0xbc01);
        assert_eq!(1e300f64.to_f16_rz().to_bits(), 0x7bff);
        assert_eq!(1e300f64.to_f16_ru().to_bits(), 0x7c00);
        assert!(f64::NAN.to_f16_rn().is_nan());
        // 2049 is halfway between 2048 and 2050.
        assert_eq!(2049i32.to_f16_rn().to_bits(), f16::from_f32(2048.0).to_bits());
        assert_eq!(2051i32.to_f16_rn().to_bits(), f16::from_f32(2052.0).to_bits());
        assert_eq!(2049i32.to_f16_ru().to_bits(), f16::from_f32(2050.0).to_bits());
        assert_eq!((-2049i64).to_f16_rd().to_bits(), f16::from_f32(-2050.0).to_bits());
        assert_eq!(65519u32.to_f16_rn().to_bits(), 0x7bff);
        assert_eq!(65520u32.to_f16_rn().to_bits(), 0x7c00);
        assert_eq!(u64::MAX.to_f16_rz().to_bits(), 0x7bff);
        assert_eq!(i64::MIN.to_f16_rd().to_bits(), 0xfc00);
        assert_eq!(i64::MIN.to_f16_ru().to_bits(), 0xfbff);
    }

    #[test]
    fn f64_and_integers_to_bf16() {
        let modes = [Mode::Nearest, Mode::Zero, Mode::Down, Mode::Up];
        let conv = |x: f64, m: Mode| match m {
            Mode::Nearest => x.to_bf16_rn(),
            Mode::Zero => x.to_bf16_rz(),
            Mode::Down => x.to_bf16_rd(),
            Mode::Up => x.to_bf16_ru(),
        };
        for x in values() {
            for v in [x, -x, x * (1.0 + 2f64.powi(-40)), x * (1.0 - 2f64.powi(-40))] {
                for m in modes {
                    assert_eq!(conv(v, m).to_bits(), reference(v, m, true), "{v:e} in mode {}", m as u8);
                }
            }
        }
        assert_eq!((1e300f64.to_bf16_rz().to_bits(), 1e300f64.to_bf16_ru().to_bits()), (0x7f7f, 0x7f80));
        assert!(f64::NAN.to_bf16_rn().is_nan());
        // 257 is halfway between 256 and 258; 259 between 258 and 260.
        assert_eq!((257i32.to_bf16_rn().to_f32(), 259u32.to_bf16_rn().to_f32(), 257i16.to_bf16_ru().to_f32(), (-257i64).to_bf16_rd().to_f32()), (256.0, 260.0, 258.0, -258.0));
        // 2^62 + 2^54 + 1 is just above halfway between bf16's 2^62 and 2^62 + 2^55; `as f64`
        // rounds it to the tie (2^62 + 2^54), which would then round to even, down.
        let n = (1i64 << 62) + (1 << 54) + 1;
        assert_eq!(n.to_bf16_rn().to_f64(), 2f64.powi(62) + 2f64.powi(55));
        assert_eq!((n as u64).to_bf16_rz().to_f64(), 2f64.powi(62));
        assert_eq!((-n).to_bf16_ru().to_f64(), -2f64.powi(62));
        assert_eq!(u64::MAX.to_bf16_rz().to_f64(), 2f64.powi(64) - 2f64.powi(56));
        assert_eq!(u64::MAX.to_bf16_rn().to_f64(), 2f64.powi(64));
        // Every mode against the reference where the integer is exact in f64.
        let mut s = 0x1234_5678_9abc_def1u64;
        for _ in 0..20000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let n = (s >> (s % 40)) as i64 * if s & 1 == 0 { 1 } else { -1 };
            let n = n >> 11; // |n| < 2^53: exact in f64
            for m in modes {
                let got = match m {
                    Mode::Nearest => n.to_bf16_rn(),
                    Mode::Zero => n.to_bf16_rz(),
                    Mode::Down => n.to_bf16_rd(),
                    Mode::Up => n.to_bf16_ru(),
                };
                assert_eq!(got.to_bits(), reference(n as f64, m, true), "{n} in mode {}", m as u8);
            }
        }
    }

    #[test]
    fn to_integers_in_every_mode() {
        let h = |x: f32| f16::from_f32(x);
        assert_eq!((h(2.5).to_i32_rn(), h(2.5).to_i32_rz(), h(2.5).to_i32_rd(), h(2.5).to_i32_ru()), (2, 2, 2, 3));
        assert_eq!((h(-2.5).to_i32_rn(), h(-2.5).to_i32_rz(), h(-2.5).to_i32_rd(), h(-2.5).to_i32_ru()), (-2, -2, -3, -2));
        assert_eq!((h(3.5).to_i16_rn(), h(-0.5).to_u32_rd(), h(65504.0).to_i16_rz(), h(-65504.0).to_u16_ru()), (4, 0, i16::MAX, 0));
        assert_eq!((f16::NAN.to_i32_rn(), f16::INFINITY.to_u64_rz(), f16::NEG_INFINITY.to_i64_rd()), (0, u64::MAX, i64::MIN));
        assert_eq!((bf16::from_f32(1e30).to_i32_ru(), bf16::from_f32(-1.5).to_i64_rn()), (i32::MAX, -2));
        assert_eq!((2.5f32.to_i32_rn(), (-2.5f64).to_i64_ru()), (2, -2));
    }
}
