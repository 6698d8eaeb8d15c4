//! `#[inline(always)]` on a `#[device_fn]` (CUDA's `__forceinline__`, `front/force_inline.rs`):
//! every call in device code is the callee's body, inlined where it is written, and no `.func`
//! of it is emitted; the host calls the function as Rust does. ptxas inlines no `.func`, so
//! this is what keeps a small helper's call out of a hot loop (the tile API, `device::wmma`).

use crate::tools::assemble;
use ptx_runtime::device::host::{self, Disjoint};
use ptx_runtime::{DeviceBuffer, LaunchConfig};

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::half::f16;
    use ptx_runtime::{device_fn, kernel};

    /// A loop, an early `return`, a pointer parameter (global memory at the call).
    #[device_fn]
    #[inline(always)]
    pub(crate) fn capped_sum(p: *const f32, n: usize, cap: f32) -> f32 {
        let mut s = 0.0;
        for i in 0..n {
            s += unsafe { p.add(i).read() };
            if s > cap {
                return cap;
            }
        }
        s
    }

    /// Calls another inlined function; stays a call itself.
    #[device_fn]
    pub fn doubled(p: *const f32, cap: f32) -> f32 {
        2.0 * capped_sum(p, 4, cap)
    }

    #[kernel]
    pub fn sums(x: &[f32], out: &mut [f32], cap: f32) {
        let t = thread_idx_x() as usize;
        assert!(t * 4 + 4 <= x.len());
        let p = unsafe { x.as_ptr().add(t * 4) };
        out[2 * t] = capped_sum(p, 4, cap);
        out[2 * t + 1] = doubled(p, cap);
    }

    /// A method of its parameter: the argument must be typed by the parameter (an `f32`) before
    /// the body reads it, when it is an unsuffixed literal.
    #[device_fn]
    #[inline(always)]
    pub(crate) fn scaled(x: f32, k: f32) -> f32 {
        x * k.abs()
    }

    #[kernel]
    pub fn literal_args(x: &mut [f32]) {
        let t = thread_idx_x() as usize;
        if t < x.len() {
            x[t] = scaled(x[t], -2.5) + x[t].atan2(2.0) + x[t].hypot(0.5);
        }
    }

    /// The tile API's functions are `#[inline(always)]`: a warp's 16 × 16 × 16 product with no
    /// call in the module.
    #[kernel(sm = 80)]
    pub fn tile(a: &[f16], b: &[f16], d: &mut [f32]) {
        let acc = wmma::fill_fragment(0.0);
        let fa = unsafe { wmma::load_matrix_a(a.as_ptr(), 16) };
        let fb = unsafe { wmma::load_matrix_b(b.as_ptr(), 16) };
        let acc = wmma::mma_sync(fa, fb, acc);
        assert!(d.len() >= 256);
        unsafe { wmma::store_matrix_sync(d.as_mut_ptr(), acc, 16) };
    }
}

fn inputs() -> Vec<f32> {
    (0..64).map(|i| ((i * 37) % 19) as f32 * 0.25 - 1.0).collect()
}

#[test]
fn an_inline_always_function_is_its_body_at_each_call() {
    let ptx = k::sums::PTX;
    assemble("force_inline_sums", ptx);
    // `doubled` is a `.func` and is called; `capped_sum` is neither.
    assert!(ptx.contains("call.uni (retval0), _ZN") && ptx.contains("7doubledE"), "{ptx}");
    assert!(!ptx.contains("capped_sum"), "capped_sum is inlined:\n{ptx}");
    let x = inputs();
    let cap = 2.5f32;
    // The reference, as Rust computes it.
    let want: Vec<f32> = x.chunks(4).flat_map(|c| {
        let s = k::capped_sum(c.as_ptr(), 4, cap);
        [s, 2.0 * s]
    }).collect();
    assert!(want.iter().any(|&v| v == cap) && want.iter().any(|&v| v < cap), "both ways out are taken: {want:?}");
    let mut host_out = vec![0.0f32; 32];
    let o = Disjoint::new(&mut host_out);
    host::run([1, 1, 1], [16, 1, 1], 0, || k::sums(&x, unsafe { o.get() }, cap));
    crate::corpus::assert_bits_eq("host", &host_out, &want);
    let stream = crate::body_exec::cpu_stream();
    let dx = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut dout = DeviceBuffer::<f32>::zeroed(&stream, 32).unwrap();
    k::sums::launch(&stream, LaunchConfig::new(1, 16), &dx, &mut dout, cap).unwrap();
    crate::corpus::assert_bits_eq("CPU backend", &dout.to_vec().unwrap(), &want);
}

#[test]
fn literal_arguments_take_the_parameters_type() {
    assemble("force_inline_literal_args", k::literal_args::PTX);
    let x = inputs();
    let want: Vec<f32> = x.iter().map(|&v| k::scaled(v, -2.5) + ptx_runtime::device::math::cuda::atan2f(v, 2.0) + ptx_runtime::device::math::cuda::hypotf(v, 0.5)).collect();
    let stream = crate::body_exec::cpu_stream();
    let mut d = DeviceBuffer::from_slice(&stream, &x).unwrap();
    k::literal_args::launch(&stream, LaunchConfig::new(1, 64), &mut d).unwrap();
    crate::corpus::assert_bits_eq("CPU backend", &d.to_vec().unwrap(), &want);
}

#[test]
fn the_tile_api_leaves_no_call_in_the_kernel() {
    let ptx = k::tile::PTX;
    assemble("force_inline_tile", ptx);
    // The only call left is the assertion's `__assertfail`.
    assert!(!ptx.contains("4wmma") && ptx.matches("call.uni").count() == ptx.matches("call.uni __assertfail").count(), "{ptx}");
    assert_eq!(ptx.matches("mma.sync.aligned.m16n8k16").count(), 2, "{ptx}");
}
