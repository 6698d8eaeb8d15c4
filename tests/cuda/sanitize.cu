// Kernels with planted bugs for the CPU backend's sanitizers (tests/suite/cpu_sanitize.rs),
// each next to its correct twin; compiled with -lineinfo so reports name these lines.

// racecheck: neighbours read before they are written (no barrier).
extern "C" __global__ void race_shared(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

extern "C" __global__ void race_shared_fixed(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

// racecheck, global memory: two threads store to one element.
extern "C" __global__ void race_global(int* out) {
  if (threadIdx.x < 2) out[0] = threadIdx.x;
}

// initcheck: reads every element, of a buffer only partly written.
extern "C" __global__ void read_all(const int* in, int* out) {
  out[threadIdx.x] = in[threadIdx.x] + 1;
}

// initcheck: device malloc hands out memory nobody wrote.
extern "C" __global__ void heap_uninit(int* out) {
  int* p = (int*)malloc(32 * sizeof(int));
  if (threadIdx.x == 0) p[0] = 1;
  out[threadIdx.x] = p[threadIdx.x % 2];
  free(p);
}

// synccheck: a full-warp shuffle after some lanes returned.
extern "C" __global__ void shfl_after_return(int* out) {
  if (threadIdx.x >= 20) return;
  out[threadIdx.x] = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
}

// synccheck: a barrier thread count that is not a multiple of the warp size.
extern "C" __global__ void odd_barrier_count(int* out, int n) {
  asm volatile("bar.sync 1, %0;" ::"r"(n));
  out[threadIdx.x] = 1;
}

// leakcheck: a malloc without free.
extern "C" __global__ void leak(int* out) {
  int* p = (int*)malloc(16);
  p[0] = threadIdx.x;
  out[threadIdx.x] = p[0];
}

extern "C" __global__ void no_leak(int* out) {
  int* p = (int*)malloc(16);
  p[0] = threadIdx.x;
  out[threadIdx.x] = p[0];
  free(p);
}
