//! A WMMA-style tile API: one warp multiplies 16 × 16 tiles, `f16` in, `f32` accumulated — what
//! CUDA's `nvcuda::wmma` offers with `fragment<matrix_a, 16, 16, 16, half, row_major>`,
//! `load_matrix_sync`, `mma_sync`, `store_matrix_sync` and `fill_fragment`, for users who do
//! not want fragment layouts (docs/tensor-cores.md, "The tile API").
//!
//! | CUDA (`nvcuda::wmma`) | here | held as |
//! |------|------|---------|
//! | `fragment<matrix_a, 16, 16, 16, half, row_major>` + `load_matrix_sync(a, p, ldm)` | `let a = load_matrix_a(p, ldm)` (any memory) or `load_matrix_a_shared(p, ldm)` (`ldmatrix`) | `FragmentA<M16N8K16, f16>` |
//! | `fragment<matrix_b, 16, 16, 16, half, row_major>` + `load_matrix_sync(b, p, ldm)` | `load_matrix_b(p, ldm)`, `load_matrix_b_shared(p, ldm)` | `[FragmentB<M16N8K16, f16>; 2]` (columns 0–7, 8–15) |
//! | `fragment<accumulator, 16, 16, 16, float>` + `fill_fragment(c, v)` | `let c = fill_fragment(v)` | `[FragmentC<f32>; 2]` |
//! | `load_matrix_sync(c, p, ldm, mem_row_major)` | `load_matrix_c(p, ldm)` | |
//! | `mma_sync(d, a, b, c)` | `let d = mma_sync(a, b, c)` | two `mma.sync.m16n8k16` |
//! | `store_matrix_sync(p, d, ldm, mem_row_major)` | `store_matrix_sync(p, d, ldm)` | |
//!
//! Matrices are row-major with a leading dimension `ldm` (elements between rows). Every lane
//! of the warp calls each function together. The functions are `#[device_fn]`s written over
//! [`mma`](super::mma)'s fragments, so they compile for kernels like user code (sm_80: write
//! `#[kernel(sm = 80)]`) and run on the host with the same code.

// The bodies name the device API by full paths: they are inlined into their callers
// (`#[inline(always)]`), which may be in other crates, and resolve their names from there.
// The fragment types, as the signatures name them (public: callers' bodies name them through
// this module).
pub use super::mma::{FragmentA, FragmentB, FragmentC, M16N8K16};
use half::f16;
use ptx_runtime::device_fn;

/// The A tile (16 × 16, row-major, `ldm` elements between rows) from any memory, element by
/// element (`wmma::load_matrix_sync` of a `matrix_a` fragment).
///
/// # Safety
/// `p` points at the tile's first element; its 16 rows of 16 are readable.
#[device_fn]
#[inline(always)]
pub unsafe fn load_matrix_a(p: *const f16, ldm: usize) -> FragmentA<M16N8K16, f16> {
    let lane = ptx_runtime::device::lane_id();
    let mut r = [0u32; 4];
    for i in 0..8 {
        let (row, col) = FragmentA::<M16N8K16, f16>::position(lane, i);
        let bits = unsafe { p.add(row * ldm + col).read() }.to_bits() as u32;
        r[i / 2] |= bits << (16 * (i % 2));
    }
    FragmentA::<M16N8K16, f16>::from_regs(r)
}

/// The B tile (16 × 16, k × n, row-major) from any memory: columns 0–7 and 8–15.
///
/// # Safety
/// As for [`load_matrix_a`].
#[device_fn]
#[inline(always)]
pub unsafe fn load_matrix_b(p: *const f16, ldm: usize) -> [FragmentB<M16N8K16, f16>; 2] {
    let lane = ptx_runtime::device::lane_id();
    let mut lo = [0u32; 2];
    let mut hi = [0u32; 2];
    for i in 0..4 {
        let (k, n) = FragmentB::<M16N8K16, f16>::position(lane, i);
        let a = unsafe { p.add(k * ldm + n).read() }.to_bits() as u32;
        let b = unsafe { p.add(k * ldm + 8 + n).read() }.to_bits() as u32;
        lo[i / 2] |= a << (16 * (i % 2));
        hi[i / 2] |= b << (16 * (i % 2));
    }
    [FragmentB::<M16N8K16, f16>::from_regs(lo), FragmentB::<M16N8K16, f16>::from_regs(hi)]
}

