//! The tensor-core device API (`ptx_runtime::device::mma`):
//!
//! - on the host, a warp of 32 host threads (`host::run`) stages tiles in shared memory, loads
//!   fragments with `ldmatrix`, multiplies with `mma_sync` and stores D by
//!   `FragmentC::position`. D must equal the plain matrix product computed here (which knows
//!   nothing of fragments) and, bit for bit, the CPU backend's result for nvcc's inline-asm
//!   kernel over the same inputs (`tests/cuda/mma.cu`);
//! - the same bodies as `#[kernel]`s, compiled by the body compiler: their CPU-backend runs
//!   must equal their host runs and the plain product, bit for bit, for every shape and type
//!   (f16, bf16 through `ldmatrix`; tf32, s8·s8, u8·u8, s8·u8, `.satfinite` through
//!   `position`), and `ldmatrix`/`stmatrix` of every form against the ISA figure's formula;
//! - PTX-line oracle: `k::oracle` emits each `mma.sync`/`ldmatrix`/`stmatrix` form once, and its
//!   lines must be nvcc's for the inline asm of `tests/cuda/mma.cu` (registers reduced to
//!   their kind), in the same order.
//!
//! Every module goes through ptxas (sm_80 and sm_90; `stmatrix` sm_90 only).

use crate::cpu_harness::{nvcc_archs, Harness};
use ptx_runtime::device::host::{self, Disjoint};
use ptx_runtime::device::mma::*;
use ptx_runtime::device::{lane_id, shared_array, sync_warp};
use ptx_runtime::half::{bf16, f16};

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        crate::rng::splitmix64(&mut self.0)
    }
    fn float(&mut self) -> f32 {
        ((self.next() % 4096) as f32 - 2048.0) / 512.0
    }
}

/// `c + a·b` (a 16 × k row-major, b k × 8 row-major), the products summed in increasing k in
/// f64 and rounded once (docs/tensor-cores.md).
fn product(k: usize, a: impl Fn(usize, usize) -> f64, b: impl Fn(usize, usize) -> f64, c: &[f32]) -> Vec<u32> {
    (0..16 * 8)
        .map(|e| {
            let (i, j) = (e / 8, e % 8);
            let acc = (0..k).fold(c[e] as f64, |s, kk| s + a(i, kk) * b(kk, j));
            (acc as f32).to_bits()
        })
        .collect()
}

/// One warp: A (16 × 16) and B (16 × 8, row-major) staged in shared memory, A loaded by
/// `ldmatrix_x4`, B by `ldmatrix_x2_trans`, C and D by `FragmentC::position`.
fn host_gemm_16bit<T: Element<M16N8K16> + Mma<M16N8K16, T, Acc = f32> + B16 + Send + Sync>(a: &[T], b: &[T], c: &[f32]) -> Vec<u32> {
    let mut d = vec![0f32; 16 * 8];
    let out = Disjoint::new(&mut d);
    host::run([1, 1, 1], [32, 1, 1], 0, || {
        let lane = lane_id();
        let mut sa = unsafe { shared_array::<T, 256>() };
        let mut sb = unsafe { shared_array::<T, 128>() };
        for i in (lane as usize..256).step_by(32) {
            sa[i] = a[i];
        }
        for i in (lane as usize..128).step_by(32) {
            sb[i] = b[i];
        }
        sync_warp(u32::MAX);
        let (l, hi) = (lane as usize % 16, lane as usize / 16);
        // Matrices 0..4 of A: rows 0-7 / 8-15 at column 0, then at column 8.
        let fa = FragmentA::<M16N8K16, T>::from_regs(unsafe { ldmatrix_x4(sa.as_ptr().add(l * 16 + 8 * hi)) });
        // B's 16 rows (k) of 8: two 8 × 8 matrices, transposed into the column-major fragment.
        let fb = FragmentB::<M16N8K16, T>::from_regs(unsafe { ldmatrix_x2_trans(sb.as_ptr().add(l * 8)) });
        let mut fc = FragmentC::<f32>::default();
        for (i, r) in fc.regs.iter_mut().enumerate() {
            let (row, col) = FragmentC::<f32>::position(lane, i);
            *r = c[row * 8 + col];
        }
        let fd = mma_sync(fa, fb, fc);
        // SAFETY: each (row, col) belongs to one lane.
        let out = unsafe { out.get() };
        for (i, r) in fd.regs.iter().enumerate() {
            let (row, col) = FragmentC::<f32>::position(lane, i);
            out[row * 8 + col] = *r;
        }
    });
    d.iter().map(|x| x.to_bits()).collect()
}

