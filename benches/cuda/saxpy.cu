// tests/suite/corpus/saxpy.rs: `y = a·x + y` with a grid-stride loop.
#include "common.cuh"

extern "C" __global__ void saxpy(float a, const float* __restrict__ x, usize x_len, float* y, usize y_len) {
    usize stride = (usize)(gridDim.x * blockDim.x);
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    while (i < y_len) {
        BOUNDS(i, x_len);
        BOUNDS(i, y_len);
        y[i] = a * x[i] + y[i];
        i += stride;
    }
}
