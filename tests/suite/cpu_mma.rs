//! `mma.sync` on the CPU backend: nvcc's PTX for inline-asm kernels (`tests/cuda/mma.cu`, the
//! fragments loaded and stored by the PTX ISA's layout figures) runs one warp, and D must equal
//! the plain matrix product computed here on the host, element for element, bit for bit. The
//! host reference knows nothing of fragments, so a wrong layout on either side fails.

use crate::cpu_harness::{nvcc_archs, Harness};
use ptx_runtime::half::{bf16, f16};

const SRC: &str = include_str!("../cuda/mma.cu");

fn modules() -> Vec<Harness> {
    nvcc_archs("cpu_mma", SRC, &["sm_80", "sm_90"]).iter().map(|p| Harness::new(p)).collect()
}

/// SplitMix64: deterministic inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        crate::rng::splitmix64(&mut self.0)
    }
    /// A float in [-4, 4) with a few fraction bits, sometimes tiny (subnormal in f16).
    fn float(&mut self) -> f32 {
        let r = self.next();
        let v = ((r % 4096) as f32 - 2048.0) / 512.0;
        if r >> 60 == 0 {
            v * 1.0e-6
        } else {
            v
        }
    }
}

/// The documented accumulation (docs/tensor-cores.md): `c` plus the products in increasing `k`,
/// in f64, rounded once to f32; a NaN is the canonical one.
fn product(m: usize, n: usize, k: usize, a: impl Fn(usize, usize) -> f64, b: impl Fn(usize, usize) -> f64, c: &[f32]) -> Vec<u32> {
    let mut d = vec![0u32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = c[i * n + j] as f64;
            for kk in 0..k {
                acc += a(i, kk) * b(kk, j);
            }
            let r = acc as f32;
            d[i * n + j] = if r.is_nan() { 0x7fff_ffff } else { r.to_bits() };
        }
    }
    d
}

fn run_16bit(entry: &str, to_bits: impl Fn(f32) -> u16, value: impl Fn(u16) -> f64, seed: u64) {
    let mut rng = Rng(seed);
    let a: Vec<u16> = (0..16 * 16).map(|_| to_bits(rng.float())).collect();
    let b: Vec<u16> = (0..16 * 8).map(|_| to_bits(rng.float())).collect();
    let c: Vec<f32> = (0..16 * 8).map(|_| rng.float() * 8.0).collect();
    let want = product(16, 8, 16, |i, k| value(a[i * 16 + k]), |k, j| value(b[k * 8 + j]), &c);
    for mut h in modules() {
        let (da, db, dc, dd) = (h.upload(&a), h.upload(&b), h.upload(&c), h.zeroed::<f32>(16 * 8));
        h.launch(entry, [1, 1, 1], [32, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), dd.ptr()]).unwrap();
        let got: Vec<f32> = h.download(dd);
        let got: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want, "{entry}");
    }
}

#[test]
fn m16n8k16_f16_f32() {
    for seed in 1..4 {
        run_16bit("mma_f16", |x| f16::from_f32(x).to_bits(), |h| f16::from_bits(h).to_f64(), seed);
    }
}

#[test]
fn m16n8k16_bf16_f32() {
    for seed in 1..4 {
        run_16bit("mma_bf16", |x| bf16::from_f32(x).to_bits(), |h| bf16::from_bits(h).to_f64(), seed);
    }
}

