//! Integer and bit-manipulation instructions, bit-for-bit as PTX defines them.
//!
//! Every kernel takes `k` = operand width in bits (8/16/32/64; 1 for predicates) in its low
//! byte, [`SIGNED`] for signed types, and instruction-specific flags above. Results are
//! zero-extended to 64 bits (the register file's canonical form).

use super::lanes::{map1, map2, map3, map3x2, mask, sext};
use crate::program::Lanes;

pub const SIGNED: u32 = 1 << 8;
/// `.cc`-family: consume the carry flag (operand `c`).
pub const CARRY_IN: u32 = 1 << 9;
/// `mul`/`mad`: `.hi` (otherwise `.lo`).
pub const HI: u32 = 1 << 10;
/// `mul`/`mad`: `.wide`.
pub const WIDE: u32 = 1 << 11;
/// `add`/`sub`/`mad.hi`: `.sat`; `min`/`max`: `.relu`; `shf`/`bmsk`/`szext`: `.clamp`.
pub const SAT: u32 = 1 << 12;
/// Packed `x2` 16-bit halves (`min.u16x2`, `add.s16x2`).
pub const X2: u32 = 1 << 13;
/// `bfind.shiftamt`, `shf.r`, `dp2a.hi`.
pub const ALT: u32 = 1 << 14;

#[inline(always)]
fn w(k: u32) -> u32 {
    k & 0xff
}
#[inline(always)]
fn signed(k: u32) -> bool {
    k & SIGNED != 0
}

type L = Lanes;

pub fn mov(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    map1(a, o, |x| x & m);
}

/// `x2` variants: apply `f` to both 16-bit halves.
#[inline(always)]
fn halves(x: u64, y: u64, f: impl Fn(u64, u64) -> u64) -> u64 {
    (f(x & 0xffff, y & 0xffff) & 0xffff) | (f((x >> 16) & 0xffff, (y >> 16) & 0xffff) & 0xffff) << 16
}

pub fn add(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    if k & X2 != 0 {
        map2(a, b, o, |x, y| halves(x, y, |p, q| p.wrapping_add(q)));
    } else if k & SAT != 0 {
        map2(a, b, o, |x, y| (x as i32).saturating_add(y as i32) as u32 as u64);
    } else {
        map2(a, b, o, |x, y| x.wrapping_add(y) & m);
    }
}

pub fn sub(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    if k & X2 != 0 {
        map2(a, b, o, |x, y| halves(x, y, |p, q| p.wrapping_sub(q)));
    } else if k & SAT != 0 {
        map2(a, b, o, |x, y| (x as i32).saturating_sub(y as i32) as u32 as u64);
    } else {
        map2(a, b, o, |x, y| x.wrapping_sub(y) & m);
    }
}

/// `add.cc`, `addc{.cc}`: `c` is the carry in (with [`CARRY_IN`]); `out2` the carry out.
pub fn add_cc(a: &L, b: &L, c: &L, k: u32, o: &mut L, o2: &mut L) {
    let bits = w(k);
    let cin = k & CARRY_IN != 0;
    map3x2(a, b, c, o, o2, |x, y, cf| {
        let s = (x & mask(bits)) as u128 + (y & mask(bits)) as u128 + if cin { cf & 1 } else { 0 } as u128;
        ((s as u64) & mask(bits), (s >> bits) as u64 & 1)
    });
}

/// `sub.cc`, `subc{.cc}`: `d = a - (b + CF)`; the flag out is the borrow.
pub fn sub_cc(a: &L, b: &L, c: &L, k: u32, o: &mut L, o2: &mut L) {
    let bits = w(k);
    let cin = k & CARRY_IN != 0;
    map3x2(a, b, c, o, o2, |x, y, cf| {
        let sub = (y & mask(bits)) as u128 + if cin { cf & 1 } else { 0 } as u128;
        let x = (x & mask(bits)) as u128;
        (x.wrapping_sub(sub) as u64 & mask(bits), (x < sub) as u64)
    });
}

