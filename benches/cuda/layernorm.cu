// tests/suite/corpus/layernorm.rs: row-wise layer normalisation, one thread per row.
#include "common.cuh"

extern "C" __global__ void layernorm(const float* __restrict__ x, usize x_len, const float* __restrict__ gamma, usize gamma_len, const float* __restrict__ beta, usize beta_len, float* y, usize y_len, unsigned rows, unsigned cols) {
    usize row = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    usize n = cols;
    if (row < (usize)rows) {
        usize base = row * n;
        float sum = 0.0f;
        for (usize j = 0; j < n; j++) {
            BOUNDS(base + j, x_len);
            sum += x[base + j];
        }
        float mean = sum / (float)n;
        float sq = 0.0f;
        for (usize j = 0; j < n; j++) {
            BOUNDS(base + j, x_len);
            float d = x[base + j] - mean;
            sq += d * d;
        }
        float inv = 1.0f / sqrtf(sq / (float)n + 1e-5f);
        for (usize j = 0; j < n; j++) {
            BOUNDS(base + j, x_len);
            BOUNDS(j, gamma_len);
            BOUNDS(j, beta_len);
            BOUNDS(base + j, y_len);
            y[base + j] = (x[base + j] - mean) * inv * gamma[j] + beta[j];
        }
    }
}