/// D of nvcc's `entry` (tests/cuda/mma.cu) run by the CPU backend, for each architecture.
fn cpu_backend(entry: &str, a: &[u16], b: &[u16], c: &[f32]) -> Vec<Vec<u32>> {
    nvcc_archs("body_mma", include_str!("../cuda/mma.cu"), &["sm_80", "sm_90"])
        .iter()
        .map(|p| {
            let mut h = Harness::new(p);
            let (da, db, dc, dd) = (h.upload(a), h.upload(b), h.upload(c), h.zeroed::<f32>(16 * 8));
            h.launch(entry, [1, 1, 1], [32, 1, 1], 0, &[da.ptr(), db.ptr(), dc.ptr(), dd.ptr()]).unwrap();
            h.download::<f32>(dd).iter().map(|x| x.to_bits()).collect()
        })
        .collect()
}

#[test]
fn host_ldmatrix_mma_f16_equals_product_and_cpu_backend() {
    let mut rng = Rng(41);
    let a: Vec<f16> = (0..256).map(|_| f16::from_f32(rng.float())).collect();
    let b: Vec<f16> = (0..128).map(|_| f16::from_f32(rng.float())).collect();
    let c: Vec<f32> = (0..128).map(|_| rng.float() * 4.0).collect();
    let got = host_gemm_16bit(&a, &b, &c);
    assert_eq!(got, product(16, |i, k| a[i * 16 + k].to_f64(), |k, j| b[k * 8 + j].to_f64(), &c));
    let bits = |v: &[f16]| v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>();
    for d in cpu_backend("mma_f16", &bits(&a), &bits(&b), &c) {
        assert_eq!(d, got, "CPU backend vs host run");
    }
}

#[test]
fn host_ldmatrix_mma_bf16_equals_product_and_cpu_backend() {
    let mut rng = Rng(43);
    let a: Vec<bf16> = (0..256).map(|_| bf16::from_f32(rng.float() * 3.3)).collect();
    let b: Vec<bf16> = (0..128).map(|_| bf16::from_f32(rng.float() * 0.7)).collect();
    let c: Vec<f32> = (0..128).map(|_| rng.float()).collect();
    let got = host_gemm_16bit(&a, &b, &c);
    assert_eq!(got, product(16, |i, k| a[i * 16 + k].to_f64(), |k, j| b[k * 8 + j].to_f64(), &c));
    let bits = |v: &[bf16]| v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>();
    for d in cpu_backend("mma_bf16", &bits(&a), &bits(&b), &c) {
        assert_eq!(d, got, "CPU backend vs host run");
    }
}

/// Fragments filled element by element through `position`/`set` (no ldmatrix), for the tf32
/// and 8-bit integer shapes.
#[test]
fn host_mma_tf32_and_s8_u8_by_position() {
    let mut rng = Rng(47);
    let a: Vec<f32> = (0..16 * 8).map(|_| f32::from_bits(rng.float().to_bits() & 0xffff_e000)).collect();
    let b: Vec<f32> = (0..8 * 8).map(|_| f32::from_bits(rng.float().to_bits() & 0xffff_e000)).collect();
    let c: Vec<f32> = (0..128).map(|_| rng.float()).collect();
    let mut d = vec![0u32; 128];
    let out = Disjoint::new(&mut d);
    host::run([1, 1, 1], [32, 1, 1], 0, || {
        let lane = lane_id();
        let mut fa = FragmentA::<M16N8K8, Tf32>::zero();
        for i in 0..FragmentA::<M16N8K8, Tf32>::ELEMENTS {
            let (r, k) = FragmentA::<M16N8K8, Tf32>::position(lane, i);
            fa.set(i, Tf32(a[r * 8 + k]));
        }
        let mut fb = FragmentB::<M16N8K8, Tf32>::zero();
        for i in 0..FragmentB::<M16N8K8, Tf32>::ELEMENTS {
            let (k, n) = FragmentB::<M16N8K8, Tf32>::position(lane, i);
            fb.set(i, Tf32(b[k * 8 + n]));
        }
        let fc = FragmentC::from_regs(core::array::from_fn(|i| {
            let (r, n) = FragmentC::<f32>::position(lane, i);
            c[r * 8 + n]
        }));
        let fd = mma_sync(fa, fb, fc);
        let out = unsafe { out.get() };
        for i in 0..4 {
            let (r, n) = FragmentC::<f32>::position(lane, i);
            out[r * 8 + n] = fd.regs[i].to_bits();
        }
    });
    assert_eq!(d, product(8, |i, k| a[i * 8 + k] as f64, |k, j| b[k * 8 + j] as f64, &c));

    let a: Vec<i8> = (0..16 * 32).map(|_| rng.next() as i8).collect();
    let b: Vec<u8> = (0..32 * 8).map(|_| rng.next() as u8).collect();
    let c: Vec<i32> = (0..128).map(|i| if i % 3 == 0 { i32::MAX - 5 } else { rng.next() as i32 >> 4 }).collect();
    for sat in [false, true] {
        let mut d = vec![0i32; 128];
        let out = Disjoint::new(&mut d);
        host::run([1, 1, 1], [32, 1, 1], 0, || {
            let lane = lane_id();
            let mut fa = FragmentA::<M16N8K32, i8>::zero();
            for i in 0..16 {
                let (r, k) = FragmentA::<M16N8K32, i8>::position(lane, i);
                fa.set(i, a[r * 32 + k]);
                assert_eq!(fa.get(i), a[r * 32 + k]);
            }
            let mut fb = FragmentB::<M16N8K32, u8>::zero();
            for i in 0..8 {
                let (k, n) = FragmentB::<M16N8K32, u8>::position(lane, i);
                fb.set(i, b[k * 8 + n]);
            }
            let fc = FragmentC::from_regs(core::array::from_fn(|i| {
                let (r, n) = FragmentC::<i32>::position(lane, i);
                c[r * 8 + n]
            }));
            let fd = if sat { mma_sync_satfinite(fa, fb, fc) } else { mma_sync(fa, fb, fc) };
            let out = unsafe { out.get() };
            for i in 0..4 {
                let (r, n) = FragmentC::<i32>::position(lane, i);
                out[r * 8 + n] = fd.regs[i];
            }
        });
        let want: Vec<i32> = (0..128)
            .map(|e| {
                let (i, j) = (e / 8, e % 8);
                let s = c[e] as i64 + (0..32).map(|k| a[i * 32 + k] as i64 * b[k * 8 + j] as i64).sum::<i64>();
                if sat { s.clamp(i32::MIN as i64, i32::MAX as i64) as i32 } else { s as i32 }
            })
            .collect();
        assert_eq!(d, want, "satfinite: {sat}");
    }
}