/// The full product of two `bits`-wide operands, as a 128-bit two's-complement value.
#[inline(always)]
fn full_product(x: u64, y: u64, bits: u32, signed: bool) -> u128 {
    if signed {
        (sext(x, bits) as i128 * sext(y, bits) as i128) as u128
    } else {
        (x & mask(bits)) as u128 * (y & mask(bits)) as u128
    }
}

#[inline(always)]
fn product_part(x: u64, y: u64, k: u32) -> u64 {
    let bits = w(k);
    let p = full_product(x, y, bits, signed(k));
    if k & WIDE != 0 {
        p as u64 & mask(2 * bits)
    } else if k & HI != 0 {
        (p >> bits) as u64 & mask(bits)
    } else {
        p as u64 & mask(bits)
    }
}

pub fn mul(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    if k == 32 || k == 32 | SIGNED {
        map2(a, b, o, |x, y| (x as u32).wrapping_mul(y as u32) as u64);
    } else if k == 32 | WIDE {
        map2(a, b, o, |x, y| (x as u32 as u64) * (y as u32 as u64));
    } else if k == 32 | WIDE | SIGNED {
        map2(a, b, o, |x, y| ((x as i32 as i64) * (y as i32 as i64)) as u64);
    } else {
        map2(a, b, o, |x, y| product_part(x, y, k));
    }
}

/// `mad.lo/.hi/.wide`, with `.sat` for `mad.hi.sat.s32`.
pub fn mad(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    if k & SAT != 0 {
        map3(a, b, c, o, |x, y, z| {
            let p = full_product(x, y, 32, true) as i128 >> 32;
            (p + z as i32 as i128).clamp(i32::MIN as i128, i32::MAX as i128) as i32 as u32 as u64
        });
        return;
    }
    let m = mask(if k & WIDE != 0 { 2 * bits } else { bits });
    map3(a, b, c, o, |x, y, z| product_part(x, y, k).wrapping_add(z) & m);
}

/// `mad.lo.cc`, `madc.lo/.hi{.cc}`: the product part plus `c` plus the carry in `cf`; the
/// carry out goes to `o2`.
pub fn mad_cc(a: &L, b: &L, c: &L, cf: &L, k: u32, o: &mut L, o2: &mut L) {
    let bits = w(k);
    let cin = k & CARRY_IN != 0;
    for i in 0..32 {
        let p = product_part(a[i], b[i], k & !WIDE) as u128;
        let s = p + (c[i] & mask(bits)) as u128 + if cin { cf[i] & 1 } else { 0 } as u128;
        o[i] = s as u64 & mask(bits);
        o2[i] = (s >> bits) as u64 & 1;
    }
}

/// `mul24`/`mad24`: 24-bit operands, `.lo` = low 32 bits of the 48-bit product, `.hi` = its
/// high 32 bits. `c` is added for `mad24` (zeros for `mul24`).
pub fn mul24(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let sg = signed(k);
    let hi = k & HI != 0;
    map3(a, b, c, o, |x, y, z| {
        let p = if sg { (sext(x, 24) * sext(y, 24)) as u64 } else { (x & 0xff_ffff) * (y & 0xff_ffff) };
        let r = if hi { p >> 16 } else { p };
        (r as u32).wrapping_add(z as u32) as u64
    });
}

/// Division by zero gives all ones (unsigned) / −1 (signed), the overflow case `MIN / -1`
/// gives `MIN`: PTX leaves both unspecified; these are what the GPU's division sequences give.
pub fn div(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let m = mask(bits);
    if signed(k) {
        map2(a, b, o, |x, y| {
            let (x, y) = (sext(x, bits), sext(y, bits));
            (if y == 0 { -1 } else { x.wrapping_div(y) }) as u64 & m
        });
    } else {
        map2(a, b, o, |x, y| (x & m).checked_div(y & m).unwrap_or(m));
    }
}

