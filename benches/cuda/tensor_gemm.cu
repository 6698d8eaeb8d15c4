// tests/suite/corpus/tensor_gemm_kernel.rs (the kernel of examples/tensor_gemm.rs): C = A·B,
// f16 in, f32 accumulated. Each block of four warps computes a 32 × 32 tile of C; per 32-wide
// step of k, the block stages A's and B's 32 × 32 tiles in dynamic shared memory with 16-byte
// cp.async copies, each warp loads its fragments with ldmatrix and multiplies with two
// mma.sync.m16n8k16, accumulating in registers.
//
// Written as CUDA users write it with CUTLASS's atoms, in inline asm: SM80_CP_ASYNC_CACHEGLOBAL
// (cp.async.cg, 16 bytes), cp_async_fence / cp_async_wait<0> (commit_group, wait_all),
// SM75_U32x4_LDSM_N and SM75_U16x8_LDSM_T (ldmatrix.x4, .x4.trans), SM80_16x8x16_F32F16F16F32_TN
// (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32), cutlass::arch::LaneId (%laneid).
// Step for step what the Rust kernel's wmma:: calls do (ptx-runtime/src/device/wmma.rs), with
// its bounds checks as BOUNDS: the global units read, the shared units written (the dynamic
// shared memory's length is %dynamic_smem_size / 16, as ours reads it), and the final assert.
#include "common.cuh"

#define T 32

typedef unsigned short half_bits;

__device__ __forceinline__ unsigned lane_id() {
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src));
}

// One warp's 16 × 16 A tile (row-major, leading dimension ldm) as an m16n8k16 A fragment.
__device__ __forceinline__ void load_matrix_a_shared(unsigned (&a)[4], const half_bits* p, usize ldm) {
    usize l = lane_id();
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(smem_u32(p + (l % 16) * ldm + 8 * (l / 16))));
}

// One warp's 16 × 16 B tile (row-major k × n) as two m16n8k16 B fragments (columns 0–7, 8–15).
__device__ __forceinline__ void load_matrix_b_shared(unsigned (&b)[2][2], const half_bits* p, usize ldm) {
    usize l = lane_id();
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(b[0][0]), "=r"(b[0][1]), "=r"(b[1][0]), "=r"(b[1][1])
                 : "r"(smem_u32(p + (l % 16) * ldm + 8 * (l / 16))));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
}

extern "C" __global__ void tensor_gemm(const uint4* __restrict__ a, usize a_len, const uint4* __restrict__ b, usize b_len, float* c, usize c_len, unsigned n32) {
    // A's tile (32 rows of 4 units of 8 halves), then B's: written as 16-byte units by
    // cp.async, read as halves by ldmatrix.
    extern __shared__ uint4 s[];
    const half_bits* h = (const half_bits*)s;
    unsigned smem_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem_bytes));
    usize s_len = smem_bytes / 16;
    (void)s_len;  // read by BOUNDS only, which -DNDEBUG compiles out
    usize t = threadIdx.x;
    usize warp = t / 32;
    usize wm = warp / 2, wn = warp % 2;
    usize n = n32;
    usize units = n / 8;
    usize bm = (usize)blockIdx.y * T, bn = (usize)blockIdx.x * T;
    usize r = t / 4, u = t % 4;
    float acc[2][4] = {};
    for (usize kt = 0; kt < n / T; kt++) {
        // Thread t copies unit u of row r of each tile.
        usize ia = (bm + r) * units + kt * 4 + u;
        BOUNDS(t, s_len);
        BOUNDS(ia, a_len);
        cp_async_16(&s[t], &a[ia]);
        usize ib = (kt * T + r) * units + bn / 8 + u;
        BOUNDS(128 + t, s_len);
        BOUNDS(ib, b_len);
        cp_async_16(&s[128 + t], &b[ib]);
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_all;\n" ::);
        __syncthreads();
        const half_bits* pa = h;
        const half_bits* pb = h + T * T;
        for (usize kk = 0; kk < 2; kk++) {
            unsigned fa[4], fb[2][2];
            load_matrix_a_shared(fa, pa + wm * 16 * T + kk * 16, T);
            load_matrix_b_shared(fb, pb + kk * 16 * T + wn * 16, T);
            mma_16816(acc[0], fa, fb[0]);
            mma_16816(acc[1], fa, fb[1]);
        }
        __syncthreads();
    }
    usize at = (bm + wm * 16) * n + bn + wn * 16;
    assert(at + 15 * n + 16 <= c_len);
    // store_matrix_sync: element i of lane l's accumulators is at (l/4 + 8(i/2), 2(l%4) + i%2)
    // of each 16 × 8 half.
    usize lane = lane_id();
    float* p = c + at;
    for (usize i = 0; i < 4; i++) {
        usize row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
        p[row * n + col] = acc[0][i];
        p[row * n + 8 + col] = acc[1][i];
    }
}