/// `ldmatrix_x4[_trans]` then `stmatrix_x4[_trans]` through shared memory on the host: the
/// registers hold the ISA's elements (checked against the figure's formula), and the stores
/// put every element back.
#[test]
fn host_ldmatrix_stmatrix_layout() {
    let mut rng = Rng(53);
    let m: Vec<u16> = (0..32 * 8).map(|_| rng.next() as u16).collect();
    for trans in [false, true] {
        let mut regs = vec![0u32; 32 * 4];
        let mut back = vec![0u16; 32 * 8];
        let (ro, bo) = (Disjoint::new(&mut regs), Disjoint::new(&mut back));
        host::run([1, 1, 1], [32, 1, 1], 0, || {
            let lane = lane_id() as usize;
            let mut s = unsafe { shared_array::<u16, 256>() };
            let mut t = unsafe { shared_array::<u16, 256>() };
            for i in (lane..256).step_by(32) {
                s[i] = m[i];
            }
            sync_warp(u32::MAX);
            let r = unsafe { if trans { ldmatrix_x4_trans(s.as_ptr().add(lane * 8)) } else { ldmatrix_x4(s.as_ptr().add(lane * 8)) } };
            unsafe { ro.get()[lane * 4..lane * 4 + 4].copy_from_slice(&r) };
            unsafe {
                if trans {
                    stmatrix_x4_trans(t.as_mut_ptr().add(lane * 8), r)
                } else {
                    stmatrix_x4(t.as_mut_ptr().add(lane * 8), r)
                }
            };
            sync_warp(u32::MAX);
            for i in (lane..256).step_by(32) {
                unsafe { bo.get()[i] = t[i] };
            }
        });
        let want: Vec<u32> = (0..128)
            .map(|e| {
                let (lane, i) = (e / 4, e % 4);
                let (g, t) = (lane / 4, lane % 4);
                let at = |r: usize, c: usize| m[(8 * i + r) * 8 + c] as u32;
                if trans { at(2 * t, g) | at(2 * t + 1, g) << 16 } else { at(g, 2 * t) | at(g, 2 * t + 1) << 16 }
            })
            .collect();
        assert_eq!(regs, want, "trans: {trans}");
        assert_eq!(back, m, "trans: {trans}");
    }
}

/// The same operations as `#[kernel]`s (one warp each).
mod k {
    use ptx_runtime::device::mma::*;
    use ptx_runtime::device::*;
    use ptx_runtime::half::{bf16, f16};
    use ptx_runtime::kernel;

