//! Argument reduction for the trigonometric functions: `x = (4k + q)·π/2 + r`, `|r| ≤ π/4`.
//!
//! Moderate arguments use Cody–Waite: `π/2` in four 30-bit pieces, so `k·piece` is exact for
//! `k < 2^23`. Larger ones use Payne–Hanek: the bits of `2/π` that matter for `x`'s exponent
//! (a 1280-bit table, seven 32-bit words at a time), multiplied out in 32-bit limbs, give
//! `x·2/π mod 4` with 128 bits of fraction; `r` comes back as a double-double.

use ptx_runtime::{device_fn, DeviceRepr};

pub(crate) const TWO_OVER_PI_F64: f64 = core::f64::consts::FRAC_2_PI;
pub(crate) const PIO2_1: f64 = 1.570_796_325_802_803;
pub(crate) const PIO2_2: f64 = 9.920_935_791_635_221e-10;
pub(crate) const PIO2_3: f64 = 5.170_182_978_890_25e-19;
pub(crate) const PIO2_4: f64 = 2.903_855_973_979_360_5e-28;
pub(crate) const PIO2_HI: f64 = core::f64::consts::FRAC_PI_2;
pub(crate) const PIO2_LO: f64 = 6.123_233_995_736_766e-17;

/// `x ≈ (4k + q)·π/2 + hi + lo`.
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub(crate) struct Reduced {
    pub q: u32,
    pub hi: f64,
    pub lo: f64,
}

/// Word `i` of the binary expansion of `2/π` (32 bits per word, most significant first).
#[device_fn]
pub(crate) fn two_over_pi_word(i: u32) -> u32 {
    match i {
        0 => 0xA2F9_836E,
        1 => 0x4E44_1529,
        2 => 0xFC27_57D1,
        3 => 0xF534_DDC0,
        4 => 0xDB62_9599,
        5 => 0x3C43_9041,
        6 => 0xFE51_63AB,
        7 => 0xDEBB_C561,
        8 => 0xB724_6E3A,
        9 => 0x424D_D2E0,
        10 => 0x0649_2EEA,
        11 => 0x09D1_921C,
        12 => 0xFE1D_EB1C,
        13 => 0xB129_A73E,
        14 => 0xE882_35F5,
        15 => 0x2EBB_4484,
        16 => 0xE99C_7026,
        17 => 0xB45F_7E41,
        18 => 0x3991_D639,
        19 => 0x8353_39F4,
        20 => 0x9C84_5F8B,
        21 => 0xBDF9_283B,
        22 => 0x1FF8_97FF,
        23 => 0xDE05_980F,
        24 => 0xEF2F_118B,
        25 => 0x5A0A_6D1F,
        26 => 0x6D36_7ECF,
        27 => 0x27CB_09B7,
        28 => 0x4F46_3F66,
        29 => 0x9E5F_EA2D,
        30 => 0x7527_BAC7,
        31 => 0xEBE5_F17B,
        32 => 0x3D07_39F7,
        33 => 0x8A52_92EA,
        34 => 0x6BFB_5FB1,
        35 => 0x1F8D_5D08,
        36 => 0x5603_3046,
        37 => 0xFC7B_6BAB,
        38 => 0xF0CF_BC20,
        39 => 0x9AF4_361D,
        _ => 0,
    }
}

/// Reduces a finite `x`; exact quadrant, `r` to about 2^-100 relative.
#[device_fn]
pub(crate) fn rem_pio2(x: f64) -> Reduced {
    let ax = x.abs();
    if ax < 5_000_000.0 {
        // Cody–Waite: k < 2^22, each k·PIO2_i exact; the first difference exact by Sterbenz.
        let k = (x * TWO_OVER_PI_F64).round_ties_even();
        let r1 = (-k).mul_add(PIO2_1, x);
        let p2 = k * PIO2_2;
        let p3 = k * PIO2_3;
        // r1 − p2 − p3 as exact sums of two doubles, then the last piece.
        let s1 = r1 - p2;
        let b1 = s1 - r1;
        let e1 = (r1 - (s1 - b1)) + (-p2 - b1);
        let s2 = s1 - p3;
        let b2 = s2 - s1;
        let e2 = (s1 - (s2 - b2)) + (-p3 - b2);
        let lo = (e1 + e2) - k * PIO2_4;
        let hi = s2 + lo;
        let q = (k as i64 & 3) as u32;
        return Reduced { q, hi, lo: lo - (hi - s2) };
    }
    rem_pio2_large(x)
}

