// tests/suite/corpus/matmul.rs: C = A·B for n × n row-major matrices, 16 × 16 tiles staged in
// shared memory.
#include "common.cuh"

#define TILE 16

extern "C" __global__ void matmul(const float* __restrict__ a, usize a_len, const float* __restrict__ b, usize b_len, float* c, usize c_len, unsigned n32) {
    __shared__ float ta[TILE * TILE];
    __shared__ float tb[TILE * TILE];
    usize tx = threadIdx.x;
    usize ty = threadIdx.y;
    usize row = (usize)blockIdx.y * TILE + ty;
    usize col = (usize)blockIdx.x * TILE + tx;
    usize n = n32;
    float acc = 0.0f;
    usize tiles = (n + TILE - 1) / TILE;
    for (usize t = 0; t < tiles; t++) {
        usize ac = t * TILE + tx;
        usize br = t * TILE + ty;
        float va = 0.0f;
        if (row < n && ac < n) {
            BOUNDS(row * n + ac, a_len);
            va = a[row * n + ac];
        }
        BOUNDS(ty * TILE + tx, TILE * TILE);
        ta[ty * TILE + tx] = va;
        float vb = 0.0f;
        if (br < n && col < n) {
            BOUNDS(br * n + col, b_len);
            vb = b[br * n + col];
        }
        BOUNDS(ty * TILE + tx, TILE * TILE);
        tb[ty * TILE + tx] = vb;
        __syncthreads();
        for (usize k = 0; k < TILE; k++) {
            BOUNDS(ty * TILE + k, TILE * TILE);
            BOUNDS(k * TILE + tx, TILE * TILE);
            acc += ta[ty * TILE + k] * tb[k * TILE + tx];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        BOUNDS(row * n + col, c_len);
        c[row * n + col] = acc;
    }
}
