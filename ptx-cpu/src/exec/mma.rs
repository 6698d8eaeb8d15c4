//! `mma.sync.aligned` over a warp: the fragments of `a`, `b` and `c` gathered from every lane's
//! registers by the PTX ISA's fragment layouts (section "Matrix fragments for mma.m16n8k*"),
//! multiplied, and `d` scattered back the same way.
//!
//! Where the ISA leaves freedom, this backend chooses (and `docs/tensor-cores.md` says so):
//! float inputs are widened exactly (f16, bf16; tf32 keeps the top 19 bits of its register,
//! the 13 low mantissa bits ignored as the hardware ignores them), each product is exact in
//! f64, the sum starts from `c` and adds the products in increasing `k` in f64, and the total
//! is rounded once to f32 (round to nearest even). A NaN result is the canonical `0x7fffffff`.
//! Integer shapes wrap (or clamp with `.satfinite`), which leaves no freedom.

use super::block::Block;
use super::step::blend;
use super::warp::{lanes, Warp};
use crate::program::*;

/// The fragment layouts: for fragment element `i` of a lane with `g = lane / 4` (groupID) and
/// `t = lane % 4` (threadID_in_group), its (row, column) in the matrix.
pub mod layout {
    use crate::program::MmaKind;

    /// `k` of the shape.
    pub fn k(kind: MmaKind) -> usize {
        match kind {
            MmaKind::F16 | MmaKind::Bf16 => 16,
            MmaKind::Tf32 => 8,
            MmaKind::I8 { .. } => 32,
        }
    }

    /// Elements of A per lane (and per 32-bit register: `a_per_lane / 4`).
    pub fn a_elems(kind: MmaKind) -> usize {
        k(kind) * 16 / 32
    }

    /// Element `i` of the A fragment (16 × k, row-major).
    pub fn a(kind: MmaKind, g: usize, t: usize, i: usize) -> (usize, usize) {
        match kind {
            MmaKind::F16 | MmaKind::Bf16 => (g + 8 * ((i >> 1) & 1), t * 2 + (i & 1) + 8 * (i >> 2)),
            MmaKind::Tf32 => (g + 8 * (i & 1), t + 4 * (i >> 1)),
            MmaKind::I8 { .. } => (g + 8 * ((i >> 2) & 1), t * 4 + (i & 3) + 16 * (i >> 3)),
        }
    }

    /// Element `i` of the B fragment (k × 8, column-major).
    pub fn b(kind: MmaKind, g: usize, t: usize, i: usize) -> (usize, usize) {
        match kind {
            MmaKind::F16 | MmaKind::Bf16 => (t * 2 + (i & 1) + 8 * (i >> 1), g),
            MmaKind::Tf32 => (t + 4 * i, g),
            MmaKind::I8 { .. } => (t * 4 + (i & 3) + 16 * (i >> 2), g),
        }
    }

    /// Element `i` of the C and D fragments (16 × 8).
    pub fn c(g: usize, t: usize, i: usize) -> (usize, usize) {
        (g + 8 * (i >> 1), t * 2 + (i & 1))
    }

    /// Element `i`'s bits out of the fragment's 32-bit registers.
    pub fn element(kind: MmaKind, regs: &[u32], i: usize) -> u32 {
        match kind {
            MmaKind::F16 | MmaKind::Bf16 => regs[i / 2] >> (16 * (i & 1)) & 0xffff,
            MmaKind::Tf32 => regs[i],
            MmaKind::I8 { .. } => regs[i / 4] >> (8 * (i & 3)) & 0xff,
        }
    }
}

/// An f16's value.
pub fn f16_value(h: u32) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * (2f64).powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * (2f64).powi(e - 15),
    }
}

/// An input element's value (floats) as the multiplier sees it.
fn value(kind: MmaKind, bits: u32) -> f64 {
    match kind {
        MmaKind::F16 => f16_value(bits),
        MmaKind::Bf16 => f32::from_bits(bits << 16) as f64,
        _ => f32::from_bits(bits & 0xffff_e000) as f64,
    }
}

