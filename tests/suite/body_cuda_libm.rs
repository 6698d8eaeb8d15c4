//! `f32` methods in device code as CUDA's functions compiled by nvcc
//! (`ptx_runtime::device::math::cuda`: `x.ln()` is `logf`, `x.sin()` is `sinf`, ...):
//!
//! - a kernel calling all of them holds no call and no `.func` (each is inlined, as nvcc inlines
//!   CUDA's), and ptxas assembles it;
//! - on the CPU backend its results are, bit for bit, those of nvcc's PTX for the same CUDA C
//!   run on the CPU backend, over random bit patterns, moderate values and the special values
//!   (up to the known differences of older releases, `nvcc_releases::LIBM_DRIFT`);
//! - those results are within CUDA's documented bound of `f64`'s function (CUDA C++
//!   Programming Guide, "Mathematical Functions": ulps from the correctly rounded result, so
//!   half an ulp more from the exact one);
//! - the host run of a function by name (`math::cuda::logf(x)`) gives the device's bits, where
//!   the function uses no `.approx` instruction.

use crate::body_cuda_math::ulps;
use crate::tools::{assemble, nvcc_ptx_with};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// One function: the method's name, CUDA's call in the twin (operands `v`, `w`), CUDA's
/// bound in ulps, the `f64` reference, the function by name on the host (`None`: it uses an
/// `.approx` instruction, whose host definition is `std`'s).
struct Case {
    method: &'static str,
    cuda: &'static str,
    bound: f64,
    reference: fn(f64, f64) -> f64,
    host: Option<fn(f32, f32) -> f32>,
}

const CASES: &[Case] = &[
    Case { method: "ln", cuda: "logf(v)", bound: 1.0, reference: |v, _| v.ln(), host: Some(|v, _| math::cuda::logf(v)) },
    Case { method: "log2", cuda: "log2f(v)", bound: 1.0, reference: |v, _| v.log2(), host: Some(|v, _| math::cuda::log2f(v)) },
    Case { method: "log10", cuda: "log10f(v)", bound: 2.0, reference: |v, _| v.log10(), host: Some(|v, _| math::cuda::log10f(v)) },
    Case { method: "ln_1p", cuda: "log1pf(v)", bound: 1.0, reference: |v, _| v.ln_1p(), host: Some(|v, _| math::cuda::log1pf(v)) },
    Case { method: "exp_m1", cuda: "expm1f(v)", bound: 1.0, reference: |v, _| v.exp_m1(), host: Some(|v, _| math::cuda::expm1f(v)) },
    Case { method: "sin", cuda: "sinf(v)", bound: 2.0, reference: |v, _| v.sin(), host: Some(|v, _| math::cuda::sinf(v)) },
    Case { method: "cos", cuda: "cosf(v)", bound: 2.0, reference: |v, _| v.cos(), host: Some(|v, _| math::cuda::cosf(v)) },
    Case { method: "tan", cuda: "tanf(v)", bound: 4.0, reference: |v, _| v.tan(), host: Some(|v, _| math::cuda::tanf(v)) },
    Case { method: "atan", cuda: "atanf(v)", bound: 2.0, reference: |v, _| v.atan(), host: Some(|v, _| math::cuda::atanf(v)) },
    Case { method: "atan2", cuda: "atan2f(v, w)", bound: 3.0, reference: f64::atan2, host: Some(math::cuda::atan2f) },
    Case { method: "asin", cuda: "asinf(v)", bound: 2.0, reference: |v, _| v.asin(), host: None },
    Case { method: "acos", cuda: "acosf(v)", bound: 2.0, reference: |v, _| v.acos(), host: None },
    Case { method: "sinh", cuda: "sinhf(v)", bound: 3.0, reference: |v, _| v.sinh(), host: None },
    Case { method: "cosh", cuda: "coshf(v)", bound: 2.0, reference: |v, _| v.cosh(), host: None },
    Case { method: "tanh", cuda: "tanhf(v)", bound: 2.0, reference: |v, _| v.tanh(), host: None },
    Case { method: "powf", cuda: "powf(v, w)", bound: 4.0, reference: f64::powf, host: Some(math::cuda::powf) },
    Case { method: "hypot", cuda: "hypotf(v, w)", bound: 3.0, reference: f64::hypot, host: Some(math::cuda::hypotf) },
    Case { method: "cbrt", cuda: "cbrtf(v)", bound: 1.0, reference: |v, _| v.cbrt(), host: None },
    Case { method: "asinh", cuda: "asinhf(v)", bound: 3.0, reference: |v, _| v.asinh(), host: None },
    Case { method: "acosh", cuda: "acoshf(v)", bound: 4.0, reference: |v, _| v.acosh(), host: None },
    Case { method: "atanh", cuda: "atanhf(v)", bound: 3.0, reference: |v, _| v.atanh(), host: Some(|v, _| math::cuda::atanhf(v)) },
];

