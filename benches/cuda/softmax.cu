// tests/suite/corpus/softmax.rs: row softmax, one block per row; the row maximum and the sum
// of exponentials are reduced in shared memory.
//
// Rust's `f32::exp` on the device is compiled to the instructions nvcc emits for `expf`, so the
// twin calls `expf`.
#include "common.cuh"

extern "C" __global__ void __launch_bounds__(128) softmax(const float* __restrict__ x, usize x_len, float* y, usize y_len, unsigned cols) {
    __shared__ float red[128];
    usize row = blockIdx.x;
    usize tid = threadIdx.x;
    usize n = cols;
    usize threads = blockDim.x;
    usize base = row * n;
    float m = -INFINITY;
    usize j = tid;
    while (j < n) {
        BOUNDS(base + j, x_len);
        m = fmaxf(m, x[base + j]);
        j += threads;
    }
    BOUNDS(tid, 128);
    red[tid] = m;
    __syncthreads();
    usize s = threads / 2;
    while (s > 0) {
        if (tid < s) {
            BOUNDS(tid, 128);
            BOUNDS(tid + s, 128);
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
        s /= 2;
    }
    float row_max = red[0];
    __syncthreads();
    float sum = 0.0f;
    j = tid;
    while (j < n) {
        BOUNDS(base + j, x_len);
        float e = expf(x[base + j] - row_max);
        BOUNDS(base + j, y_len);
        y[base + j] = e;
        sum += e;
        j += threads;
    }
    BOUNDS(tid, 128);
    red[tid] = sum;
    __syncthreads();
    s = threads / 2;
    while (s > 0) {
        if (tid < s) {
            BOUNDS(tid, 128);
            BOUNDS(tid + s, 128);
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
        s /= 2;
    }
    float total = red[0];
    j = tid;
    while (j < n) {
        BOUNDS(base + j, y_len);
        y[base + j] = y[base + j] / total;
        j += threads;
    }
}