    /// A (16 × 16) and B (16 × 8, row-major) staged in shared memory, A loaded by
    /// `ldmatrix_x4`, B by `ldmatrix_x2_trans`, C and D by `FragmentC::position`.
    macro_rules! gemm16 {
        ($name:ident, $t:ty) => {
            #[kernel(sm = 80)]
            pub fn $name(a: &[$t], b: &[$t], c: &[f32], d: &mut [f32]) {
                let lane = lane_id();
                let l = lane as usize;
                // One array: on the host, `shared_array`s are told apart by their call site,
                // which is the macro's invocation for every call inside `macro_rules!`.
                let mut s = unsafe { shared_array::<$t, 384>() };
                for j in 0..8 {
                    s[j * 32 + l] = a[j * 32 + l];
                }
                for j in 0..4 {
                    s[256 + j * 32 + l] = b[j * 32 + l];
                }
                sync_warp(u32::MAX);
                let (r, hi) = (l % 16, l / 16);
                let fa = FragmentA::<M16N8K16, $t>::from_regs(unsafe { ldmatrix_x4(s.as_ptr().add(r * 16 + 8 * hi)) });
                let fb = FragmentB::<M16N8K16, $t>::from_regs(unsafe { ldmatrix_x2_trans(s.as_ptr().add(256 + r * 8)) });
                let mut fc = FragmentC::<f32>::zero();
                for i in 0..4 {
                    let (row, col) = FragmentC::<f32>::position(lane, i);
                    fc.regs[i] = c[row * 8 + col];
                }
                let fd = mma_sync(fa, fb, fc);
                for i in 0..4 {
                    let (row, col) = FragmentC::<f32>::position(lane, i);
                    d[row * 8 + col] = fd.regs[i];
                }
            }
        };
    }
    gemm16!(gemm_f16, f16);
    gemm16!(gemm_bf16, bf16);

    /// tf32: A 16 × 8, B 8 × 8 (row-major f32 bits), each element placed by `position`.
    #[kernel(sm = 80)]
    pub fn mma_tf32(a: &[u32], b: &[u32], c: &[f32], d: &mut [f32]) {
        let lane = lane_id();
        let mut fa = FragmentA::<M16N8K8, Tf32>::zero();
        for i in 0..4 {
            let (r, k) = FragmentA::<M16N8K8, Tf32>::position(lane, i);
            fa.regs[i] = a[r * 8 + k];
        }
        let mut fb = FragmentB::<M16N8K8, Tf32>::zero();
        for i in 0..2 {
            let (k, n) = FragmentB::<M16N8K8, Tf32>::position(lane, i);
            fb.regs[i] = b[k * 8 + n];
        }
        let mut fc = FragmentC::<f32>::zero();
        for i in 0..4 {
            let (r, n) = FragmentC::<f32>::position(lane, i);
            fc.regs[i] = c[r * 8 + n];
        }
        let fd = mma_sync(fa, fb, fc);
        for i in 0..4 {
            let (r, n) = FragmentC::<f32>::position(lane, i);
            d[r * 8 + n] = fd.regs[i];
        }
    }

    /// 8-bit: A 16 × 32, B 32 × 8 (row-major bytes), element `i` byte `i % 4` of register
    /// `i / 4`; `form` 0: s8·s8, 1: u8·u8, 2: s8·u8, 3: s8·s8 with `.satfinite`.
    #[kernel(sm = 80)]
    pub fn mma_8bit(a: &[u8], b: &[u8], c: &[i32], d: &mut [i32], form: u32) {
        let lane = lane_id();
        let mut ra = [0u32; 4];
        for i in 0..16 {
            let (r, k) = FragmentA::<M16N8K32, i8>::position(lane, i);
            ra[i / 4] |= (a[r * 32 + k] as u32) << (8 * (i % 4));
        }
        let mut rb = [0u32; 2];
        for i in 0..8 {
            let (k, n) = FragmentB::<M16N8K32, i8>::position(lane, i);
            rb[i / 4] |= (b[k * 8 + n] as u32) << (8 * (i % 4));
        }
        let mut fc = FragmentC::<i32>::zero();
        for i in 0..4 {
            let (r, n) = FragmentC::<i32>::position(lane, i);
            fc.regs[i] = c[r * 8 + n];
        }
        let fd = if form == 0 {
            mma_sync(FragmentA::<M16N8K32, i8>::from_regs(ra), FragmentB::<M16N8K32, i8>::from_regs(rb), fc)
        } else if form == 1 {
            mma_sync(FragmentA::<M16N8K32, u8>::from_regs(ra), FragmentB::<M16N8K32, u8>::from_regs(rb), fc)
        } else if form == 2 {
            mma_sync(FragmentA::<M16N8K32, i8>::from_regs(ra), FragmentB::<M16N8K32, u8>::from_regs(rb), fc)
        } else {
            mma_sync_satfinite(FragmentA::<M16N8K32, i8>::from_regs(ra), FragmentB::<M16N8K32, i8>::from_regs(rb), fc)
        };
        for i in 0..4 {
            let (r, n) = FragmentC::<i32>::position(lane, i);
            d[r * 8 + n] = fd.regs[i];
        }
    }

