// tests/suite/corpus/dot.rs: grid-stride partial dot products, then a shared-memory tree
// reduction per block; one partial sum per block.
#include "common.cuh"

extern "C" __global__ void __launch_bounds__(256) dot(const float* __restrict__ x, usize x_len, const float* __restrict__ y, usize y_len, float* partial, usize partial_len) {
    __shared__ float cache[256];
    usize tid = threadIdx.x;
    usize stride = (usize)(gridDim.x * blockDim.x);
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    float sum = 0.0f;
    while (i < x_len) {
        BOUNDS(i, x_len);
        BOUNDS(i, y_len);
        sum += x[i] * y[i];
        i += stride;
    }
    BOUNDS(tid, 256);
    cache[tid] = sum;
    __syncthreads();
    usize s = (usize)blockDim.x / 2;
    while (s > 0) {
        if (tid < s) {
            BOUNDS(tid, 256);
            BOUNDS(tid + s, 256);
            cache[tid] = cache[tid] + cache[tid + s];
        }
        __syncthreads();
        s /= 2;
    }
    if (tid == 0) {
        usize b = blockIdx.x;
        BOUNDS(b, partial_len);
        partial[b] = cache[0];
    }
}