/// Every case's method, in `CASES`' order.
#[kernel]
pub fn libm_methods(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() && i < y.len() {
        let (v, w) = (x[i], y[i]);
        let r = [v.ln(), v.log2(), v.log10(), v.ln_1p(), v.exp_m1(), v.sin(), v.cos(), v.tan(), v.atan(), v.atan2(w), v.asin(), v.acos(), v.sinh(), v.cosh(), v.tanh(), v.powf(w), v.hypot(w), v.cbrt(), v.asinh(), v.acosh(), v.atanh()];
        for k in 0..r.len() {
            out[i * r.len() + k] = r[k];
        }
    }
}

/// The CUDA C twin of `libm_methods`.
fn twin() -> String {
    let calls: Vec<&str> = CASES.iter().map(|c| c.cuda).collect();
    format!(
        "extern \"C\" __global__ void libm(const float* x, const float* y, float* out, unsigned n) {{\n  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {{\n    float v = x[i], w = y[i];\n    float r[{n}] = {{{calls}}};\n    for (int k = 0; k < {n}; k++) out[i * {n} + k] = r[k];\n  }}\n}}\n",
        n = CASES.len(),
        calls = calls.join(", ")
    )
}

/// Random bit patterns (every exponent, NaNs and subnormals among them), moderate values, and
/// the special values; the second operands are the same values in another order.
fn inputs() -> (Vec<f32>, Vec<f32>) {
    let mut x = vec![0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0, -1.0, 0.5, -0.5, 2.0, f32::MIN_POSITIVE, 1e-45, -1e-45, f32::MAX, f32::MIN, 1e-30, 3.0e5, 1.0e20];
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        s
    };
    for _ in 0..20_000 {
        x.push(f32::from_bits((next() >> 32) as u32));
    }
    for _ in 0..20_000 {
        let r = next();
        let u = (r >> 40) as f32 / (1u64 << 24) as f32;
        x.push((u * 40.0 - 20.0) * if r & 1 == 0 { 1.0 } else { 0.01 });
    }
    // Either side of ±1, where `acosh` and `atanh` start and end.
    for k in 0..2_000 {
        let d = k as f32 * 1.2e-7;
        x.extend([1.0 + d, 1.0 - d / 2.0, -1.0 + d / 2.0, -1.0 - d]);
    }
    let n = x.len();
    let y = (0..n).map(|i| x[(i * 7919 + 13) % n]).collect();
    (x, y)
}

/// `x.sin_cos()` is `sinf` and `cosf`, bit for bit, from one reduction.
#[kernel]
pub fn libm_sin_cos(x: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let (s, c) = x[i].sin_cos();
        out[2 * i] = s;
        out[2 * i + 1] = c;
    }
}