    /// Every `ldmatrix` form from a 32 × 8 matrix of 16-bit elements kept with a row stride
    /// of 16 (lane `l` passes row `l`): `r[(form * 32 + lane) * 4 + i]` is register `i`.
    #[kernel(sm = 80)]
    pub fn ldmatrix_all(m: &[u16], r: &mut [u32]) {
        let l = lane_id() as usize;
        let mut s = unsafe { shared_array::<u16, 512>() };
        for j in 0..8 {
            let i = j * 32 + l;
            s[(i / 8) * 16 + i % 8] = m[i];
        }
        sync_warp(u32::MAX);
        let p = unsafe { s.as_ptr().add(l * 16) };
        let x1 = unsafe { ldmatrix_x1(p) };
        let x2 = unsafe { ldmatrix_x2(p) };
        let x4 = unsafe { ldmatrix_x4(p) };
        let t1 = unsafe { ldmatrix_x1_trans(p) };
        let t2 = unsafe { ldmatrix_x2_trans(p) };
        let t4 = unsafe { ldmatrix_x4_trans(p) };
        let o = l * 4;
        r[o] = x1[0];
        r[128 + o] = x2[0];
        r[128 + o + 1] = x2[1];
        for i in 0..4 {
            r[256 + o + i] = x4[i];
            r[640 + o + i] = t4[i];
        }
        r[384 + o] = t1[0];
        r[512 + o] = t2[0];
        r[512 + o + 1] = t2[1];
    }

    /// `stmatrix` (sm_90), each form into its own 32 × 8 block of `m` (row stride 16 in
    /// shared memory; matrices past `.xN` stay zero): lane `l`'s registers are
    /// `regs[l * 4..l * 4 + 4]`.
    #[kernel(sm = 90)]
    pub fn stmatrix_all(regs: &[u32], m: &mut [u16]) {
        let l = lane_id() as usize;
        let r4 = [regs[l * 4], regs[l * 4 + 1], regs[l * 4 + 2], regs[l * 4 + 3]];
        let mut s = unsafe { shared_array::<u16, 2560>() };
        for j in 0..80 {
            s[j * 32 + l] = 0;
        }
        sync_warp(u32::MAX);
        unsafe {
            let p = s.as_mut_ptr().add(l * 16);
            stmatrix_x1(p, [r4[0]]);
            stmatrix_x2(p.add(512), [r4[0], r4[1]]);
            stmatrix_x4(p.add(1024), r4);
            stmatrix_x4_trans(p.add(1536), r4);
            stmatrix_x2_trans(p.add(2048), [r4[0], r4[1]]);
        }
        sync_warp(u32::MAX);
        for f in 0..5 {
            for j in 0..8 {
                let i = j * 32 + l;
                m[f * 256 + i] = s[f * 512 + (i / 8) * 16 + i % 8];
            }
        }
    }