/// `rem`: the remainder of [`div`]'s quotient; by zero it is the dividend.
pub fn rem(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let m = mask(bits);
    if signed(k) {
        map2(a, b, o, |x, y| {
            let (x, y) = (sext(x, bits), sext(y, bits));
            (if y == 0 { x } else { x.wrapping_rem(y) }) as u64 & m
        });
    } else {
        map2(a, b, o, |x, y| {
            let (x, y) = (x & m, y & m);
            if y == 0 {
                x
            } else {
                x % y
            }
        });
    }
}

pub fn abs(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    map1(a, o, |x| sext(x, bits).wrapping_abs() as u64 & mask(bits));
}

pub fn neg(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    map1(a, o, |x| x.wrapping_neg() & m);
}

fn minmax(a: &L, b: &L, k: u32, o: &mut L, max: bool) {
    let bits = if k & X2 != 0 { 16 } else { w(k) };
    let sg = signed(k);
    let relu = k & SAT != 0;
    let one = move |x: u64, y: u64| -> u64 {
        let (x, y) = (x & mask(bits), y & mask(bits));
        let less = if sg { sext(x, bits) < sext(y, bits) } else { x < y };
        let r = if less != max { x } else { y };
        if relu && sext(r, bits) < 0 {
            0
        } else {
            r
        }
    };
    if k & X2 != 0 {
        map2(a, b, o, |x, y| halves(x, y, one));
    } else {
        map2(a, b, o, one);
    }
}

pub fn min(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    minmax(a, b, k, o, false);
}

pub fn max(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    minmax(a, b, k, o, true);
}

pub fn and(a: &L, b: &L, _: &L, _: u32, o: &mut L, _: &mut L) {
    map2(a, b, o, |x, y| x & y);
}
pub fn or(a: &L, b: &L, _: &L, _: u32, o: &mut L, _: &mut L) {
    map2(a, b, o, |x, y| x | y);
}
pub fn xor(a: &L, b: &L, _: &L, _: u32, o: &mut L, _: &mut L) {
    map2(a, b, o, |x, y| x ^ y);
}
pub fn not(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    map1(a, o, |x| !x & m);
}
pub fn cnot(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    map1(a, o, |x| (x & m == 0) as u64);
}

/// `lop3.b32 d, a, b, c, immLut` (`k` = immLut).
pub fn lop3(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    map3(a, b, c, o, |x, y, z| {
        let mut r = 0u64;
        for bit in 0..8 {
            if k >> bit & 1 == 1 {
                let sx = if bit & 4 != 0 { x } else { !x };
                let sy = if bit & 2 != 0 { y } else { !y };
                let sz = if bit & 1 != 0 { z } else { !z };
                r |= sx & sy & sz;
            }
        }
        r & 0xffff_ffff
    });
}

/// Shift amounts are unsigned and clamp: shifting by the width or more gives 0 (or the sign).
pub fn shl(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let m = mask(bits);
    map2(a, b, o, |x, y| {
        let s = y as u32;
        if s >= bits {
            0
        } else {
            (x << s) & m
        }
    });
}

pub fn shr(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let m = mask(bits);
    if signed(k) {
        map2(a, b, o, |x, y| (sext(x, bits) >> (y as u32).min(bits - 1).min(63)) as u64 & m);
    } else {
        map2(a, b, o, |x, y| {
            let s = y as u32;
            if s >= bits {
                0
            } else {
                (x & m) >> s
            }
        });
    }
}

/// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: funnel shift of the 64-bit `b:a` by `c`.
pub fn shf(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let right = k & ALT != 0;
    let clamp = k & SAT != 0;
    map3(a, b, c, o, |x, y, z| {
        let n = if clamp { (z as u32).min(32) } else { z as u32 & 31 };
        let v = (y as u32 as u64) << 32 | x as u32 as u64;
        if right {
            (v >> n) as u32 as u64
        } else {
            ((v << n) >> 32) as u32 as u64
        }
    });
}

