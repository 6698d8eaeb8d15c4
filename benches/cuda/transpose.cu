// tests/suite/corpus/transpose.rs: matrix transpose through a padded 32 × 33 shared tile;
// blocks of 32 × 8 threads each move 32 × 32 elements.
#include "common.cuh"

#define T 32

extern "C" __global__ void transpose(const float* __restrict__ input, usize input_len, float* output, usize output_len, unsigned width, unsigned height) {
    __shared__ float tile[1056];
    usize bx = (usize)blockIdx.x * T;
    usize by = (usize)blockIdx.y * T;
    usize tx = threadIdx.x;
    usize ty = threadIdx.y;
    usize w = width;
    usize h = height;
    for (usize j = 0; j < T; j += 8) {
        usize x = bx + tx;
        usize y = by + ty + j;
        if (x < w && y < h) {
            BOUNDS(y * w + x, input_len);
            float v = input[y * w + x];
            BOUNDS((ty + j) * (T + 1) + tx, 1056);
            tile[(ty + j) * (T + 1) + tx] = v;
        }
    }
    __syncthreads();
    for (usize j = 0; j < T; j += 8) {
        usize x = by + tx;
        usize y = bx + ty + j;
        if (x < h && y < w) {
            BOUNDS(tx * (T + 1) + ty + j, 1056);
            float v = tile[tx * (T + 1) + ty + j];
            BOUNDS(y * h + x, output_len);
            output[y * h + x] = v;
        }
    }
}