    /// Each form once, in the order of `tests/cuda/mma.cu`'s kernels.
    #[kernel(sm = 90)]
    pub fn oracle(x: &[u32], y: &mut [f32], z: &mut [i32], w: &mut [u32]) {
        let l = lane_id() as usize;
        let ra = [x[0], x[1], x[2], x[3]];
        let rb = [x[4], x[5]];
        let cf = FragmentC::<f32>::from_regs([y[0], y[1], y[2], y[3]]);
        let ci = FragmentC::<i32>::from_regs([z[0], z[1], z[2], z[3]]);
        let d1 = mma_sync(FragmentA::<M16N8K16, f16>::from_regs(ra), FragmentB::<M16N8K16, f16>::from_regs(rb), cf);
        let d2 = mma_sync(FragmentA::<M16N8K16, bf16>::from_regs(ra), FragmentB::<M16N8K16, bf16>::from_regs(rb), d1);
        let d3 = mma_sync(FragmentA::<M16N8K8, Tf32>::from_regs(ra), FragmentB::<M16N8K8, Tf32>::from_regs(rb), d2);
        let e1 = mma_sync(FragmentA::<M16N8K32, i8>::from_regs(ra), FragmentB::<M16N8K32, i8>::from_regs(rb), ci);
        let e2 = mma_sync(FragmentA::<M16N8K32, u8>::from_regs(ra), FragmentB::<M16N8K32, u8>::from_regs(rb), e1);
        let e3 = mma_sync(FragmentA::<M16N8K32, i8>::from_regs(ra), FragmentB::<M16N8K32, u8>::from_regs(rb), e2);
        let e4 = mma_sync_satfinite(FragmentA::<M16N8K32, i8>::from_regs(ra), FragmentB::<M16N8K32, i8>::from_regs(rb), e3);
        for i in 0..4 {
            y[4 + i] = d3.regs[i];
            z[4 + i] = e4.regs[i];
        }
        let mut s = unsafe { shared_array::<u16, 512>() };
        let p = unsafe { s.as_mut_ptr().add(l * 16) };
        let q = unsafe { s.as_ptr().add(l * 16) };
        let a1 = unsafe { ldmatrix_x1(q) };
        let a2 = unsafe { ldmatrix_x2(q) };
        let a4 = unsafe { ldmatrix_x4(q) };
        let b1 = unsafe { ldmatrix_x1_trans(q) };
        let b2 = unsafe { ldmatrix_x2_trans(q) };
        let b4 = unsafe { ldmatrix_x4_trans(q) };
        w[0] = a1[0] + a2[1] + a4[3] + b1[0] + b2[1] + b4[3];
        unsafe {
            stmatrix_x1(p, a1);
            stmatrix_x2(p, a2);
            stmatrix_x4(p, a4);
            stmatrix_x4_trans(p, b4);
            stmatrix_x2_trans(p, b2);
        }
    }
}

fn bits16<T: Copy>(v: &[T], f: impl Fn(T) -> u16) -> Vec<u16> {
    v.iter().map(|x| f(*x)).collect()
}

/// The kernel `run` on the host (a warp of host threads) and on the CPU backend, D's bits.
fn host_and_cpu(run: &(dyn Fn(&mut [u32]) + Sync), launch: impl FnOnce() -> Vec<u32>) -> (Vec<u32>, Vec<u32>) {
    let mut d = vec![0u32; 128];
    let out = Disjoint::new(&mut d);
    // SAFETY: each (row, column) of D belongs to one lane.
    host::run([1, 1, 1], [32, 1, 1], 0, || run(unsafe { out.get() }));
    (d, launch())
}

#[test]
fn kernel_ldmatrix_mma_16bit_runs_on_the_cpu_backend_as_on_the_host() {
    use ptx_runtime::{DeviceBuffer, LaunchConfig};
    crate::tools::assemble("mma_gemm_f16", k::gemm_f16::PTX);
    crate::tools::assemble("mma_gemm_bf16", k::gemm_bf16::PTX);
    let stream = crate::body_exec::cpu_stream();
    let f32s = |d: &mut [u32]| unsafe { core::slice::from_raw_parts_mut(d.as_mut_ptr() as *mut f32, d.len()) };
    for seed in [61, 67] {
        let mut rng = Rng(seed);
        let a: Vec<f16> = (0..256).map(|_| f16::from_f32(rng.float())).collect();
        let b: Vec<f16> = (0..128).map(|_| f16::from_f32(rng.float())).collect();
        let c: Vec<f32> = (0..128).map(|_| rng.float() * 4.0).collect();
        let (host_d, cpu_d) = host_and_cpu(&|d| k::gemm_f16(&a, &b, &c, f32s(d)), || {
            let (da, db, dc) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
            let mut dd = DeviceBuffer::<f32>::zeroed(&stream, 128).unwrap();
            k::gemm_f16::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &dc, &mut dd).unwrap();
            dd.to_vec().unwrap().iter().map(|x| x.to_bits()).collect()
        });
        let want = product(16, |i, k| a[i * 16 + k].to_f64(), |k, j| b[k * 8 + j].to_f64(), &c);
        assert_eq!(host_d, want, "f16 host run");
        assert_eq!(cpu_d, want, "f16 CPU backend");
        assert_eq!(cpu_backend("mma_f16", &bits16(&a, f16::to_bits), &bits16(&b, f16::to_bits), &c)[0], want, "nvcc's kernel");

        let a: Vec<bf16> = (0..256).map(|_| bf16::from_f32(rng.float() * 3.3)).collect();
        let b: Vec<bf16> = (0..128).map(|_| bf16::from_f32(rng.float() * 0.7)).collect();
        let (host_d, cpu_d) = host_and_cpu(&|d| k::gemm_bf16(&a, &b, &c, f32s(d)), || {
            let (da, db, dc) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
            let mut dd = DeviceBuffer::<f32>::zeroed(&stream, 128).unwrap();
            k::gemm_bf16::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &dc, &mut dd).unwrap();
            dd.to_vec().unwrap().iter().map(|x| x.to_bits()).collect()
        });
        let want = product(16, |i, k| a[i * 16 + k].to_f64(), |k, j| b[k * 8 + j].to_f64(), &c);
        assert_eq!(host_d, want, "bf16 host run");
        assert_eq!(cpu_d, want, "bf16 CPU backend");
    }
}

