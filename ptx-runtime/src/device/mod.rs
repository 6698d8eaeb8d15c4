//! The device API: what kernel and device-function bodies call, named after CUDA's built-ins.
//!
//! Every function here has two definitions: the device one, which the body compiler emits
//! (a special register, a barrier, a shuffle — see each function's documentation for the
//! CUDA and PTX equivalents), and a host one, so the same body runs on the host too (see
//! [`host`]).
//!
//! | concern | here | CUDA |
//! |---------|------|------|
//! | coordinates | [`thread_idx_x`], [`block_idx_x`], [`block_dim_x`], [`grid_dim_x`] (and `_y`, `_z`), [`lane_id`], [`warp_size`] | `threadIdx`, `blockIdx`, `blockDim`, `gridDim`, `warpSize` |
//! | barriers | [`sync_threads`], [`sync_threads_count`], [`sync_threads_and`], [`sync_threads_or`], [`sync_warp`] | `__syncthreads`, `__syncthreads_count/and/or`, `__syncwarp` |
//! | grid barrier | [`grid_sync`] (cooperative launches) | `this_grid().sync()` |
//! | fences | [`thread_fence_block`], [`thread_fence`], [`thread_fence_system`] | `__threadfence_block`, `__threadfence`, `__threadfence_system` |
//! | warp | [`shfl_sync`], [`shfl_up_sync`], [`shfl_down_sync`], [`shfl_xor_sync`], [`all_sync`], [`any_sync`], [`uni_sync`], [`ballot_sync`], [`active_mask`] | `__shfl_*_sync`, `__all_sync`, ... `__activemask` |
//! | shared memory | [`shared_array`], [`dynamic_shared`] | `__shared__ T a[N]`, `extern __shared__ T a[]` |
//! | time | [`clock`], [`clock64`], [`global_timer`], [`nanosleep`] | `clock()`, `clock64()`, `%globaltimer`, `__nanosleep` |
//! | stop | [`trap`], `assert!`, `panic!` (`__assertfail`) | `__trap()`, `assert()` |
//! | print | [`printf!`](crate::printf) | `printf` |
//! | atomics | [`atomic`]: `load`, `store`, `swap`, `compare_exchange`, `fetch_add`, ..., `fence` | `atomicAdd`, `cuda::atomic_ref`, `__nv_atomic_*` |
//! | device heap | [`malloc`], [`free`] | `malloc`, `free` |
//! | math | [`math`] (accurate, what `x.sin()` calls), [`fast`] (approximate) | `sinf`, ..., `__sinf`, ... |
//! | textures, surfaces | [`tex2d`], [`tex1d_fetch`], [`tex2d_lod`], [`tex2d_grad`], [`tex_cubemap`], [`tex2d_gather`], [`surf2d_read`], [`surf2d_write`], ... over [`crate::texture`]'s typed handles | `tex2D<T>`, `tex1Dfetch<T>`, `tex2DLod<T>`, `tex2DGrad<T>`, `texCubemap<T>`, `tex2Dgather<T>`, `surf2Dread<T>`, `surf2Dwrite` |
//! | half precision | [`HalfMath`]: `a.mul_add(b, c)`, `x.abs()` on `f16` / `bf16` | `__hfma`, `__habs` |
//! | rounded conversions | [`ToF16Rounded`], [`ToBf16Rounded`], [`ToIntRounded`]: `x.to_f16_rz()`, `h.to_i32_rd()`, ... | `__float2half_rz`, `__half2int_rd`, ... |
//! | tensor cores | [`mma`]: [`mma::FragmentA`], [`mma::FragmentB`], [`mma::FragmentC`], [`mma::mma_sync`], [`mma::ldmatrix_x4`], [`mma::stmatrix_x4`], ... (sm_80; `ldmatrix` sm_75, `stmatrix` sm_90) | `mma.sync` / `ldmatrix` / `stmatrix` through inline asm |
//! | tensor-core tiles | [`wmma`]: [`wmma::load_matrix_a`], [`wmma::mma_sync`], [`wmma::store_matrix_sync`], ... (16 × 16 × 16, f16 → f32) | `nvcuda::wmma` |
//! | asynchronous copies | [`memcpy_async`], [`memcpy_async_zfill`], [`pipeline_commit`], [`pipeline_wait_prior`] (sm_80); [`memcpy_async_bulk`], [`memcpy_async_bulk_store`], [`bulk_commit`], [`bulk_wait_prior`], [`fence_proxy_async`] (sm_90) | `__pipeline_memcpy_async`, `__pipeline_commit`, `__pipeline_wait_prior`, `cp.async.bulk` |
//! | mbarriers | [`mbarrier_init`], [`mbarrier_arrive`], [`mbarrier_test_wait`], ... (sm_80); [`mbarrier_try_wait`], [`mbarrier_arrive_expect_tx`] (sm_90) | `__mbarrier_*`, `cuda::barrier`, `cuda::ptx::mbarrier_*` |
//! | inline PTX | [`ptx_asm!`](crate::ptx_asm) | `asm()` |

pub mod atomic;
pub mod fast;
pub mod host;
pub mod math;
pub mod mma;
pub mod wmma;

mod asm;
mod async_copy;
mod bulk_store;
mod grid;
mod half_math;
mod heap;
mod index;
mod mbarrier;
mod printf;
mod round;
mod shared;
mod sync;
mod texture;
mod time;
mod warp;

pub use async_copy::*;
pub use bulk_store::*;
pub use grid::*;
pub use half_math::HalfMath;
pub use round::{ToBf16Rounded, ToF16Rounded, ToIntRounded};
pub use heap::*;
pub use index::*;
pub use mbarrier::*;
pub use shared::*;
pub use sync::*;
pub use texture::*;
pub use time::*;
pub use warp::*;

pub use crate::{printf, ptx_asm};
pub use crate::texture::Boundary;
#[doc(hidden)]
pub use printf::{format_on_host, printf_on_host, HostArg};
pub use printf::PrintfArg;
#[doc(hidden)]
pub use asm::asm_on_host;
