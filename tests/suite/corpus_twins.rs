//! The CUDA C twins of corpus kernels (`benches/cuda/`), compiled by nvcc and run on the CPU
//! backend against the same host references as ours: the twin that bench-codegen and the GPU
//! benchmark compare a kernel with must compute what the kernel computes.

use crate::corpus::tensor_gemm::{inputs, reference, tensor_gemm, units, SHARED_BYTES, T, THREADS};
use crate::corpus::{assert_bits_eq, twin_source};
use crate::cpu_harness::{arg, nvcc_archs, Harness};
use ptx_runtime::{DeviceBuffer, LaunchConfig};

/// `benches/cuda/tensor_gemm.cu` (inline-asm `cp.async`, `ldmatrix`, `mma.sync`), nvcc's PTX for
/// sm_80 and sm_90, on two sizes: equal to the host reference (the CPU backend's `mma.sync`
/// rounding) and to our kernel's CPU-backend run, bit for bit.
#[test]
fn tensor_gemm_twin_runs_on_the_cpu_backend() {
    let src = twin_source("tensor_gemm.cu");
    let modules = nvcc_archs("tensor_gemm_twin", &src, &["sm_80", "sm_90"]);
    if modules.is_empty() {
        return;
    }
    let stream = crate::body_exec::cpu_stream();
    for n in [64usize, 96] {
        let (a, b) = inputs(n, 7 + n as u64);
        let want = reference(&a, &b, n);
        let (ua, ub) = (units(&a), units(&b));
        let g = (n / T) as u32;

        let (da, db) = (DeviceBuffer::from_slice(&stream, &ua).unwrap(), DeviceBuffer::from_slice(&stream, &ub).unwrap());
        let mut dc = DeviceBuffer::<f32>::zeroed(&stream, n * n).unwrap();
        tensor_gemm::launch(&stream, LaunchConfig::new((g, g), THREADS).with_shared_bytes(SHARED_BYTES), &da, &db, &mut dc, n as u32).unwrap();
        let ours = dc.to_vec().unwrap();
        assert_bits_eq(&format!("ours, n = {n}"), &ours, &want);

        for (ptx, arch) in modules.iter().zip(["sm_80", "sm_90"]) {
            let mut k = Harness::new(ptx);
            let (ta, tb, tc) = (k.upload(&ua), k.upload(&ub), k.zeroed::<f32>(n * n));
            let params = [ta.ptr(), arg(ta.len as u64), tb.ptr(), arg(tb.len as u64), tc.ptr(), arg(tc.len as u64), arg(n as u32)];
            k.launch("tensor_gemm", [g, g, 1], [THREADS, 1, 1], SHARED_BYTES, &params).unwrap_or_else(|e| panic!("the twin ({arch}, n = {n}): {e}"));
            assert_bits_eq(&format!("the twin ({arch}), n = {n}"), &k.download::<f32>(tc), &ours);
        }
    }
}
