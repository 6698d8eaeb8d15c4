// tests/suite/corpus/shared_histogram.rs: 256 bins counted with shared-memory atomics per
// block, then added to the global bins.
#include "common.cuh"

extern "C" __global__ void shared_histogram(const unsigned* __restrict__ data, usize data_len, unsigned* bins, usize bins_len) {
    __shared__ unsigned local[256];
    usize t = threadIdx.x;
    usize threads = blockDim.x;
    for (usize b = t; b < 256; b += threads) {
        BOUNDS(b, 256);
        local[b] = 0;
    }
    __syncthreads();
    usize stride = (usize)(gridDim.x * blockDim.x);
    for (usize i = (usize)(blockIdx.x * blockDim.x) + t; i < data_len; i += stride) {
        BOUNDS(i, data_len);
        usize bin = data[i] & 255;
        BOUNDS(bin, 256);
        atomicAdd(&local[bin], 1u);
    }
    __syncthreads();
    for (usize b = t; b < 256; b += threads) {
        BOUNDS(b, bins_len);
        BOUNDS(b, 256);
        atomicAdd(&bins[b], local[b]);
    }
}