#[test]
fn m16n8k8_tf32_f32() {
    let mut rng = Rng(7);
    // Values already in tf32 (the low 13 mantissa bits clear), so the result does not depend
    // on how the low bits would be treated.
    let tf32 = |x: f32| x.to_bits() & 0xffff_e000;
    let a: Vec<u32> = (0..16 * 8).map(|_| tf32(rng.float() * 1.37)).collect();
    let b: Vec<u32> = (0..8 * 8).map(|_| tf32(rng.float() * 0.71)).collect();
    let c: Vec<f32> = (0..16 * 8).map(|_| rng.float()).collect();
    let v = |x: u32| f32::from_bits(x) as f64;
    let want = product(16, 8, 8, |i, k| v(a[i * 8 + k]), |k, j| v(b[k * 8 + j]), &c);
    for mut h in modules() {
        let (da, db, dc, dd) = (h.upload(&a), h.upload(&b), h.upload(&c), h.zeroed::<f32>(16 * 8));
        h.launch("mma_tf32", [1, 1, 1], [32, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), dd.ptr()]).unwrap();
        let got: Vec<u32> = h.download::<f32>(dd).iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn m16n8k32_s8_u8_s32() {
    let mut rng = Rng(11);
    let a: Vec<u8> = (0..16 * 32).map(|_| rng.next() as u8).collect();
    let b: Vec<u8> = (0..32 * 8).map(|_| rng.next() as u8).collect();
    let c: Vec<i32> = (0..16 * 8).map(|i| if i % 5 == 0 { i32::MAX - 3 } else { rng.next() as i32 >> 8 }).collect();
    let cases: [(&str, bool, bool, bool); 4] =
        [("mma_s8s8", true, true, false), ("mma_u8u8", false, false, false), ("mma_s8u8", true, false, false), ("mma_s8s8_sat", true, true, true)];
    for mut h in modules() {
        for (entry, sa, sb, sat) in cases {
            let ext = |x: u8, s: bool| if s { x as i8 as i64 } else { x as i64 };
            let want: Vec<i32> = (0..16 * 8)
                .map(|e| {
                    let (i, j) = (e / 8, e % 8);
                    let s = c[e] as i64 + (0..32).map(|k| ext(a[i * 32 + k], sa) * ext(b[k * 8 + j], sb)).sum::<i64>();
                    if sat {
                        s.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                    } else {
                        s as i32
                    }
                })
                .collect();
            let (da, db, dc, dd) = (h.upload(&a), h.upload(&b), h.upload(&c), h.zeroed::<i32>(16 * 8));
            h.launch(entry, [1, 1, 1], [32, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), dd.ptr()]).unwrap();
            assert_eq!(h.download::<i32>(dd), want, "{entry}");
        }
    }
}

/// Lane `lane`'s register `i` after `ldmatrix` (or before `stmatrix`), from the PTX ISA's
/// figure "ldmatrix fragment layout": with `g = lane / 4`, `t = lane % 4`, the low half is
/// element (g, 2t) of matrix `i` and the high half (g, 2t + 1); `.trans` swaps row and column.
/// `m` holds the four matrices as a 32 × 8 row-major array (matrix `i` in rows 8i..8i+7).
fn fragment_reg(m: &[u16], lane: usize, i: usize, trans: bool) -> u32 {
    let (g, t) = (lane / 4, lane % 4);
    let at = |r: usize, c: usize| m[(8 * i + r) * 8 + c] as u32;
    if trans {
        at(2 * t, g) | at(2 * t + 1, g) << 16
    } else {
        at(g, 2 * t) | at(g, 2 * t + 1) << 16
    }
}

#[test]
fn ldmatrix_x1_x2_x4_trans() {
    let mut rng = Rng(23);
    let m: Vec<u16> = (0..32 * 8).map(|_| rng.next() as u16).collect();
    for mut h in modules() {
        for (entry, num, trans) in
            [("ldm_x1", 1, false), ("ldm_x2", 2, false), ("ldm_x4", 4, false), ("ldm_x1_trans", 1, true), ("ldm_x2_trans", 2, true), ("ldm_x4_trans", 4, true)]
        {
            let (dm, dr) = (h.upload(&m), h.zeroed::<u32>(32 * 4));
            h.launch(entry, [1, 1, 1], [32, 1, 1], 0, &[dm.ptr(), dr.ptr()]).unwrap();
            let got: Vec<u32> = h.download(dr);
            let want: Vec<u32> = (0..32 * 4).map(|e| if e % 4 < num { fragment_reg(&m, e / 4, e % 4, trans) } else { 0 }).collect();
            assert_eq!(got, want, "{entry}");
        }
    }
}

#[test]
fn stmatrix_x1_x2_x4_trans() {
    let mut rng = Rng(29);
    let m: Vec<u16> = (0..32 * 8).map(|_| rng.next() as u16).collect();
    // stmatrix is sm_90: the second module.
    let Some(mut h) = modules().into_iter().nth(1) else { return };
    for (entry, num, trans) in [("stm_x1", 1, false), ("stm_x2", 2, false), ("stm_x4", 4, false), ("stm_x4_trans", 4, true), ("stm_x2_trans", 2, true)] {
        let regs: Vec<u32> = (0..32 * 4).map(|e| fragment_reg(&m, e / 4, e % 4, trans)).collect();
        let (dr, dm) = (h.upload(&regs), h.zeroed::<u16>(32 * 8));
        h.launch(entry, [1, 1, 1], [32, 1, 1], 0, &[dr.ptr(), dm.ptr()]).unwrap();
        let want: Vec<u16> = m.iter().enumerate().map(|(e, &x)| if e / 64 < num { x } else { 0 }).collect();
        assert_eq!(h.download::<u16>(dm), want, "{entry}");
    }
}