/// [`load_matrix_a`] from shared memory with one `ldmatrix.x4` (rows 16-byte aligned: `ldm` a
/// multiple of 8).
///
/// # Safety
/// `p` is shared memory; otherwise as for [`load_matrix_a`].
#[device_fn]
#[inline(always)]
pub unsafe fn load_matrix_a_shared(p: *const f16, ldm: usize) -> FragmentA<M16N8K16, f16> {
    let l = ptx_runtime::device::lane_id() as usize;
    FragmentA::<M16N8K16, f16>::from_regs(unsafe { ptx_runtime::device::mma::ldmatrix_x4(p.add((l % 16) * ldm + 8 * (l / 16))) })
}

/// [`load_matrix_b`] from shared memory with one `ldmatrix.x4.trans`.
///
/// # Safety
/// As for [`load_matrix_a_shared`].
#[device_fn]
#[inline(always)]
pub unsafe fn load_matrix_b_shared(p: *const f16, ldm: usize) -> [FragmentB<M16N8K16, f16>; 2] {
    let l = ptx_runtime::device::lane_id() as usize;
    let r = unsafe { ptx_runtime::device::mma::ldmatrix_x4_trans(p.add((l % 16) * ldm + 8 * (l / 16))) };
    [FragmentB::<M16N8K16, f16>::from_regs([r[0], r[1]]), FragmentB::<M16N8K16, f16>::from_regs([r[2], r[3]])]
}

/// An accumulator with every element `v` (`wmma::fill_fragment`).
#[device_fn]
#[inline(always)]
pub fn fill_fragment(v: f32) -> [FragmentC<f32>; 2] {
    [FragmentC::<f32>::from_regs([v, v, v, v]), FragmentC::<f32>::from_regs([v, v, v, v])]
}

/// The accumulator tile (16 × 16 `f32`, row-major) from any memory.
///
/// # Safety
/// `p` points at the tile's first element; its 16 rows of 16 are readable.
#[device_fn]
#[inline(always)]
pub unsafe fn load_matrix_c(p: *const f32, ldm: usize) -> [FragmentC<f32>; 2] {
    let lane = ptx_runtime::device::lane_id();
    let mut lo = [0.0f32; 4];
    let mut hi = [0.0f32; 4];
    for i in 0..4 {
        let (row, col) = FragmentC::<f32>::position(lane, i);
        lo[i] = unsafe { p.add(row * ldm + col).read() };
        hi[i] = unsafe { p.add(row * ldm + 8 + col).read() };
    }
    [FragmentC::<f32>::from_regs(lo), FragmentC::<f32>::from_regs(hi)]
}

/// `d = a·b + c` for the 16 × 16 × 16 tile: two `mma.sync.m16n8k16` (`wmma::mma_sync`).
#[device_fn(sm = 80)]
#[inline(always)]
pub fn mma_sync(a: FragmentA<M16N8K16, f16>, b: [FragmentB<M16N8K16, f16>; 2], c: [FragmentC<f32>; 2]) -> [FragmentC<f32>; 2] {
    [ptx_runtime::device::mma::mma_sync(a, b[0], c[0]), ptx_runtime::device::mma::mma_sync(a, b[1], c[1])]
}

/// Stores the accumulator tile row-major (`wmma::store_matrix_sync(p, d, ldm, mem_row_major)`).
///
/// # Safety
/// `p` points at the tile's first element; its 16 rows of 16 are writable.
#[device_fn]
#[inline(always)]
pub unsafe fn store_matrix_sync(p: *mut f32, d: [FragmentC<f32>; 2], ldm: usize) {
    let lane = ptx_runtime::device::lane_id();
    let (lo, hi) = (d[0].regs, d[1].regs);
    for i in 0..4 {
        let (row, col) = FragmentC::<f32>::position(lane, i);
        unsafe {
            p.add(row * ldm + col).write(lo[i]);
            p.add(row * ldm + 8 + col).write(hi[i]);
        }
    }
}
