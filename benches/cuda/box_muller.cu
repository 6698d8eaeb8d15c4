// tests/suite/corpus/box_muller.rs: normal samples from uniform ones by the Box–Muller
// transform, one pair per thread.
#include "common.cuh"

extern "C" __global__ void box_muller(const float* __restrict__ u, usize u_len, float* z, usize z_len) {
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    if (2 * i + 1 < z_len) {
        BOUNDS(2 * i, u_len);
        BOUNDS(2 * i + 1, u_len);
        float u1 = u[2 * i], u2 = u[2 * i + 1];
        float r = sqrtf(-2.0f * logf(u1));
        float theta = 6.2831855f * u2;
        BOUNDS(2 * i, z_len);
        z[2 * i] = r * cosf(theta);
        BOUNDS(2 * i + 1, z_len);
        z[2 * i + 1] = r * sinf(theta);
    }
}
