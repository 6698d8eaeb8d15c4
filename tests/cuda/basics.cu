// Ordinary CUDA C kernels for the CPU backend's independence check (tests/suite/cpu_nvcc.rs).

extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void reduce(const float* in, float* out, int n) {
  extern __shared__ float s[];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + t;
  float v = 0;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  s[t] = v;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__device__ __noinline__ int collatz(long long x) {
  int n = 0;
  while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; n++; }
  return n;
}
__device__ __noinline__ int fib(int x) { return x < 2 ? x : fib(x - 1) + fib(x - 2); }
struct P { float x; double y; int z; };
__device__ __noinline__ P mk(P p, int k) { p.x += k; p.y *= k; p.z -= k; return p; }

extern "C" __global__ void calls(int* out, P* ps) {
  int i = threadIdx.x;
  out[i] = collatz(i + 1) + fib(i % 10);
  ps[i] = mk(ps[i], i);
}
