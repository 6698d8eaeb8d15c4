//! Per-lane loops shared by the arithmetic kernels. Each maps a scalar function over all 32
//! lanes; the executor blends results into registers under the active mask, so computing
//! inactive lanes is harmless and keeps the loops branch-free (and vectorizable).

use crate::program::Lanes;

#[inline(always)]
pub fn map1(a: &Lanes, o: &mut Lanes, f: impl Fn(u64) -> u64) {
    for i in 0..32 {
        o[i] = f(a[i]);
    }
}

#[inline(always)]
pub fn map2(a: &Lanes, b: &Lanes, o: &mut Lanes, f: impl Fn(u64, u64) -> u64) {
    for i in 0..32 {
        o[i] = f(a[i], b[i]);
    }
}

#[inline(always)]
pub fn map3(a: &Lanes, b: &Lanes, c: &Lanes, o: &mut Lanes, f: impl Fn(u64, u64, u64) -> u64) {
    for i in 0..32 {
        o[i] = f(a[i], b[i], c[i]);
    }
}

/// Like [`map3`] with a second result per lane.
#[inline(always)]
pub fn map3x2(a: &Lanes, b: &Lanes, c: &Lanes, o: &mut Lanes, o2: &mut Lanes, f: impl Fn(u64, u64, u64) -> (u64, u64)) {
    for i in 0..32 {
        let (x, y) = f(a[i], b[i], c[i]);
        o[i] = x;
        o2[i] = y;
    }
}

/// The low `bits` bits set.
#[inline(always)]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits.
#[inline(always)]
pub fn sext(x: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((x << s) as i64) >> s
}
