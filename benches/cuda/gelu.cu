// tests/suite/corpus/gelu.rs: GELU activation, the tanh form, one element per thread.
#include "common.cuh"

extern "C" __global__ void gelu(const float* __restrict__ x, usize x_len, float* y, usize y_len) {
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < y_len) {
        BOUNDS(i, x_len);
        float v = x[i];
        float inner = 0.7978846f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}