pub fn popc(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let m = mask(w(k));
    map1(a, o, |x| (x & m).count_ones() as u64);
}

pub fn clz(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    map1(a, o, |x| ((x & mask(bits)).leading_zeros() - (64 - bits)) as u64);
}

pub fn brev(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    map1(a, o, |x| x.reverse_bits() >> (64 - bits));
}

/// `bfind`: the bit position of the most significant non-sign bit, 0xffffffff if none;
/// `.shiftamt` gives the left shift that would normalize it instead.
pub fn bfind(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let sg = signed(k);
    let shiftamt = k & ALT != 0;
    map1(a, o, |x| {
        let mut v = x & mask(bits);
        if sg && sext(v, bits) < 0 {
            v = !v & mask(bits);
        }
        if v == 0 {
            return 0xffff_ffff;
        }
        let pos = 63 - v.leading_zeros();
        (if shiftamt { bits - 1 - pos } else { pos }) as u64
    });
}

/// `fns.b32 d, mask, base, offset`: the position of the n-th set bit.
pub fn fns(a: &L, b: &L, c: &L, _: u32, o: &mut L, _: &mut L) {
    map3(a, b, c, o, |m, base, off| {
        let (m, base, off) = (m as u32, base as u32, off as i32);
        let mut count = 0;
        if off >= 0 {
            let mut pos = base;
            while pos < 32 {
                if m >> pos & 1 == 1 {
                    if count == off {
                        return pos as u64;
                    }
                    count += 1;
                }
                pos += 1;
            }
        } else {
            let mut pos = base as i32;
            let want = -off - 1;
            while pos >= 0 {
                if m >> pos & 1 == 1 {
                    if count == want {
                        return pos as u64;
                    }
                    count += 1;
                }
                pos -= 1;
            }
        }
        0xffff_ffff
    });
}

/// `bfe d, a, pos, len`: extracts `len` bits at `pos` (both taken mod 256), zero- or
/// sign-extending; positions past the top replicate the sign (signed) or give 0.
pub fn bfe(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let sg = signed(k);
    map3(a, b, c, o, |x, p, l| {
        let (pos, len) = ((p & 0xff) as u32, (l & 0xff) as u32);
        let x = x & mask(bits);
        let sbit = if sg {
            let i = (pos + len).saturating_sub(1).min(bits - 1);
            if len == 0 {
                false
            } else {
                x >> i & 1 == 1
            }
        } else {
            false
        };
        let mut d = 0u64;
        for i in 0..bits {
            let bit = if i < len && pos + i < bits { x >> (pos + i) & 1 == 1 } else { sbit };
            d |= (bit as u64) << i;
        }
        d
    });
}

/// `bfi d, f, b, pos, len`: inserts the low `len` bits of `f` into `b` at `pos`.
pub fn bfi(f: &L, b: &L, c: &L, e: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    for i in 0..32 {
        let (pos, len) = ((c[i] & 0xff) as u32, (e[i] & 0xff) as u32);
        let mut d = b[i] & mask(bits);
        for j in 0..len {
            if pos + j >= bits {
                break;
            }
            d = (d & !(1 << (pos + j))) | ((f[i] >> j) & 1) << (pos + j);
        }
        o[i] = d;
    }
}

