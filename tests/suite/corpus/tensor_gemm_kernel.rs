//! The tensor-core GEMM kernel, shared by `examples/tensor_gemm.rs` (which includes this file)
//! and the corpus case `tensor_gemm.rs` (whose CUDA C twin is `benches/cuda/tensor_gemm.cu`):
//! `C = A·B`, f16 in, f32 accumulated. Each block of four warps computes a 32 × 32 tile of C.
//! Per 32-wide step of k, the block stages A's and B's 32 × 32 tiles in shared memory with
//! asynchronous copies (`cp.async`, 16 bytes each), each warp loads its fragments with
//! `ldmatrix` and multiplies with `mma.sync` (through the tile API, `device::wmma`),
//! accumulating in registers.

use ptx_runtime::device::*;
use ptx_runtime::half::f16;
use ptx_runtime::kernel;
use ptx_runtime::vector::f32x4;

/// The block's tile of C is `T × T`; k advances by `T`.
pub const T: usize = 32;

/// Threads per block: four warps, one 16 × 16 quarter of the tile each.
pub const THREADS: u32 = 128;

/// Dynamic shared memory per block: A's and B's `T × T` f16 tiles.
pub const SHARED_BYTES: u32 = (2 * T * T * 2) as u32;

/// `a` and `b` are `n × n` row-major f16 matrices seen as 16-byte units of 8 halves (`f32x4`
/// bit patterns), `n` a multiple of 32; the grid is `n / 32 × n / 32` blocks of [`THREADS`],
/// with [`SHARED_BYTES`] of dynamic shared memory.
#[kernel(sm = 80)]
pub fn tensor_gemm(a: &[f32x4], b: &[f32x4], c: &mut [f32], n: u32) {
    // The dynamic shared memory (4 KiB): A's tile (32 rows of 4 units, 32 halves), then B's,
    // written as 16-byte units by `cp.async` and read as halves by `ldmatrix` (two views of the
    // same bytes).
    let mut s = unsafe { dynamic_shared::<f32x4>() };
    let h = unsafe { dynamic_shared::<f16>() };
    let t = thread_idx_x() as usize;
    let warp = t / 32;
    let (wm, wn) = (warp / 2, warp % 2);
    let n = n as usize;
    let units = n / 8;
    let (bm, bn) = (block_idx_y() as usize * T, block_idx_x() as usize * T);
    let (r, u) = (t / 4, t % 4);
    let mut acc = wmma::fill_fragment(0.0);
    for kt in 0..n / T {
        // Thread t copies unit u of row r of each tile.
        unsafe {
            memcpy_async(&mut s[t], &a[(bm + r) * units + kt * 4 + u]);
            memcpy_async(&mut s[128 + t], &b[(kt * T + r) * units + bn / 8 + u]);
        }
        pipeline_commit();
        pipeline_wait_all();
        sync_threads();
        let pa = h.as_ptr();
        let pb = unsafe { h.as_ptr().add(T * T) };
        for kk in 0..2 {
            let fa = unsafe { wmma::load_matrix_a_shared(pa.add(wm * 16 * T + kk * 16), T) };
            let fb = unsafe { wmma::load_matrix_b_shared(pb.add(kk * 16 * T + wn * 16), T) };
            acc = wmma::mma_sync(fa, fb, acc);
        }
        sync_threads();
    }
    let at = (bm + wm * 16) * n + bn + wn * 16;
    assert!(at + 15 * n + 16 <= c.len());
    unsafe { wmma::store_matrix_sync(c.as_mut_ptr().add(at), acc, n) };
}

/// 8 halves as one 16-byte unit, the kernel's view of a row-major f16 matrix.
pub fn units(x: &[f16]) -> Vec<f32x4> {
    x.chunks(8)
        .map(|h| {
            let w = |i: usize| f32::from_bits(h[2 * i].to_bits() as u32 | (h[2 * i + 1].to_bits() as u32) << 16);
            f32x4::new(w(0), w(1), w(2), w(3))
        })
        .collect()
}
