// Kernels of benches/cpu_interp.rs; benches/cpu_interp.ptx is `nvcc -ptx -arch=sm_75` of this file.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void polynomial(float* y, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = y[i];
  float acc = 0.0f;
  for (int k = 0; k < iters; k++) acc = acc * v + 0.5f;
  y[i] = acc;
}
extern "C" __global__ void block_sum(const float* in, float* out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void divergent(int* y, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i;
  for (int k = 0; k < iters + (i % 7); k++) v = (v & 1) ? 3 * v + 1 : v >> 1;
  y[i] = v;
}
