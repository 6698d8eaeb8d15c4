// tests/suite/corpus/warp_reduce.rs: per warp, a sum by __shfl_down_sync (lane 0 has it), a
// maximum by __shfl_xor_sync (every lane has it) and a ballot of positive lanes.
#include "common.cuh"

extern "C" __global__ void warp_reduce(const float* __restrict__ x, usize x_len, float* sums, usize sums_len, float* maxes, usize maxes_len, unsigned* ballots, usize ballots_len) {
    usize i = (usize)(blockIdx.x * blockDim.x + threadIdx.x);
    float v = 0.0f;
    if (i < x_len) {
        BOUNDS(i, x_len);
        v = x[i];
    }
    float sum = v;
    unsigned offset = 16;
    while (offset > 0) {
        sum += __shfl_down_sync(0xffffffff, sum, offset);
        offset /= 2;
    }
    float m = v;
    for (int k = 0; k < 5; k++) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, 1 << k));
    }
    unsigned positive = __ballot_sync(0xffffffff, v > 0.0f);
    usize w = i / 32;
    unsigned lane = threadIdx.x % 32;
    if (lane == 0) {
        BOUNDS(w, sums_len);
        sums[w] = sum;
        BOUNDS(w, ballots_len);
        ballots[w] = positive;
    }
    if (lane == 31) {
        BOUNDS(w, maxes_len);
        maxes[w] = m;
    }
}
