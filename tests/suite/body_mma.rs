//! The tensor-core device API (`ptx_runtime::device::mma`) run on the host: a warp of 32 host
//! threads (`host::run`) stages tiles in shared memory, loads fragments with `ldmatrix`,
//! multiplies with `mma_sync` and stores D by `FragmentC::position`. D must equal the plain
//! matrix product computed here (which knows nothing of fragments) and, bit for bit, the CPU
//! backend's result for nvcc's inline-asm kernel over the same inputs (`tests/cuda/mma.cu`).
//!
//! Not yet here (docs/tensor-cores.md, "Status"): the same bodies as `#[kernel]`s, since the
//! body compiler does not lower these functions yet.

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