#[test]
fn kernel_mma_tf32_and_8bit_run_on_the_cpu_backend_as_on_the_host() {
    use ptx_runtime::{DeviceBuffer, LaunchConfig};
    crate::tools::assemble("mma_tf32", k::mma_tf32::PTX);
    crate::tools::assemble("mma_8bit", k::mma_8bit::PTX);
    let stream = crate::body_exec::cpu_stream();
    let mut rng = Rng(71);
    // tf32 inputs with low mantissa bits set: the hardware ignores them.
    let a: Vec<u32> = (0..16 * 8).map(|_| rng.float().to_bits() | (rng.next() as u32 & 0x1fff)).collect();
    let b: Vec<u32> = (0..8 * 8).map(|_| rng.float().to_bits() | (rng.next() as u32 & 0x1fff)).collect();
    let c: Vec<f32> = (0..128).map(|_| rng.float()).collect();
    let f32s = |d: &mut [u32]| unsafe { core::slice::from_raw_parts_mut(d.as_mut_ptr() as *mut f32, d.len()) };
    let (host_d, cpu_d) = host_and_cpu(&|d| k::mma_tf32(&a, &b, &c, f32s(d)), || {
        let (da, db, dc) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
        let mut dd = DeviceBuffer::<f32>::zeroed(&stream, 128).unwrap();
        k::mma_tf32::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &dc, &mut dd).unwrap();
        dd.to_vec().unwrap().iter().map(|x| x.to_bits()).collect()
    });
    let tf = |x: u32| f32::from_bits(x & 0xffff_e000) as f64;
    let want = product(8, |i, k| tf(a[i * 8 + k]), |k, j| tf(b[k * 8 + j]), &c);
    assert_eq!(host_d, want, "tf32 host run");
    assert_eq!(cpu_d, want, "tf32 CPU backend");

    let a: Vec<u8> = (0..16 * 32).map(|_| rng.next() as u8).collect();
    let b: Vec<u8> = (0..32 * 8).map(|_| rng.next() as u8).collect();
    let c: Vec<i32> = (0..128).map(|i| if i % 3 == 0 { i32::MAX - 5 } else { rng.next() as i32 >> 4 }).collect();
    let i32s = |d: &mut [u32]| unsafe { core::slice::from_raw_parts_mut(d.as_mut_ptr() as *mut i32, d.len()) };
    for form in 0..4u32 {
        let (host_d, cpu_d) = host_and_cpu(&|d| k::mma_8bit(&a, &b, &c, i32s(d), form), || {
            let (da, db, dc) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
            let mut dd = DeviceBuffer::<i32>::zeroed(&stream, 128).unwrap();
            k::mma_8bit::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &dc, &mut dd, form).unwrap();
            dd.to_vec().unwrap().iter().map(|x| *x as u32).collect()
        });
        let (sa, sb) = (form != 1, form == 0 || form == 3);
        let val = |x: u8, signed: bool| if signed { x as i8 as i64 } else { x as i64 };
        let want: Vec<u32> = (0..128)
            .map(|e| {
                let (i, j) = (e / 8, e % 8);
                let s = c[e] as i64 + (0..32).map(|k| val(a[i * 32 + k], sa) * val(b[k * 8 + j], sb)).sum::<i64>();
                (if form == 3 { s.clamp(i32::MIN as i64, i32::MAX as i64) as i32 } else { s as i32 }) as u32
            })
            .collect();
        assert_eq!(host_d, want, "form {form}: host run");
        assert_eq!(cpu_d, want, "form {form}: CPU backend");
    }
}

/// Lane `lane`'s register `i` of `ldmatrix` (or `.trans`) over matrices stored as rows
/// `8i..8i+8` of a 32 × 8 row-major `m` (the ISA's figure).
fn ld_want(m: &[u16], lane: usize, i: usize, trans: bool) -> u32 {
    let (g, t) = (lane / 4, lane % 4);
    let at = |r: usize, c: usize| m[(8 * i + r) * 8 + c] as u32;
    if trans {
        at(2 * t, g) | at(2 * t + 1, g) << 16
    } else {
        at(g, 2 * t) | at(g, 2 * t + 1) << 16
    }
}

