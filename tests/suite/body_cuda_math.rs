//! `f32::exp` and `f32::exp2` in device code, inline as nvcc emits CUDA's `expf` / `exp2f`
//! (`ptx-macros/src/lower/cuda_math.rs`):
//!
//! - the emitted PTX is the sequence nvcc writes for `expf` (the same constants and
//!   instructions, compared with nvcc's own PTX of the same CUDA C), assembled by ptxas;
//! - its results on the CPU backend are, bit for bit, those of a host model of that sequence
//!   (below), and within CUDA's 2 ulp of `f64`'s `exp` over the whole range, hard cases
//!   included (subnormal results, the overflow and underflow edges, ±0, NaN, ±∞);
//! - the model bounds the error the hardware's `ex2.approx` adds (the CPU backend computes
//!   `2^x` rounded to nearest, one result the PTX ISA allows, not the hardware's bits);
//! - the host run of the same body (`std`'s `exp`) agrees within 2 ulp.

use crate::tools::{assemble, nvcc_ptx_with};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn exp_both(x: &[f32], e: &mut [f32], e2: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        e[i] = x[i].exp();
        e2[i] = f32::exp2(x[i]);
    }
}

#[kernel]
pub fn exp_accurate(x: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] = math::exp_f32(x[i]);
    }
}

/// `2^x` as the CPU backend executes `ex2.approx.ftz.f32`: rounded to nearest, subnormal
/// operands and results flushed to zero.
fn ex2_ftz(x: f32) -> f32 {
    let x = if x.is_subnormal() { 0.0 } else { x };
    let r = (x as f64).exp2() as f32;
    if r.is_subnormal() { 0.0 } else { r }
}

/// nvcc's `expf`, step by step as `lower/cuda_math.rs` emits it, with `ex2` given.
fn model_expf(x: f32, ex2: impl Fn(f32) -> f32) -> f32 {
    let t = x.mul_add(f32::from_bits(0x3BBB_989D), 0.5);
    // cvt.sat.f32.f32: clamped to [0, 1], NaN to 0.
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    // fma.rm: 252·t + 12582913 is exact in f64 and in [2^23, 2^24), where f32's ulp is 1.
    let j = (t as f64 * 252.0 + 12_582_913.0).floor() as f32;
    let n = j + f32::from_bits(0xCB40_007F);
    let hi = x.mul_add(f32::from_bits(0x3FB8_AA3B), -n);
    let f = x.mul_add(f32::from_bits(0x32A5_7060), hi);
    let scale = f32::from_bits(j.to_bits() << 23);
    ex2(f) * scale
}

/// `2^k` as an `f64`, subnormal powers included.
fn pow2(k: i32) -> f64 {
    if k >= -1022 { f64::from_bits(((k + 1023) as u64) << 52) } else { f64::from_bits(1u64 << (k + 1074)) }
}

/// Distance of `got` from the exact `want` in units in the last place of an `f32` near `want`
/// (the subnormals' ulp below 2^-126); 0 for equal values, both NaN, or an infinity where
/// `want` rounds to it.
pub fn ulps(got: f32, want: f64) -> f64 {
    if got.is_nan() && want.is_nan() || got as f64 == want || got.is_infinite() && (want as f32) == got {
        return 0.0;
    }
    if got.is_nan() || want.is_nan() || got.is_infinite() || want.is_infinite() {
        return f64::INFINITY;
    }
    let e = if want == 0.0 { -126 } else { want.abs().log2().floor() as i32 };
    (got as f64 - want).abs() / pow2(e.max(-126) - 23)
}

