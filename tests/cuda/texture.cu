// Texture and surface reads and writes on cudaTextureObject_t / cudaSurfaceObject_t parameters,
// run on the CPU backend by tests/suite/cpu_texture.rs and compared with a host reference of the
// CUDA programming guide's texture-fetching formulas. Each thread samples at coordinates read
// from a buffer and stores all four components.

extern "C" __global__ void fetch1d_f(cudaTextureObject_t t, const int *i, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1Dfetch<float4>(t, i[k]);
}

extern "C" __global__ void fetch1d_i(cudaTextureObject_t t, const int *i, int4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1Dfetch<int4>(t, i[k]);
}

extern "C" __global__ void fetch1d_u(cudaTextureObject_t t, const int *i, uint4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1Dfetch<uint4>(t, i[k]);
}

extern "C" __global__ void tex1d_f(cudaTextureObject_t t, const float *x, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1D<float4>(t, x[k]);
}

extern "C" __global__ void tex2d_f(cudaTextureObject_t t, const float2 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<float4>(t, c[k].x, c[k].y);
}

extern "C" __global__ void tex2d_i(cudaTextureObject_t t, const float2 *c, int4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<int4>(t, c[k].x, c[k].y);
}

extern "C" __global__ void tex2d_u(cudaTextureObject_t t, const float2 *c, uint4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<uint4>(t, c[k].x, c[k].y);
}

extern "C" __global__ void tex3d_f(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex3D<float4>(t, c[k].x, c[k].y, c[k].z);
}

extern "C" __global__ void tex1d_layered_f(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1DLayered<float4>(t, c[k].x, (int)c[k].w);
}

extern "C" __global__ void tex2d_layered_f(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DLayered<float4>(t, c[k].x, c[k].y, (int)c[k].w);
}

extern "C" __global__ void tex2d_lod_f(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DLod<float4>(t, c[k].x, c[k].y, c[k].z);
}

extern "C" __global__ void tex2d_grad_f(cudaTextureObject_t t, const float4 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2DGrad<float4>(t, c[k].x, c[k].y, make_float2(c[k].z, 0.0f), make_float2(0.0f, c[k].w));
}

// One gather per component: the component is a template-free literal in the ISA (tld4.r/g/b/a).
extern "C" __global__ void gather_f(cudaTextureObject_t t, const float2 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        out[4 * k + 0] = tex2Dgather<float4>(t, c[k].x, c[k].y, 0);
        out[4 * k + 1] = tex2Dgather<float4>(t, c[k].x, c[k].y, 1);
        out[4 * k + 2] = tex2Dgather<float4>(t, c[k].x, c[k].y, 2);
        out[4 * k + 3] = tex2Dgather<float4>(t, c[k].x, c[k].y, 3);
    }
}

extern "C" __global__ void gather_i(cudaTextureObject_t t, const float2 *c, int4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2Dgather<int4>(t, c[k].x, c[k].y, 1);
}

// Surfaces: x in bytes, as CUDA's surf*D functions take it.
extern "C" __global__ void surf2d_copy_trap(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, const int2 *c, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        float v = surf2Dread<float>(src, c[k].x * 4, c[k].y, cudaBoundaryModeTrap);
        surf2Dwrite(v * 2.0f, dst, c[k].x * 4, c[k].y, cudaBoundaryModeTrap);
    }
}

extern "C" __global__ void surf2d_read_clamp(cudaSurfaceObject_t s, const int2 *c, float *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = surf2Dread<float>(s, c[k].x * 4, c[k].y, cudaBoundaryModeClamp);
}

extern "C" __global__ void surf2d_read_zero(cudaSurfaceObject_t s, const int2 *c, float *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = surf2Dread<float>(s, c[k].x * 4, c[k].y, cudaBoundaryModeZero);
}

extern "C" __global__ void surf2d_write_clamp(cudaSurfaceObject_t s, const int2 *c, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) surf2Dwrite(1000.0f + k, s, c[k].x * 4, c[k].y, cudaBoundaryModeClamp);
}

extern "C" __global__ void surf2d_write_zero(cudaSurfaceObject_t s, const int2 *c, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) surf2Dwrite(1000.0f + k, s, c[k].x * 4, c[k].y, cudaBoundaryModeZero);
}

// Vector and narrow elements, 1-D and 3-D.
extern "C" __global__ void surf1d_uchar4(cudaSurfaceObject_t s, const int *x, uchar4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        uchar4 v = surf1Dread<uchar4>(s, x[k] * 4, cudaBoundaryModeZero);
        out[k] = v;
        surf1Dwrite(make_uchar4(v.w, v.z, v.y, v.x), s, x[k] * 4, cudaBoundaryModeZero);
    }
}

extern "C" __global__ void surf3d_short2(cudaSurfaceObject_t s, const int4 *c, short2 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        out[k] = surf3Dread<short2>(s, c[k].x * 4, c[k].y, c[k].z, cudaBoundaryModeClamp);
        surf3Dwrite(make_short2(k, -k), s, c[k].x * 4, c[k].y, c[k].z, cudaBoundaryModeClamp);
    }
}

extern "C" __global__ void surf2d_longlong(cudaSurfaceObject_t s, const int2 *c, long long *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = surf2Dread<long long>(s, c[k].x * 8, c[k].y, cudaBoundaryModeTrap);
}

extern "C" __global__ void surf2d_float4(cudaSurfaceObject_t s, const int2 *c, float4 *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        float4 v = surf2Dread<float4>(s, c[k].x * 16, c[k].y, cudaBoundaryModeTrap);
        out[k] = v;
        surf2Dwrite(make_float4(v.w, v.z, v.y, v.x), s, c[k].x * 16, c[k].y, cudaBoundaryModeTrap);
    }
}
