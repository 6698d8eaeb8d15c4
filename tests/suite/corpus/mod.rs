//! The corpus: realistic kernels, each in its own file with an independent host reference.
//!
//! Every case offers
//! - `PTX`: the modules it produces (each assembled by ptxas for sm_75 and sm_90),
//! - `check_host()`: the kernel *body* run on the host over the grid (`device::host::run`)
//!   against an independent reference computation,
//! - `check_device(stream)`: the kernel launched on `stream`'s device (the CPU backend
//!   anywhere, a GPU where there is one), with results equal to the body run on the host —
//!   bit for bit, except where the case says why not.
//!
//! The CPU-backend tests iterate [`CASES`] the same way.

// The kernels spell out the language forms under test (a `loop` that breaks with a value at
// once, `x % 1`, index loops, casts to the same type...): the device compiler must handle what
// is written, so clippy's rewrites would test less.
#![allow(clippy::never_loop, clippy::modulo_one, clippy::erasing_op, clippy::identity_op, clippy::needless_range_loop, clippy::manual_is_multiple_of, clippy::unnecessary_cast, clippy::assign_op_pattern, clippy::too_many_arguments, clippy::needless_late_init, clippy::redundant_closure, clippy::manual_range_patterns, clippy::manual_div_ceil)]

use ptx_runtime::{Result, Stream};

pub mod bitonic;
pub mod classify;
pub mod conv1d;
pub mod dot;
pub mod dyn_reduce;
pub mod hash;
pub mod histogram;
pub mod inline_ptx;
pub mod interp;
pub mod layernorm;
pub mod layernorm_iter;
pub mod mandelbrot;
pub mod matmul;
pub mod nbody;
pub mod recursion;
pub mod runs;
pub mod saxpy;
pub mod scan;
pub mod shared_histogram;
pub mod softmax;
pub mod softmax_iter;
pub mod spheres;
pub mod gelu;
pub mod box_muller;
pub mod stencil;
pub mod struct_fn;
pub mod tensor_gemm;
pub mod transpose;
pub mod vadd;
pub mod vec4;
pub mod warp_reduce;
pub mod window_filter;

pub struct Case {
    pub name: &'static str,
    /// (kernel name, PTX module) of every kernel of the case.
    pub ptx: &'static [(&'static str, &'static str)],
    pub check_host: fn(),
    pub check_device: fn(&Stream) -> Result<()>,
}

macro_rules! cases {
    ($($m:ident),* $(,)?) => {
        pub const CASES: &[Case] = &[$(Case {
            name: stringify!($m),
            ptx: $m::PTX,
            check_host: $m::check_host,
            check_device: $m::check_device,
        }),*];
    };
}

cases!(
    vadd, saxpy, dot, matmul, stencil, scan, histogram, transpose, nbody, bitonic, warp_reduce, mandelbrot,
    softmax, recursion, struct_fn, dyn_reduce, vec4, classify, hash, inline_ptx, shared_histogram, conv1d,
    layernorm, spheres, interp, layernorm_iter, softmax_iter, runs, window_filter, tensor_gemm, gelu, box_muller,
);

/// A launch dimension from the host runner's spelling.
pub fn dim(d: [u32; 3]) -> (u32, u32, u32) {
    (d[0], d[1], d[2])
}

/// Deterministic pseudo-random numbers for inputs (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in [lo, hi).
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }
}

/// A CUDA C twin of `benches/cuda/` as one source, its `#include "common.cuh"` replaced by
/// the header's text (for compilers run on a copy in a scratch directory).
pub fn twin_source(file: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/cuda");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("benches/cuda/{f}: {e}"));
    read(file).replace("#include \"common.cuh\"", &read("common.cuh"))
}

/// Bitwise equality of float results (NaNs included), with the first difference in the panic.
#[track_caller]
pub fn assert_bits_eq(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g.to_bits() == w.to_bits(), "{what}[{i}]: {g} ({:#x}) != {w} ({:#x})", g.to_bits(), w.to_bits());
    }
}

/// Relative closeness, for results whose summation order differs from the reference's.
#[track_caller]
pub fn assert_close(what: &str, got: &[f32], want: &[f32], rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = rel * w.abs().max(1.0);
        assert!((g - w).abs() <= tol, "{what}[{i}]: {g} vs {w} (tolerance {tol})");
    }
}
