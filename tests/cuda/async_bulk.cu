// sm_90: a bulk copy (cp.async.bulk, TMA without a tensor map) completing on an mbarrier, in
// CUDA C through CCCL's cuda::ptx — the twin of `bulk_scale` in tests/suite/body_async_copy.rs.
#include <cuda/ptx>
namespace ptx = cuda::ptx;

// Each block of 32 threads brings its 32 float4 (512 bytes) to shared memory in one bulk
// copy, then thread t writes 3 * tile[31 - t].
extern "C" __global__ void bulk_scale(const float4* x, float4* y) {
  __shared__ alignas(16) float4 tile[32];
  __shared__ uint64_t bar;
  unsigned t = threadIdx.x;
  if (t == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  if (t == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 512);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile, &x[blockIdx.x * 32], 512, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {}
  float4 v = tile[31 - t];
  y[blockIdx.x * 32 + t] = make_float4(3.0f * v.x, 3.0f * v.y, 3.0f * v.z, 3.0f * v.w);
}

// The PTX-line oracle for the Rust kernel `oracle90`: each sm_90 operation once, in order.
extern "C" __global__ void oracle90(const float* x, float* y, unsigned n) {
  __shared__ alignas(16) float tile[64];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  uint64_t tok = ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, n);
  ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile, x, n, &bar);
  ptx::mbarrier_expect_tx(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, &bar, n);
  bool a = ptx::mbarrier_try_wait(&bar, tok);
  bool b = ptx::mbarrier_try_wait_parity(&bar, n);
  y[threadIdx.x] = tile[threadIdx.x] + (float)a + (float)b;
}