#[test]
fn kernel_ldmatrix_and_stmatrix_follow_the_isa_figure() {
    use ptx_runtime::{DeviceBuffer, LaunchConfig};
    crate::tools::assemble("mma_ldmatrix_all", k::ldmatrix_all::PTX);
    crate::tools::assemble("mma_stmatrix_all", k::stmatrix_all::PTX);
    let stream = crate::body_exec::cpu_stream();
    let mut rng = Rng(73);
    let m: Vec<u16> = (0..32 * 8).map(|_| rng.next() as u16).collect();
    let mut host_r = vec![0u32; 6 * 128];
    let out = Disjoint::new(&mut host_r);
    // SAFETY: each lane writes its own registers.
    host::run([1, 1, 1], [32, 1, 1], 0, || k::ldmatrix_all(&m, unsafe { out.get() }));
    let dm = DeviceBuffer::from_slice(&stream, &m).unwrap();
    let mut dr = DeviceBuffer::<u32>::zeroed(&stream, 6 * 128).unwrap();
    k::ldmatrix_all::launch(&stream, LaunchConfig::new(1, 32), &dm, &mut dr).unwrap();
    let mut want = vec![0u32; 6 * 128];
    for (form, (n, trans)) in [(1, false), (2, false), (4, false), (1, true), (2, true), (4, true)].into_iter().enumerate() {
        for lane in 0..32 {
            for i in 0..n {
                want[(form * 32 + lane) * 4 + i] = ld_want(&m, lane, i, trans);
            }
        }
    }
    assert_eq!(host_r, want, "host run");
    assert_eq!(dr.to_vec().unwrap(), want, "CPU backend");

    // stmatrix puts back what ldmatrix of the same form reads.
    let regs: Vec<u32> = (0..128).map(|_| rng.next() as u32).collect();
    let mut host_m = vec![0u16; 5 * 256];
    let out = Disjoint::new(&mut host_m);
    // SAFETY: each lane writes its own elements.
    host::run([1, 1, 1], [32, 1, 1], 0, || k::stmatrix_all(&regs, unsafe { out.get() }));
    let dregs = DeviceBuffer::from_slice(&stream, &regs).unwrap();
    let mut dmo = DeviceBuffer::<u16>::zeroed(&stream, 5 * 256).unwrap();
    k::stmatrix_all::launch(&stream, LaunchConfig::new(1, 32), &dregs, &mut dmo).unwrap();
    let cpu_m = dmo.to_vec().unwrap();
    for (f, (n, trans)) in [(1, false), (2, false), (4, false), (4, true), (2, true)].into_iter().enumerate() {
        let block = &host_m[f * 256..f * 256 + 256];
        for lane in 0..32 {
            for i in 0..4 {
                let want = if i < n { regs[lane * 4 + i] } else { 0 };
                assert_eq!(ld_want(block, lane, i, trans), want, "stmatrix form {f}, lane {lane}, register {i}");
            }
        }
        assert_eq!(&cpu_m[f * 256..f * 256 + 256], block, "stmatrix form {f}: CPU backend vs host");
    }
}

/// The `mma`/`ldmatrix`/`stmatrix` instructions of `ptx`, registers reduced to their kind
/// (`%r7` to `%r`), whitespace dropped after the opcode; comments dropped.
fn mma_lines(ptx: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in ptx.lines() {
        let s = line.split("//").next().unwrap_or("").trim();
        if !(s.starts_with("mma.") || s.starts_with("ldmatrix.") || s.starts_with("stmatrix.")) {
            continue;
        }
        let (op, rest) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
        let mut o = format!("{op} ");
        let mut chars = rest.chars().filter(|c| !c.is_whitespace()).peekable();
        while let Some(c) = chars.next() {
            o.push(c);
            if c == '%' {
                while chars.peek().is_some_and(|d| d.is_ascii_alphabetic()) {
                    o.push(chars.next().unwrap());
                }
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
            }
        }
        out.push(o);
    }
    out
}

#[test]
fn mma_ldmatrix_stmatrix_instructions_match_nvcc() {
    crate::tools::assemble("mma_oracle", k::oracle::PTX);
    let ours = mma_lines(k::oracle::PTX);
    for ptx in nvcc_archs("mma_oracle", include_str!("../cuda/mma.cu"), &["sm_90"]) {
        assert_eq!(ours, mma_lines(&ptx), "ours (left) against nvcc's (right)\n{}", k::oracle::PTX);
    }
    // What was compared, spelled out.
    assert_eq!(ours.len(), 18);
    assert_eq!(ours[0], "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f,%f,%f,%f},{%r,%r,%r,%r},{%r,%r},{%f,%f,%f,%f};");
    assert_eq!(ours[9], "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r,%r,%r,%r},[%r];");
    assert_eq!(ours[17], "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r],{%r,%r};");
}
