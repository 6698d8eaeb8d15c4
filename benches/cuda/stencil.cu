// tests/suite/corpus/stencil.rs: 2-D 5-point stencil on a width × height grid; the border is
// copied.
#include "common.cuh"

extern "C" __global__ void stencil(const float* __restrict__ in, usize in_len, float* out, usize out_len, unsigned width, unsigned height, float c0, float c1) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    usize w = width;
    usize i = (usize)y * w + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        BOUNDS(i, in_len);
        BOUNDS(i, out_len);
        out[i] = in[i];
    } else {
        BOUNDS(i, in_len);
        BOUNDS(i - 1, in_len);
        BOUNDS(i + 1, in_len);
        BOUNDS(i - w, in_len);
        BOUNDS(i + w, in_len);
        float v = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
        BOUNDS(i, out_len);
        out[i] = v;
    }
}
