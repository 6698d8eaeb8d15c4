// sm_90: a bulk copy from shared to global memory (cp.async.bulk ... bulk_group) with its
// commit/wait, in CUDA C through CCCL's cuda::ptx — the twin of `bulk_store` in
// tests/suite/body_bulk_store.rs.
#include <cuda/ptx>
namespace ptx = cuda::ptx;

// Each block of 32 threads writes 3 * x[i] + t to a shared tile, then thread 0 stores the
// tile (512 bytes) to y in one bulk copy and waits for it.
extern "C" __global__ void bulk_store(const float4* x, float4* y) {
  __shared__ alignas(16) float4 tile[32];
  unsigned t = threadIdx.x, i = blockIdx.x * 32 + t;
  float4 v = x[i];
  tile[t] = make_float4(3.0f * v.x + t, 3.0f * v.y, 3.0f * v.z, 3.0f * v.w);
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (t == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, &y[blockIdx.x * 32], tile, 512);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
  }
}

// The PTX-line oracle for the Rust kernel `store_oracle`.
extern "C" __global__ void store_oracle(float* y, unsigned n) {
  __shared__ alignas(16) float tile[64];
  tile[threadIdx.x] = (float)threadIdx.x;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, y, tile, n);
  ptx::cp_async_bulk_commit_group();
  ptx::cp_async_bulk_wait_group(ptx::n32_t<1>());
  ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
}