/// `prmt.b32{.mode} d, a, b, c`: byte permute of the 8 bytes `b:a` (`k` = mode: 0 default,
/// 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16).
pub fn prmt(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    map3(a, b, c, o, |x, y, s| {
        let bytes = ((y as u32 as u64) << 32 | x as u32 as u64).to_le_bytes();
        let s = s as u32;
        let pick = |sel: u32, sign_rep: bool| -> u8 {
            let v = bytes[(sel & 7) as usize];
            if sign_rep && sel & 8 != 0 {
                if v & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            } else {
                v
            }
        };
        let out: [u8; 4] = match k {
            0 => [0, 1, 2, 3].map(|i| pick(s >> (4 * i), true)),
            1 => [0, 1, 2, 3].map(|i| bytes[((s + i) & 7) as usize]),
            2 => [0, 1, 2, 3].map(|i| bytes[((s + 8 - i) & 7) as usize]),
            3 => [bytes[(s & 3) as usize]; 4],
            4 => {
                let n = s & 3;
                [0, 1, 2, 3].map(|i| bytes[i.min(n) as usize])
            }
            5 => {
                let n = s & 3;
                [0, 1, 2, 3].map(|i| bytes[i.max(n) as usize])
            }
            _ => {
                let n = (s & 1) * 2;
                [bytes[n as usize], bytes[n as usize + 1], bytes[n as usize], bytes[n as usize + 1]]
            }
        };
        u32::from_le_bytes(out) as u64
    });
}

/// `sad d, a, b, c`: `c + |a − b|`.
pub fn sad(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let sg = signed(k);
    map3(a, b, c, o, |x, y, z| {
        let d = if sg { sext(x, bits).abs_diff(sext(y, bits)) } else { (x & mask(bits)).abs_diff(y & mask(bits)) };
        z.wrapping_add(d) & mask(bits)
    });
}