/// Inputs over `expf`'s whole range (results from 0 through the subnormals to +∞), evenly and
/// near the edges, and the special values.
fn inputs() -> Vec<f32> {
    let mut v = vec![0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0, -1.0, f32::MIN_POSITIVE, 1e-45, -1e-45, f32::MAX, f32::MIN];
    // ln(f32::MAX) = 88.7228..., ln(2^-126) = -87.336..., ln(2^-149) = -103.28..., the
    // clamps of n at x·log₂e = ±128, and where `ex2`'s result would be subnormal (−175).
    for edge in [88.72283f32, -87.33654, -103.27893, -103.972, 88.0, 87.5, -88.0, -126.0 / std::f32::consts::LOG2_E, -175.0, -176.0, -200.0, 100.0] {
        let b = edge.to_bits();
        for d in 0..64u32 {
            v.push(f32::from_bits(b.wrapping_add(d)));
            v.push(f32::from_bits(b.wrapping_sub(d)));
        }
    }
    let mut s = 0x2545_f491_4f6c_dd1du64;
    for i in 0..60_000 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let u = (s >> 40) as f32 / (1u64 << 24) as f32;
        v.push(if i % 3 == 0 {
            // Small magnitudes, log-uniform, either sign.
            let m = (u * 60.0 - 50.0).exp2();
            if s & 1 == 0 { m } else { -m }
        } else {
            -110.0 + 200.0 * u
        });
    }
    v
}

/// CUDA's documented bound for `expf` and `exp2f` (CUDA C++ Programming Guide, "Mathematical
/// Functions"): 2 ulp.
const CUDA_ULPS: f64 = 2.0;

#[test]
fn exp_is_nvccs_sequence_in_ptx() {
    let ptx = exp_both::PTX;
    assemble("cuda_math_exp", ptx);
    // The one function besides the kernel is the failed bounds check's.
    assert!(ptx.lines().filter(|l| l.contains(".func")).all(|l| l.contains("__assertfail")), "exp and exp2 are inline:\n{ptx}");
    assert!(!ptx.contains(".f64"), "no f64 arithmetic:\n{ptx}");
    assert!(ptx.contains("ex2.approx.ftz.f32"), "{ptx}");
    assert!(ptx.contains("ex2.approx.f32"), "exp2 is exp2f's one instruction:\n{ptx}");
    let constants = ["0f3BBB989D", "0f437C0000", "0f4B400001", "0fCB40007F", "0f3FB8AA3B", "0f32A57060"];
    for k in constants {
        assert!(ptx.contains(k), "constant {k} of expf missing:\n{ptx}");
    }
    let opcodes = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with(';') && !l.starts_with('.') && (l.contains(".f32") || l.starts_with("shl.b32")) && !l.starts_with("ld.") && !l.starts_with("st."))
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .filter(|o| o != "mov.f32" && o != "mov.b32")
            .collect();
        v.sort();
        v
    };
    if let Some(nvcc) = nvcc_ptx_with("cuda_math_expf", "extern \"C\" __global__ void k(float* y, const float* x) { y[threadIdx.x] = expf(x[threadIdx.x]); }", &["-O3", "-fmad=false"]) {
        for k in constants {
            assert!(nvcc.contains(k), "nvcc's expf no longer uses {k}:\n{nvcc}");
        }
        // Ours holds exp2's `ex2.approx.f32` besides.
        let mut ours = opcodes(ptx);
        let at = ours.iter().position(|o| o == "ex2.approx.f32").expect("exp2's ex2");
        ours.remove(at);
        assert_eq!(ours, opcodes(&nvcc), "expf's instructions differ from nvcc's");
    }
}