#[test]
fn sin_cos_is_sin_and_cos_from_one_reduction() {
    let ptx = libm_sin_cos::PTX;
    assemble("cuda_libm_sin_cos", ptx);
    // One Cody–Waite reduction: its first product by 2/π appears once.
    assert_eq!(ptx.matches("1059256707").count() + ptx.matches("0f3F22F983").count(), 1, "{ptx}");
    let (xs, _) = inputs();
    let stream = crate::body_exec::cpu_stream();
    let x = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(&stream, 2 * xs.len()).unwrap();
    libm_sin_cos::launch(&stream, LaunchConfig::new(xs.len().div_ceil(128) as u32, 128), &x, &mut out).unwrap();
    let got = out.to_vec().unwrap();
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
    for (i, &v) in xs.iter().enumerate() {
        let (s, c) = (math::cuda::sinf(v), math::cuda::cosf(v));
        assert!(same(got[2 * i], s) && same(got[2 * i + 1], c), "sin_cos({v:e}): {:e}, {:e}; sinf, cosf: {s:e}, {c:e}", got[2 * i], got[2 * i + 1]);
    }
}

#[test]
fn every_method_is_inline() {
    let ptx = libm_methods::PTX;
    assemble("cuda_libm_methods", ptx);
    assert!(!ptx.contains("call") && !ptx.lines().any(|l| l.contains(".func")), "the functions are inlined:\n{ptx}");
}

#[test]
fn methods_compute_nvccs_bits_within_cudas_bounds() {
    let (xs, ys) = inputs();
    let (n, k) = (xs.len(), CASES.len());
    let stream = crate::body_exec::cpu_stream();
    let (x, y) = (DeviceBuffer::from_slice(&stream, &xs).unwrap(), DeviceBuffer::from_slice(&stream, &ys).unwrap());
    let mut out = DeviceBuffer::<f32>::zeroed(&stream, n * k).unwrap();
    libm_methods::launch(&stream, LaunchConfig::new(n.div_ceil(128) as u32, 128), &x, &y, &mut out).unwrap();
    let ours = out.to_vec().unwrap();
    let twin_ptx = nvcc_ptx_with("cuda_libm_twin", &twin(), &["-O3", "-fmad=false"]);
    let theirs = twin_ptx.as_ref().map(|ptx| {
        let mut h = crate::cpu_harness::Harness::new(ptx);
        let (bx, by, bo) = (h.upload(&xs), h.upload(&ys), h.zeroed::<f32>(n * k));
        h.launch("libm", [n.div_ceil(128) as u32, 1, 1], [128, 1, 1], 0, &[bx.ptr(), by.ptr(), bo.ptr(), crate::cpu_harness::arg(n as u32)]).unwrap();
        h.download::<f32>(bo)
    });
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
    // Every function's differences from nvcc's, gathered before any assertion so that one run
    // on a machine with another nvcc release shows all of them.
    let mut unexplained = Vec::new();
    for (c, case) in CASES.iter().enumerate() {
        let (mut worst, mut differ) = ((0.0f64, 0.0f32), None);
        for i in 0..n {
            let (v, w, got) = (xs[i], ys[i], ours[i * k + c]);
            if let Some(theirs) = &theirs {
                let t = theirs[i * k + c];
                if !same(got, t) {
                    let (count, _) = differ.get_or_insert((0, format!("{}({v:e}, {w:e}): ours {got:e}, nvcc's {t:e}", case.method)));
                    *count += 1;
                }
            }
            if let Some(host) = case.host {
                let h = host(v, w);
                assert!(same(got, h), "{}({v:e}, {w:e}): device {got:e}, host {h:e}", case.method);
            }
            let err = ulps(got, (case.reference)(v as f64, w as f64));
            if err > worst.0 {
                worst = (err, v);
            }
        }
        eprintln!("{}: worst {:.3} ulp at {:e} (CUDA: {})", case.method, worst.0, worst.1, case.bound);
        if let (Some((count, first)), Some(ptx)) = (differ, &twin_ptx) {
            let known = crate::nvcc_releases::libm_drift(case.cuda, ptx);
            eprintln!("{}: {count} of {n} results differ from this nvcc's{}; the first: {first}", case.method, if known { ", a known difference of its release" } else { "" });
            if !known {
                unexplained.push(first);
            }
        }
        assert!(worst.0 <= case.bound + 0.5, "{}: {:.3} ulp at {:e}, CUDA's bound is {} ulp", case.method, worst.0, worst.1, case.bound);
    }
    assert!(unexplained.is_empty(), "results that differ from nvcc's:\n{}", unexplained.join("\n"));
}

