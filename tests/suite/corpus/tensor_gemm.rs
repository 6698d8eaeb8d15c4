//! Tensor-core GEMM (f16 in, f32 accumulated): `cp.async` staging, `ldmatrix`, `mma.sync`.
//! The kernel is `examples/tensor_gemm.rs`'s (one file, `tensor_gemm_kernel.rs`, included by
//! both); its CUDA C twin is `benches/cuda/tensor_gemm.cu`, run on the CPU backend by
//! `corpus_twins::tensor_gemm_twin_runs_on_the_cpu_backend`.

#[path = "tensor_gemm_kernel.rs"]
mod kernel;

pub use kernel::{tensor_gemm, units, SHARED_BYTES, T, THREADS};

use ptx_runtime::device::*;
use ptx_runtime::half::f16;
use ptx_runtime::{DeviceBuffer, LaunchConfig, Result, Stream};

pub const PTX: &[(&str, &str)] = &[("tensor_gemm", tensor_gemm::PTX)];

/// Two blocks by two, two 32-wide steps of k.
pub const N: usize = 64;

/// Random f16 matrices in [-1, 1).
pub fn inputs(n: usize, seed: u64) -> (Vec<f16>, Vec<f16>) {
    let mut r = super::Rng::new(seed);
    let mut m = |_| (0..n * n).map(|_| f16::from_f32(r.f32(-1.0, 1.0))).collect::<Vec<f16>>();
    (m(0), m(1))
}

/// The product as the kernel's `mma.sync`s round it, computed without fragments: element
/// (i, j) starts at 0 and, per 16-wide step of k, adds the step's 16 exact products to it in
/// increasing k in f64 and rounds once to f32 (the CPU backend's `mma.sync` arithmetic,
/// docs/tensor-cores.md).
pub fn reference(a: &[f16], b: &[f16], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0.0f32;
            for k0 in (0..n).step_by(16) {
                let mut sum = acc as f64;
                for k in k0..k0 + 16 {
                    sum += a[i * n + k].to_f64() * b[k * n + j].to_f64();
                }
                acc = sum as f32;
            }
            c[i * n + j] = acc;
        }
    }
    c
}

fn grid() -> [u32; 3] {
    let g = (N / T) as u32;
    [g, g, 1]
}

fn on_host() -> Vec<f32> {
    let (a, b) = inputs(N, 19);
    let (a, b) = (units(&a), units(&b));
    let mut c = vec![0.0; N * N];
    let out = host::Disjoint::new(&mut c);
    // SAFETY: each warp writes its own 16 × 16 quarter of its block's tile.
    host::run(grid(), [THREADS, 1, 1], SHARED_BYTES as usize, || tensor_gemm(&a, &b, unsafe { out.get() }, N as u32));
    c
}

pub fn check_host() {
    let (a, b) = inputs(N, 19);
    super::assert_bits_eq("tensor_gemm on the host", &on_host(), &reference(&a, &b, N));
}

pub fn check_device(stream: &Stream) -> Result<()> {
    let (a, b) = inputs(N, 19);
    let (da, db) = (DeviceBuffer::from_slice(stream, &units(&a))?, DeviceBuffer::from_slice(stream, &units(&b))?);
    let mut c = DeviceBuffer::<f32>::zeroed(stream, N * N)?;
    let config = LaunchConfig::new(super::dim(grid()), THREADS).with_shared_bytes(SHARED_BYTES);
    tensor_gemm::launch(stream, config, &da, &db, &mut c, N as u32)?;
    let got = c.to_vec()?;
    let want = reference(&a, &b, N);
    if stream.cuda_stream().is_none() {
        super::assert_bits_eq("tensor_gemm on the CPU backend", &got, &want);
    } else {
        // A GPU's tensor cores keep fewer bits in their partial sums and truncate
        // (docs/tensor-cores.md): within 2^-16 of the sum of the magnitudes of the products.
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let (row, col) = (i / N, i % N);
            let magnitude: f64 = (0..N).map(|k| (a[row * N + k].to_f64() * b[k * N + col].to_f64()).abs()).sum();
            assert!((*g as f64 - *w as f64).abs() <= magnitude / 65536.0, "tensor_gemm on the GPU [{i}]: {g} vs {w}");
        }
    }
    Ok(())
}