/// `dp4a.atype.btype d, a, b, c` (`k`: bit 0 a signed, bit 1 b signed) and `dp2a.lo/.hi`
/// (with [`ALT`] = `.hi`, [`X2`] = dp2a).
pub fn dp(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let (sa, sb) = (k & 1 != 0, k & 2 != 0);
    let dp2 = k & X2 != 0;
    let hi = k & ALT != 0;
    map3(a, b, c, o, |x, y, z| {
        let mut acc = z as u32 as i64;
        if dp2 {
            for i in 0..2 {
                let ai = (x >> (16 * i)) & 0xffff;
                let ai = if sa { sext(ai, 16) } else { ai as i64 };
                let bi = (y >> (8 * (i + if hi { 2 } else { 0 }))) & 0xff;
                let bi = if sb { sext(bi, 8) } else { bi as i64 };
                acc += ai * bi;
            }
        } else {
            for i in 0..4 {
                let ai = (x >> (8 * i)) & 0xff;
                let bi = (y >> (8 * i)) & 0xff;
                let ai = if sa { sext(ai, 8) } else { ai as i64 };
                let bi = if sb { sext(bi, 8) } else { bi as i64 };
                acc += ai * bi;
            }
        }
        acc as u32 as u64
    });
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`: `b` ones starting at bit `a`.
pub fn bmsk(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let clamp = k & SAT != 0;
    map2(a, b, o, |p, n| {
        let (p, n) = if clamp { ((p as u32).min(32), (n as u32).min(32)) } else { (p as u32 & 31, n as u32 & 31) };
        if p >= 32 {
            return 0;
        }
        (mask(n) << p) & 0xffff_ffff
    });
}

/// `szext.{clamp,wrap}.{u32,s32} d, a, b`: extends the low `b` bits of `a`.
pub fn szext(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let clamp = k & SAT != 0;
    let sg = signed(k);
    map2(a, b, o, |x, n| {
        let n = if clamp { (n as u32).min(32) } else { n as u32 & 31 };
        if n == 0 {
            return 0;
        }
        let x = x & mask(n);
        (if sg { sext(x, n) as u64 } else { x }) & 0xffff_ffff
    });
}

/// `selp d, a, b, c`: `c ? a : b`.
pub fn selp(a: &L, b: &L, c: &L, _: u32, o: &mut L, _: &mut L) {
    map3(a, b, c, o, |x, y, p| if p & 1 != 0 { x } else { y });
}

/// `slct.dtype.s32 d, a, b, c`: `c >= 0 ? a : b`; with [`ALT`] `c` is f32 (`.ftz` in [`SAT`]).
pub fn slct(a: &L, b: &L, c: &L, k: u32, o: &mut L, _: &mut L) {
    let float = k & ALT != 0;
    map3(a, b, c, o, |x, y, z| {
        let ge = if float { f32::from_bits(z as u32) >= 0.0 } else { z as i32 >= 0 };
        if ge {
            x
        } else {
            y
        }
    });
}

/// `cvta{.to}.space.size`: adds (or with bit 2, subtracts) the generic-address window of the
/// space in bits 0–1 (0 global/const: none, 1 shared, 2 local, 3 param); width in bits 8–15.
pub fn cvta(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    use crate::program::{LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
    let win = [0, SHARED_WINDOW, LOCAL_WINDOW, PARAM_WINDOW][(k & 3) as usize];
    let m = mask((k >> 8) & 0xff);
    if k & 4 != 0 {
        map1(a, o, |x| x.wrapping_sub(win) & m);
    } else {
        map1(a, o, |x| x.wrapping_add(win) & m);
    }
}

/// `isspacep.space p, a`: is the generic address in that space's window (global: in none)?
pub fn isspacep(a: &L, _: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    use crate::program::{LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
    let inside = |x: u64, w: u64| x >= w && x - w < WINDOW_SIZE;
    map1(a, o, |x| {
        (match k & 3 {
            0 => !inside(x, SHARED_WINDOW) && !inside(x, LOCAL_WINDOW) && !inside(x, PARAM_WINDOW),
            1 => inside(x, SHARED_WINDOW),
            2 => inside(x, LOCAL_WINDOW),
            _ => inside(x, PARAM_WINDOW),
        }) as u64
    });
}

/// Integer comparisons into 0/1; `k` = width | [`SIGNED`] | op << 16 (see [`CmpOp`]).
pub fn cmp(a: &L, b: &L, _: &L, k: u32, o: &mut L, _: &mut L) {
    let bits = w(k);
    let m = mask(bits);
    // One loop per operator, so each compiles to straight-line vector code.
    macro_rules! by_op {
        ($conv:expr) => {{
            let cv = $conv;
            match k >> 16 {
                CMP_EQ => map2(a, b, o, |x, y| (cv(x) == cv(y)) as u64),
                CMP_NE => map2(a, b, o, |x, y| (cv(x) != cv(y)) as u64),
                CMP_LT => map2(a, b, o, |x, y| (cv(x) < cv(y)) as u64),
                CMP_LE => map2(a, b, o, |x, y| (cv(x) <= cv(y)) as u64),
                CMP_GT => map2(a, b, o, |x, y| (cv(x) > cv(y)) as u64),
                _ => map2(a, b, o, |x, y| (cv(x) >= cv(y)) as u64),
            }
        }};
    }
    if signed(k) {
        by_op!(|x: u64| sext(x, bits))
    } else {
        by_op!(|x: u64| x & m)
    }
}

/// Comparison operators in the order [`cmp`] numbers them.
pub const CMP_EQ: u32 = 0;
pub const CMP_NE: u32 = 1;
pub const CMP_LT: u32 = 2;
pub const CMP_LE: u32 = 3;
pub const CMP_GT: u32 = 4;
pub const CMP_GE: u32 = 5;


#[cfg(test)]
mod tests {
    use super::*;

    fn run1(f: crate::program::AluFn, k: u32, a: u64, b: u64, c: u64) -> (u64, u64) {
        let (mut o, mut o2) = ([0; 32], [0; 32]);
        f(&[a; 32], &[b; 32], &[c; 32], k, &mut o, &mut o2);
        (o[0], o2[0])
    }

    fn run4(f: crate::program::Alu4Fn, k: u32, a: u64, b: u64, c: u64, e: u64) -> (u64, u64) {
        let (mut o, mut o2) = ([0; 32], [0; 32]);
        f(&[a; 32], &[b; 32], &[c; 32], &[e; 32], k, &mut o, &mut o2);
        (o[0], o2[0])
    }

    #[test]
    fn arithmetic_edges() {
        assert_eq!(run1(add, 32, 0xffff_ffff, 1, 0).0, 0);
        assert_eq!(run1(add, 32 | SIGNED | SAT, i32::MAX as u64, 1, 0).0, i32::MAX as u32 as u64);
        assert_eq!(run1(add_cc, 32, 0xffff_ffff, 1, 0), (0, 1));
        assert_eq!(run1(add_cc, 32 | CARRY_IN, 0xffff_fffe, 1, 1), (0, 1));
        assert_eq!(run1(sub_cc, 32, 0, 1, 0), (0xffff_ffff, 1));
        assert_eq!(run1(mul, 32 | HI | SIGNED, (-7i32) as u32 as u64, 1717986919, 0).0, (-3i32) as u32 as u64);
        assert_eq!(run1(mul, 64 | HI, u64::MAX, 3, 0).0, 2);
        assert_eq!(run1(mul, 32 | WIDE | SIGNED, (-3i32) as u32 as u64, 4, 0).0, (-12i64) as u64);
        assert_eq!(run1(div, 32 | SIGNED, (-7i32) as u32 as u64, 2, 0).0, (-3i32) as u32 as u64);
        assert_eq!(run1(rem, 32 | SIGNED, (-7i32) as u32 as u64, 2, 0).0, (-1i32) as u32 as u64);
        assert_eq!(run1(div, 32, 5, 0, 0).0, 0xffff_ffff);
        assert_eq!(run1(shr, 32 | SIGNED, 0x8000_0000, 40, 0).0, 0xffff_ffff);
        assert_eq!(run1(shl, 32, 1, 32, 0).0, 0);
        assert_eq!(run1(bfind, 32, 0x10, 0, 0).0, 4);
        assert_eq!(run1(bfind, 32 | ALT, 0x10, 0, 0).0, 27);
        assert_eq!(run1(bfind, 32 | SIGNED, 0xffff_ffff, 0, 0).0, 0xffff_ffff);
        assert_eq!(run1(clz, 32, 1, 0, 0).0, 31);
        assert_eq!(run1(brev, 32, 1, 0, 0).0, 0x8000_0000);
        assert_eq!(run1(bfe, 32 | SIGNED, 0xf0, 4, 4).0, 0xffff_ffff);
        assert_eq!(run1(bfe, 32, 0xf0, 4, 4).0, 0xf);
        // prmt default mode as nvcc uses it to assemble bytes.
        assert_eq!(run1(prmt, 0, 0x0000_0022, 0x0000_0011, 0x3340).0, 0x0000_1122);
        assert_eq!(run1(prmt, 0, 0x8070_6050, 0, 0xbbbb).0, 0xffff_ffff);
        assert_eq!(run1(shf, 0, 0x8000_0000, 1, 1).0, 3);
        assert_eq!(run1(lop3, 0x96, 0b1100, 0b1010, 0b0110).0, 0b0000); // a^b^c
        assert_eq!(run4(mad_cc, 32 | HI | CARRY_IN, 0xffff_ffff, 0xffff_ffff, 0, 1), (0xffff_ffff, 0));
        assert_eq!(run4(mad_cc, 32, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0), (0, 1));
        assert_eq!(run4(bfi, 32, 0b101, 0xffff_0000, 4, 3).0, 0xffff_0050);
        assert_eq!(run1(dp, 3, 0xff02_0304, 0x0101_0101, 10).0, (10 + 4 + 3 + 2 - 1) as u64);
        assert_eq!(run1(cmp, 32 | SIGNED | CMP_LT << 16, (-1i32) as u32 as u64, 0, 0).0, 1);
        assert_eq!(run1(cmp, 32 | CMP_LT << 16, (-1i32) as u32 as u64, 0, 0).0, 0);
    }
}