/// Payne–Hanek reduction of a finite `x` with `|x| ≥ 1`.
#[device_fn]
pub(crate) fn rem_pio2_large(x: f64) -> Reduced {
    let bits = x.to_bits();
    let negative = (bits >> 63) != 0;
    let m = (bits & 0x000f_ffff_ffff_ffff) | 0x0010_0000_0000_0000;
    let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
    // Words before `j` contribute multiples of 4 to x·2/π.
    let j: i32 = if e >= 34 { (e - 2) / 32 } else { 0 };
    let s = e - 32 * (j + 1);
    let m_lo = m & 0xffff_ffff;
    let m_hi = m >> 32;
    // acc = Σ m·W[j+k]·2^(32(6−k)), in 32-bit limbs (least significant first): seven words,
    // enough for 128 exact bits of fraction.
    let mut acc = [0u64; 11];
    for k in 0..7usize {
        let w = two_over_pi_word(j as u32 + k as u32) as u64;
        let lo = m_lo * w;
        let hi = m_hi * w;
        let base = 6 - k;
        acc[base] += lo & 0xffff_ffff;
        acc[base + 1] += (lo >> 32) + (hi & 0xffff_ffff);
        acc[base + 2] += hi >> 32;
    }
    for i in 0..10usize {
        acc[i + 1] += acc[i] >> 32;
        acc[i] &= 0xffff_ffff;
    }
    // The binary point of x·2/π is at bit 192 − s of acc.
    let bp = (192 - s) as u32;
    let ql = (bp / 32) as usize;
    let qo = bp % 32;
    let mut q = (((acc[ql] | (acc[ql + 1] << 32)) >> qo) & 3) as u32;
    let mut frac_hi = limbs64(acc, bp - 64);
    let mut frac_lo = limbs64(acc, bp - 128);
    // A fraction of a half or more counts from the next quadrant down: negate it (128 bits).
    let below = frac_hi >> 63 != 0;
    if below {
        q = (q + 1) & 3;
        frac_hi = !frac_hi;
        frac_lo = (!frac_lo).wrapping_add(1);
        if frac_lo == 0 {
            frac_hi = frac_hi.wrapping_add(1);
        }
    }
    // The fraction as a double-double, times π/2.
    let f_hi = frac_hi as f64;
    let rest = frac_hi.wrapping_sub(f_hi as u64) as i64;
    let f_lo = rest as f64 + frac_lo as f64 * 5.421_010_862_427_522e-20;
    let scale = 5.421_010_862_427_522e-20;
    let a = f_hi * scale;
    let b = f_lo * scale;
    let hi = a * PIO2_HI;
    let lo = a.mul_add(PIO2_HI, -hi) + a.mul_add(PIO2_LO, b * PIO2_HI);
    let mut h = hi + lo;
    let mut l = lo - (h - hi);
    if below {
        h = -h;
        l = -l;
    }
    if negative {
        Reduced { q: (4 - q) & 3, hi: -h, lo: -l }
    } else {
        Reduced { q, hi: h, lo: l }
    }
}

/// The 64 bits of `acc` (32-bit limbs) from bit `at` up: for the f64 reduction's 11 limbs and
/// the f32 reduction's 7.
#[device_fn]
pub(crate) fn limbs64<const N: usize>(acc: [u64; N], at: u32) -> u64 {
    let l = (at / 32) as usize;
    let o = at % 32;
    if o == 0 {
        acc[l] | (acc[l + 1] << 32)
    } else {
        (acc[l] >> o) | (acc[l + 1] << (32 - o)) | (acc[l + 2] << (64 - o))
    }
}