/// `d = a·b + c` for whole matrices: `a` 16 × k row-major, `b` k × 8 column-major (`b[n][k]`),
/// `c` 16 × 8 as bits; the result's bits.
pub fn multiply(kind: MmaKind, a: &[[u32; 32]; 16], b: &[[u32; 32]; 8], c: &[[u32; 8]; 16]) -> [[u32; 8]; 16] {
    let k = layout::k(kind);
    let mut d = [[0u32; 8]; 16];
    for m in 0..16 {
        for n in 0..8 {
            d[m][n] = match kind {
                MmaKind::I8 { a_signed, b_signed, satfinite } => {
                    let ext = |x: u32, s: bool| if s { x as u8 as i8 as i64 } else { x as u8 as i64 };
                    let mut acc = c[m][n] as i32 as i64;
                    for kk in 0..k {
                        acc += ext(a[m][kk], a_signed) * ext(b[n][kk], b_signed);
                    }
                    if satfinite {
                        acc.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
                    } else {
                        acc as u32
                    }
                }
                _ => {
                    let mut acc = f32::from_bits(c[m][n]) as f64;
                    for kk in 0..k {
                        acc += value(kind, a[m][kk]) * value(kind, b[n][kk]);
                    }
                    let r = acc as f32;
                    if r.is_nan() { 0x7fff_ffff } else { r.to_bits() }
                }
            };
        }
    }
    d
}

/// `mma` for a whole warp given each lane's registers (`a[lane]`, `b[lane]`, `c[lane]` as
/// bits; lanes that do not take part hold zeros): each lane's registers of `d`.
pub fn warp_mma(kind: MmaKind, a: &[[u32; 4]; 32], b: &[[u32; 2]; 32], c: &[[u32; 4]; 32]) -> [[u32; 4]; 32] {
    let (mut ma, mut mb, mut mc) = ([[0u32; 32]; 16], [[0u32; 32]; 8], [[0u32; 8]; 16]);
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for i in 0..layout::a_elems(kind) {
            let (row, col) = layout::a(kind, g, t, i);
            ma[row][col] = layout::element(kind, &a[l], i);
        }
        for i in 0..layout::a_elems(kind) / 2 {
            let (row, col) = layout::b(kind, g, t, i);
            mb[col][row] = layout::element(kind, &b[l], i);
        }
        for i in 0..4 {
            let (row, col) = layout::c(g, t, i);
            mc[row][col] = c[l][i];
        }
    }
    let md = multiply(kind, &ma, &mb, &mc);
    let mut d = [[0u32; 4]; 32];
    for (l, dl) in d.iter_mut().enumerate() {
        for (i, x) in dl.iter_mut().enumerate() {
            let (row, col) = layout::c(l / 4, l % 4, i);
            *x = md[row][col];
        }
    }
    d
}

impl<'l> Block<'l> {
    /// Executes `mma` for the warp: every lane of `lanes_` receives its part of `d`. Lanes that
    /// are not live contribute zeros.
    pub(super) fn mma(&mut self, w: &mut Warp, depth: usize, lanes_: u32, kind: MmaKind, dr: &[Reg; 4], a: &[Src; 4], b: &[Src; 2], c: &[Src; 4]) {
        let mut fa = [[0u64; 32]; 4];
        let mut fb = [[0u64; 32]; 2];
        let mut fc = [[0u64; 32]; 4];
        for r in 0..4 {
            self.fetch(w, depth, a[r], &mut fa[r]);
            self.fetch(w, depth, c[r], &mut fc[r]);
        }
        for r in 0..2 {
            self.fetch(w, depth, b[r], &mut fb[r]);
        }
        let (mut ra, mut rb, mut rc) = ([[0u32; 4]; 32], [[0u32; 2]; 32], [[0u32; 4]; 32]);
        for l in lanes(lanes_) {
            ra[l] = [fa[0][l] as u32, fa[1][l] as u32, fa[2][l] as u32, fa[3][l] as u32];
            rb[l] = [fb[0][l] as u32, fb[1][l] as u32];
            rc[l] = [fc[0][l] as u32, fc[1][l] as u32, fc[2][l] as u32, fc[3][l] as u32];
        }
        let rd = warp_mma(kind, &ra, &rb, &rc);
        for (i, &reg) in dr.iter().enumerate() {
            if reg == NOREG {
                continue;
            }
            let mut out = [0u64; 32];
            for l in 0..32 {
                out[l] = rd[l][i] as u64;
            }
            blend(&mut w.levels[depth][reg as usize], &out, lanes_);
        }
    }
}