#[test]
fn exp_on_the_cpu_backend_is_the_model_and_within_cuda_bounds() {
    let xs = inputs();
    let stream = crate::body_exec::cpu_stream();
    let x = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    let mut e = DeviceBuffer::<f32>::zeroed(&stream, xs.len()).unwrap();
    let mut e2 = DeviceBuffer::<f32>::zeroed(&stream, xs.len()).unwrap();
    exp_both::launch(&stream, LaunchConfig::new(xs.len().div_ceil(128) as u32, 128), &x, &mut e, &mut e2).unwrap();
    let (e, e2) = (e.to_vec().unwrap(), e2.to_vec().unwrap());
    let (mut worst, mut worst2, mut worst_host) = ((0.0f64, 0.0f32), (0.0f64, 0.0f32), (0.0f64, 0.0f32));
    for (i, &v) in xs.iter().enumerate() {
        let m = model_expf(v, ex2_ftz);
        assert!(e[i].to_bits() == m.to_bits() || e[i].is_nan() && m.is_nan(), "exp({v:e}): device {:e}, model {m:e}", e[i]);
        let err = ulps(e[i], (v as f64).exp());
        if err > worst.0 {
            worst = (err, v);
        }
        let err2 = ulps(e2[i], (v as f64).exp2());
        if err2 > worst2.0 {
            worst2 = (err2, v);
        }
        // The host run of the same body: `std`'s exp (within 1 ulp itself).
        let h = ulps(e[i], v.exp() as f64);
        if h > worst_host.0 {
            worst_host = (h, v);
        }
    }
    eprintln!("exp: {:.3} ulp at {:e}; exp2: {:.3} at {:e}; device against host: {:.3} at {:e}", worst.0, worst.1, worst2.0, worst2.1, worst_host.0, worst_host.1);
    assert!(worst.0 <= CUDA_ULPS, "exp: {} ulp at {:e}", worst.0, worst.1);
    assert!(worst2.0 <= CUDA_ULPS, "exp2: {} ulp at {:e}", worst2.0, worst2.1);
    assert!(worst_host.0 <= CUDA_ULPS + 1.0, "exp against the host: {} ulp at {:e}", worst_host.0, worst_host.1);
    // The special values, exactly.
    let at = |v: f32| e[xs.iter().position(|x| x.to_bits() == v.to_bits()).unwrap()];
    assert_eq!((at(0.0), at(-0.0), at(f32::INFINITY), at(f32::NEG_INFINITY)), (1.0, 1.0, f32::INFINITY, 0.0));
    assert!(at(f32::NAN).is_nan());
    assert_eq!((at(f32::MAX), at(f32::MIN), at(100.0), at(-200.0)), (f32::INFINITY, 0.0, f32::INFINITY, 0.0));
}

#[test]
fn exp_stays_within_cudas_bound_with_the_hardwares_ex2_error() {
    // ex2.approx's result one float up or down from the correctly rounded 2^f: each ulp of
    // error in the hardware's `ex2` adds at most one to the sequence's.
    let xs = inputs();
    let mut worst = [0.0f64; 3];
    for &v in &xs {
        let want = (v as f64).exp();
        for (k, d) in [0.0f64, 1.0, -1.0].iter().enumerate() {
            let got = model_expf(v, |f| {
                let r = ex2_ftz(f);
                if *d == 0.0 || r == 0.0 || !r.is_finite() {
                    r
                } else {
                    f32::from_bits((r.to_bits() as i64 + *d as i64) as u32)
                }
            });
            worst[k] = worst[k].max(ulps(got, want));
        }
    }
    eprintln!("exp with ex2 exact: {:.3} ulp; off by +1 ulp: {:.3}; by -1 ulp: {:.3}", worst[0], worst[1], worst[2]);
    assert!(worst[0] <= 1.5, "{worst:?}");
    assert!(worst[1] <= 2.5 && worst[2] <= 2.5, "{worst:?}");
}

#[test]
fn accurate_exp_stays_callable_by_name() {
    let ptx = exp_accurate::PTX;
    assemble("cuda_math_exp_accurate", ptx);
    assert!(ptx.contains("call") && !ptx.contains("ex2.approx"), "math::exp_f32 is the 1-ulp library function:\n{ptx}");
    let xs: Vec<f32> = inputs().into_iter().step_by(7).collect();
    let stream = crate::body_exec::cpu_stream();
    let mut x = DeviceBuffer::from_slice(&stream, &xs).unwrap();
    exp_accurate::launch(&stream, LaunchConfig::new(xs.len().div_ceil(128) as u32, 128), &mut x).unwrap();
    for (v, d) in xs.iter().zip(x.to_vec().unwrap()) {
        let h = math::exp_f32(*v);
        assert!(d.to_bits() == h.to_bits() || d.is_nan() && h.is_nan(), "exp_f32({v:e}): device {d:e}, host {h:e}");
        assert!(ulps(d, (*v as f64).exp()) <= 1.0, "exp_f32({v:e}) = {d:e}");
    }
}
