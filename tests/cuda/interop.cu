// CUDA C++ for the interop tests (tests/suite/link_interop.rs): compiled with
// `nvcc -rdc=true -ptx` and linked with `#[kernel]` modules on the CPU backend.

struct P {
    float x;
    int k;
};

// Called from Rust.
extern "C" __device__ float plain_c(float x) { return x * 2.0f + 1.0f; }

namespace geo {
__device__ float scale(float x) { return x * 3.0f; }
__device__ double scale(double x) { return x * 4.0; }
}  // namespace geo

template <typename T>
__device__ T twice(T x) { return x + x; }
template __device__ int twice<int>(int);

// More template instances, named from their templates' declarations (`#[cpp_template]`).
namespace geo {
template <typename T>
__device__ T add(T a, T b) { return a + b; }
template __device__ float add<float>(float, float);
}  // namespace geo
template <int N>
__device__ int times(int x) { return x * N; }
template __device__ int times<3>(int);
template <class T>
__device__ T load(const T* p) { return p[1]; }
template __device__ float load<float>(const float*);

__device__ float takes_p(P p) { return p.x * (float)p.k; }

// A CUDA vector type by value.
// (Exact products and partial sums: nvcc's default contraction cannot change the result.)
__device__ float sum4(float4 v, float w) { return v.x + v.y * 2.0f + v.z * 3.0f + v.w - w; }

template <typename T, int N>
__device__ float pick(const T& t, int k) { return t.x * (float)(k + N); }
template __device__ float pick<P, -2>(const P&, int);

// Rust device functions called from here: a plain one and a struct return with heap use.
extern "C" __device__ int rust_square(int x);
struct Stats {
    int sum;
    int max;
    float mean;
};
extern "C" __device__ Stats rust_stats(const int* xs, int n);

extern "C" __global__ void cpp_calls_rust(int* out, Stats* stats, const int* xs, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = rust_square(xs[i]) + 1;
    if (i == 0) *stats = rust_stats(xs, n);
}
