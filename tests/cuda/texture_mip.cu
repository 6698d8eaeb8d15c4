// Mipmapped and cube-map texture reads on cudaTextureObject_t parameters, run on the CPU backend
// by tests/suite/cpu_texture_mip.rs against a host reference of the level-of-detail rules and
// the CUDA programming guide's cubemap table. Each thread reads at the coordinates (and level,
// or gradient scale) of one float4 of `c` and stores all four components.

extern "C" __global__ void base2d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<float4>(t, c[k].x, c[k].y);
}

extern "C" __global__ void lod1d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1DLod<float4>(t, c[k].x, c[k].w);
}

extern "C" __global__ void lod2d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DLod<float4>(t, c[k].x, c[k].y, c[k].w);
}

extern "C" __global__ void lod2d_u(cudaTextureObject_t t, const float4 *c, uint4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DLod<uint4>(t, c[k].x, c[k].y, c[k].w);
}

extern "C" __global__ void lod3d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex3DLod<float4>(t, c[k].x, c[k].y, c[k].z, c[k].w);
}

// The gradients: (w, 0) along x and (0, w / 2) along y (1-D: w and w / 2).
extern "C" __global__ void grad1d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1DGrad<float4>(t, c[k].x, c[k].w, c[k].w * 0.5f);
}

extern "C" __global__ void grad2d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DGrad<float4>(t, c[k].x, c[k].y, make_float2(c[k].w, 0.0f), make_float2(0.0f, c[k].w * 0.5f));
}

extern "C" __global__ void grad3d(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex3DGrad<float4>(t, c[k].x, c[k].y, c[k].z, make_float4(c[k].w, 0.0f, 0.0f, 0.0f), make_float4(0.0f, 0.0f, c[k].w * 0.5f, 0.0f));
}

extern "C" __global__ void layered2d_lod(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DLayeredLod<float4>(t, c[k].x, c[k].y, (int)c[k].z, c[k].w);
}

extern "C" __global__ void cube(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = texCubemap<float4>(t, c[k].x, c[k].y, c[k].z);
}

extern "C" __global__ void cube_layered(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = texCubemapLayered<float4>(t, c[k].x, c[k].y, c[k].z, (int)c[k].w);
}

extern "C" __global__ void cube_lod(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = texCubemapLod<float4>(t, c[k].x, c[k].y, c[k].z, c[k].w);
}

// A gradient along the direction's x and one along its y, each of length |w|.
extern "C" __global__ void cube_grad(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = texCubemapGrad<float4>(t, c[k].x, c[k].y, c[k].z, make_float4(c[k].w, 0.0f, 0.0f, 0.0f), make_float4(0.0f, c[k].w, 0.0f, 0.0f));
}
