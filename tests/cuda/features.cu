// More of what nvcc emits (tests/suite/cpu_features.rs): function pointers from an
// initialized table (indirect calls with prototypes), by-value structs read from the
// parameter space, vector loads/stores, 3-D grids and blocks, local arrays with dynamic
// indexing, __constant__ and __device__ variables, switch statements.

__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
typedef int (*op_t)(int);
__device__ op_t table[2] = {twice, square};

struct S { float a[5]; int b; };

extern "C" __global__ void fptr(int* out, S s) {
  int t = threadIdx.x + threadIdx.y * blockDim.x;
  op_t f = table[t % 2];
  const S* p = &s;
  out[t] = f(t) + (int)p->a[t % 5] + p->b;
}

extern "C" __global__ void vec4(const float4* in, float4* out, double2* d) {
  int i = threadIdx.x;
  float4 v = __ldg(&in[i]);
  out[i] = make_float4(v.w, v.z, v.y, v.x);
  double2 e = d[i];
  d[i] = make_double2(e.y, e.x + v.x);
}

// Each thread of a 3-D grid of 3-D blocks writes its coordinates.
extern "C" __global__ void coords(unsigned* out) {
  unsigned bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned i = bx * blockDim.x * blockDim.y * blockDim.z + tx;
  out[i] = threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16 | blockIdx.x << 24;
  out[i] ^= (blockIdx.y << 4) ^ (blockIdx.z << 12) ^ (gridDim.x * 1000 + gridDim.y * 100 + gridDim.z * 10 + blockDim.z);
}

__constant__ int weights[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ int counter;

extern "C" __global__ void misc(const int* in, int* out, int n) {
  int hist[8] = {0};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = in[i];
    hist[v & 7] += weights[v & 7];
    switch (v % 6) {
      case 0: v += 1; break;
      case 1: v *= 3; break;
      case 2: v ^= 0x55; break;
      case 3: v = -v; break;
      case 4: v >>= 1; break;
      default: v = v * v; break;
    }
    out[i] = v;
  }
  int s = 0;
  for (int j = 0; j < 8; j++) s += hist[j] * (j + 1);
  atomicAdd(&counter, s);
}

extern "C" __global__ void read_counter(int* out) { *out = counter; }
