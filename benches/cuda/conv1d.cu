// tests/suite/corpus/conv1d.rs: a 9-tap "valid" 1-D convolution, one output per thread.
#include "common.cuh"

#define TAPS 9

extern "C" __global__ void conv1d(const float* __restrict__ x, usize x_len, const float* __restrict__ w, usize w_len, float* y, usize y_len) {
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < y_len) {
        float acc = 0.0f;
        for (usize k = 0; k < TAPS; k++) {
            BOUNDS(k, w_len);
            BOUNDS(i + k, x_len);
            acc += w[k] * x[i + k];
        }
        BOUNDS(i, y_len);
        y[i] = acc;
    }
}
