//! The WMMA-style tile API (`ptx_runtime::device::wmma`): `#[device_fn]`s over the `mma`
//! fragments, called from kernels. One warp computes `D = A·B + C` for a 16 × 32 by 32 × 16
//! product (two k tiles, so the accumulator carries from one `mma_sync` to the next), with
//! leading dimensions wider than the tiles, loading from global memory and, in a second kernel,
//! from shared memory through `ldmatrix`. The CPU backend's run must equal the host run of the
//! same body and the plain product (each k tile's sum from C rounded once to f32, as the CPU
//! backend's `mma.sync` does; docs/tensor-cores.md), bit for bit. Both modules go through ptxas
//! (sm_80, sm_90).

use ptx_runtime::device::host::{self, Disjoint};
use ptx_runtime::half::f16;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

/// Leading dimensions: A is 16 × 32 in rows of 40, B 32 × 16 in rows of 24, C and D 16 × 16 in
/// rows of 20.
const LDA: usize = 40;
const LDB: usize = 24;
const LDC: usize = 20;

mod k {
    use super::{LDA, LDB, LDC};
    use ptx_runtime::device::*;
    use ptx_runtime::half::f16;
    use ptx_runtime::kernel;

    #[kernel(sm = 80)]
    pub fn tiles_global(a: &[f16], b: &[f16], c: &[f32], d: &mut [f32]) {
        let mut acc = unsafe { wmma::load_matrix_c(c.as_ptr(), LDC) };
        for kt in 0..2 {
            let fa = unsafe { wmma::load_matrix_a(a.as_ptr().add(16 * kt), LDA) };
            let fb = unsafe { wmma::load_matrix_b(b.as_ptr().add(16 * kt * LDB), LDB) };
            acc = wmma::mma_sync(fa, fb, acc);
        }
        unsafe { wmma::store_matrix_sync(d.as_mut_ptr(), acc, LDC) };
    }

    /// The same with A and B staged in shared memory (rows of 40 and 24 halves: 16-byte
    /// aligned) and loaded by `ldmatrix`; C starts at zero and is added at the end.
    #[kernel(sm = 80)]
    pub fn tiles_shared(a: &[f16], b: &[f16], c: &[f32], d: &mut [f32]) {
        let l = lane_id() as usize;
        let mut s = unsafe { shared_array::<f16, 1408>() };
        for j in 0..20 {
            s[j * 32 + l] = a[j * 32 + l];
        }
        for j in 0..24 {
            s[640 + j * 32 + l] = b[j * 32 + l];
        }
        sync_warp(u32::MAX);
        let mut acc = wmma::fill_fragment(0.0);
        for kt in 0..2 {
            let fa = unsafe { wmma::load_matrix_a_shared(s.as_ptr().add(16 * kt), LDA) };
            let fb = unsafe { wmma::load_matrix_b_shared(s.as_ptr().add(640 + 16 * kt * LDB), LDB) };
            acc = wmma::mma_sync(fa, fb, acc);
        }
        let lane = lane_id();
        for h in 0..2 {
            for i in 0..4 {
                let (row, col) = mma::FragmentC::<f32>::position(lane, i);
                d[row * LDC + 8 * h + col] = acc[h].regs[i] + c[row * LDC + 8 * h + col];
            }
        }
    }
}

/// SplitMix64 floats in [-4, 4) on a grid of 1/512 (exact in f16).
fn inputs(seed: u64) -> (Vec<f16>, Vec<f16>, Vec<f32>) {
    let mut s = seed;
    let mut f = || ((crate::rng::splitmix64(&mut s) % 4096) as f32 - 2048.0) / 512.0;
    let a = (0..16 * LDA).map(|_| f16::from_f32(f())).collect();
    let b = (0..32 * LDB).map(|_| f16::from_f32(f())).collect();
    let c = (0..16 * LDC).map(|_| f() * 4.0).collect();
    (a, b, c)
}

/// `start + Σ_k a·b` over each 16-wide k tile in increasing k, in f64, rounded to f32 after
/// each tile (one `mma.sync` each).
fn reference(a: &[f16], b: &[f16], start: impl Fn(usize, usize) -> f32) -> Vec<u32> {
    let mut d = vec![0u32; 16 * LDC];
    for i in 0..16 {
        for j in 0..16 {
            let mut acc = start(i, j);
            for kt in 0..2 {
                let s = (16 * kt..16 * kt + 16).fold(acc as f64, |s, k| s + a[i * LDA + k].to_f64() * b[k * LDB + j].to_f64());
                acc = s as f32;
            }
            d[i * LDC + j] = acc.to_bits();
        }
    }
    d
}

type Body = fn(&[f16], &[f16], &[f32], &mut [f32]);

fn host_run(body: Body, a: &[f16], b: &[f16], c: &[f32]) -> Vec<u32> {
    let mut d = vec![0f32; 16 * LDC];
    let out = Disjoint::new(&mut d);
    // SAFETY: each element of D belongs to one lane.
    host::run([1, 1, 1], [32, 1, 1], 0, || body(a, b, c, unsafe { out.get() }));
    d.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn wmma_tiles_from_global_memory_match_the_host_and_the_product() {
    crate::tools::assemble("wmma_tiles_global", k::tiles_global::PTX);
    let stream = crate::body_exec::cpu_stream();
    for seed in [5, 6] {
        let (a, b, c) = inputs(seed);
        let want = reference(&a, &b, |i, j| c[i * LDC + j]);
        let host = host_run(k::tiles_global, &a, &b, &c);
        let (da, db, dc) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
        let mut dd = DeviceBuffer::<f32>::zeroed(&stream, 16 * LDC).unwrap();
        k::tiles_global::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &dc, &mut dd).unwrap();
        let cpu: Vec<u32> = dd.to_vec().unwrap().iter().map(|x| x.to_bits()).collect();
        // Columns 16..20 of each row are never written.
        let strip = |v: &[u32]| (0..16).flat_map(|i| v[i * LDC..i * LDC + 16].to_vec()).collect::<Vec<u32>>();
        assert_eq!(strip(&host), strip(&want), "host run");
        assert_eq!(strip(&cpu), strip(&want), "CPU backend");
    }
}

#[test]
fn wmma_tiles_from_shared_memory_match_the_host_and_the_product() {
    crate::tools::assemble("wmma_tiles_shared", k::tiles_shared::PTX);
    assert!(k::tiles_shared::PTX.contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
    let stream = crate::body_exec::cpu_stream();
    let (a, b, c) = inputs(9);
    let want: Vec<u32> = reference(&a, &b, |_, _| 0.0).iter().enumerate().map(|(e, x)| (f32::from_bits(*x) + c[e]).to_bits()).collect();
    let host = host_run(k::tiles_shared, &a, &b, &c);
    let (da, db, dc) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
    let mut dd = DeviceBuffer::<f32>::zeroed(&stream, 16 * LDC).unwrap();
    k::tiles_shared::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &dc, &mut dd).unwrap();
    let cpu: Vec<u32> = dd.to_vec().unwrap().iter().map(|x| x.to_bits()).collect();
    let strip = |v: &[u32]| (0..16).flat_map(|i| v[i * LDC..i * LDC + 16].to_vec()).collect::<Vec<u32>>();
    assert_eq!(strip(&host), strip(&want), "host run");
    assert_eq!(strip(&cpu), strip(&want), "CPU backend");
}
