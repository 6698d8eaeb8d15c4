// Asynchronous copies and mbarriers in CUDA C, the twins of the Rust kernels of
// tests/suite/body_async_copy.rs: nvcc's PTX for them is the oracle for the Rust kernels'
// cp.async / mbarrier instructions, and runs on the CPU backend against a host reference.
#include <cuda_pipeline_primitives.h>
#include <cuda_awbarrier_primitives.h>

// Double-buffered: tile k + 1 is copied while tile k is summed. Each block sums `tiles`
// tiles of 64 elements; thread t adds 2 * tile[t] + tile[63 - t] of each.
extern "C" __global__ void tile_sum(const float* x, float* y, unsigned tiles) {
  __shared__ float buf[128];
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * 64 * tiles;
  __pipeline_memcpy_async(&buf[t], &x[base + t], 4);
  __pipeline_commit();
  float acc = 0.0f;
  for (unsigned k = 0; k < tiles; k++) {
    if (k + 1 < tiles) {
      unsigned nb = (k + 1) % 2 * 64;
      __pipeline_memcpy_async(&buf[nb + t], &x[base + (k + 1) * 64 + t], 4);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    unsigned cb = k % 2 * 64;
    acc += buf[cb + t] * 2.0f + buf[cb + 63 - t];
    __syncthreads();
  }
  y[blockIdx.x * 64 + t] = acc;
}

// 16- and 8-byte copies: `.cg` (as __pipeline_memcpy_async picks for 16 bytes), `.ca`, and a
// zero-filled tail (src-size in a register, as inline asm writes it). n counts floats.
extern "C" __global__ void copy_wide(const float4* x, const double* z, float4* y, float4* u, double* w, unsigned n) {
  __shared__ float4 s[32];
  __shared__ float4 c[32];
  __shared__ float4 e[32];
  __shared__ double d[32];
  unsigned t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &x[t], 16);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, 16;" :: "r"((unsigned)__cvta_generic_to_shared(&c[t])), "l"(&x[31 - t]) : "memory");
  __pipeline_memcpy_async(&d[t], &z[t], 8);
  unsigned left = n > t * 4 ? n - t * 4 : 0;
  unsigned bytes = left >= 4 ? 16 : left * 4;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&e[t])), "l"(&x[t]), "r"(bytes) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  float4 a = s[t], b = c[t];
  y[t] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  u[t] = e[t];
  w[t] = d[31 - t];
}

// Producer/consumer through a split barrier: warp 0 writes a slot of shared memory per
// round, warp 1 reads it after the round's phase completes. All 64 threads arrive each round.
extern "C" __global__ void mbar_rounds(float* y, unsigned rounds) {
  __shared__ __mbarrier_t bar;
  __shared__ float slot[4 * 32];
  unsigned t = threadIdx.x;
  if (t == 0) __mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  float acc = 0.0f;
  for (unsigned r = 0; r < rounds; r++) {
    if (t < 32) slot[r * 32 + t] = (float)(r * 100 + t);
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {}
    if (t >= 32) acc += slot[r * 32 + (63 - t)];
  }
  y[t] = acc;
  __syncthreads();
  if (t == 0) __mbarrier_inval(&bar);
}

// The PTX-line oracle for the Rust kernel `oracle80`: each sm_80 operation once, in order.
extern "C" __global__ void oracle80(const float* x, const float4* v, const double* z, float* y, unsigned n) {
  __shared__ float s[64];
  __shared__ float4 s4[32];
  __shared__ float4 c4[32];
  __shared__ double s8[32];
  __shared__ __mbarrier_t bar;
  unsigned t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &x[t], 4);
  __pipeline_memcpy_async(&s8[t], &z[t], 8);
  __pipeline_memcpy_async(&s4[t], &v[t], 16);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, 16;" :: "r"((unsigned)__cvta_generic_to_shared(&c4[t])), "l"(&v[t]) : "memory");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&c4[t])), "l"(&v[t]), "r"(n) : "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&s[t + 32])), "l"(&x[t]), "r"(n) : "memory");
  __pipeline_commit();
  __pipeline_wait_prior(2);
  asm volatile("cp.async.wait_all;" ::: "memory");
  if (t == 0) __mbarrier_init(&bar, n);
  __syncthreads();
  __mbarrier_token_t tok = __mbarrier_arrive(&bar);
  bool done = __mbarrier_test_wait(&bar, tok);
  __mbarrier_token_t tok2 = __mbarrier_arrive_and_drop(&bar);
  if (t == 0) __mbarrier_inval(&bar);
  y[t] = s[t] + s4[t].x + c4[t].y + (float)s8[t] + (float)(tok + tok2) + (float)done;
}

// Memcheck: thread t copies x[t] into s[t + shift]; past the end of x (launched with fewer
// elements than threads) or of s (shift > 0), the copy faults where it is issued.
extern "C" __global__ void oob_copy(const float* x, float* y, unsigned shift) {
  __shared__ float s[32];
  unsigned t = threadIdx.x;
  __pipeline_memcpy_async(&s[t + shift], &x[t], 4);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  y[t] = s[t];
}
