// Kernels with planted bugs, one per kind memcheck must catch (tests/suite/cpu_memcheck.rs).

// Off by one: no bounds check, launched with more threads than elements.
extern "C" __global__ void past_the_end(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = n;
}

extern "C" __global__ void null_read(const int* p, int* out) { out[threadIdx.x] = p[threadIdx.x]; }

extern "C" __global__ void shared_overflow(int* out, int k) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x + k];
}

extern "C" __global__ void local_overflow(int* out, int k) {
  volatile int a[8];
  for (int j = 0; j < 8; j++) a[j] = j * threadIdx.x;
  out[threadIdx.x] = a[threadIdx.x + k];
}

extern "C" __global__ void misaligned(char* p, int* out) {
  out[threadIdx.x] = *(int*)(p + 1 + 4 * threadIdx.x);
}

// The two halves of each warp wait at different __syncthreads.
extern "C" __global__ void split_barrier(int* out) {
  if (threadIdx.x % 32 < 16) {
    __syncthreads();
    out[threadIdx.x] = 1;
  } else {
    out[threadIdx.x] = 2;
    __syncthreads();
  }
}

// Threads past n return before the barrier the others wait at.
extern "C" __global__ void early_return(int* out, int n) {
  __shared__ int s[64];
  if (threadIdx.x >= n) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[n - 1 - threadIdx.x];
}

// A named barrier expecting 64 threads; only one warp of the block ever arrives.
extern "C" __global__ void short_barrier(int* out) {
  if (threadIdx.x < 32) asm volatile("bar.sync 1, 64;");
  out[threadIdx.x] = 3;
}

// The two halves of a warp wait in different shuffles for each other.
extern "C" __global__ void shuffle_deadlock(int* out) {
  int v;
  if (threadIdx.x < 16) v = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
  else v = __shfl_sync(0xffffffff, (int)threadIdx.x, 1) + 1;
  out[threadIdx.x] = v;
}

extern "C" __global__ void double_free(int* out) {
  int* p = (int*)malloc(16);
  *p = 5;
  free(p);
  if (threadIdx.x == 3) free(p);
  out[threadIdx.x] = 1;
}

// The test passes the address of `table` (constant memory) as `p`.
__constant__ int table[4] = {1, 2, 3, 4};
extern "C" __global__ void write_through(int* p, int* out) {
  out[threadIdx.x] = p[threadIdx.x % 4];
  if (threadIdx.x == 2) p[0] = 9;
}

extern "C" __global__ void traps(int* out) {
  if (threadIdx.x == 5) __trap();
  out[threadIdx.x] = 1;
}

// Unbounded recursion with a stack frame the compiler cannot turn into a loop.
__device__ __noinline__ int deep(int x) {
  volatile int a[16];
  a[x & 15] = x;
  return x < 0 ? 0 : deep(x + 1) + a[(x + 3) & 15];
}
extern "C" __global__ void overflow_stack(int* out) { out[threadIdx.x] = deep(threadIdx.x); }

extern "C" __global__ void spin(volatile int* flag) { while (*flag == 0) {} }
