// Warp-level mma.sync through inline asm, one warp per launch. Each kernel loads its fragments
// from row-major matrices in global memory with the PTX ISA's fragment layouts ("Matrix
// fragments for mma.m16n8k16 / m16n8k8 / m16n8k32"), written out element by element as the
// ISA's figures give them, runs the instruction, and stores D the same way. A result equal to
// the plain matrix product therefore checks the emulator's layouts and arithmetic together.

// A: 16x16, B: 16x8 (k rows, n columns), C, D: 16x8; elements are f16 or bf16 bits.
#define MMA_16BIT(NAME, TY)                                                                     \
extern "C" __global__ void NAME(const unsigned short *A, const unsigned short *B,              \
                                const float *C, float *D) {                                    \
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;                                       \
    unsigned a[4] = {0, 0, 0, 0}, b[2] = {0, 0};                                               \
    float c[4], d[4];                                                                          \
    for (int i = 0; i < 8; i++) {                                                              \
        int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;                                    \
        int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);                                          \
        a[i / 2] |= (unsigned)A[row * 16 + col] << (16 * (i & 1));                             \
    }                                                                                          \
    for (int i = 0; i < 4; i++) {                                                              \
        int row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);                                          \
        b[i / 2] |= (unsigned)B[row * 8 + g] << (16 * (i & 1));                                \
    }                                                                                          \
    for (int i = 0; i < 4; i++) c[i] = C[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)];           \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TY "." TY ".f32 "                    \
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                   \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                              \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),           \
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));                                \
    for (int i = 0; i < 4; i++) D[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)] = d[i];           \
}

MMA_16BIT(mma_f16, "f16")
MMA_16BIT(mma_bf16, "bf16")

// A: 16x8, B: 8x8, tf32 as f32 bits.
extern "C" __global__ void mma_tf32(const unsigned *A, const unsigned *B, const float *C, float *D) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    float c[4], d[4];
    a[0] = A[g * 8 + t];
    a[1] = A[(g + 8) * 8 + t];
    a[2] = A[g * 8 + t + 4];
    a[3] = A[(g + 8) * 8 + t + 4];
    b[0] = B[t * 8 + g];
    b[1] = B[(t + 4) * 8 + g];
    for (int i = 0; i < 4; i++) c[i] = C[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)] = d[i];
}

// A: 16x32, B: 32x8 bytes; C, D: 16x8 int.
#define MMA_8BIT(NAME, TA, TB, SAT)                                                             \
extern "C" __global__ void NAME(const unsigned char *A, const unsigned char *B,                \
                                const int *C, int *D) {                                        \
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;                                       \
    unsigned a[4] = {0, 0, 0, 0}, b[2] = {0, 0};                                               \
    int c[4], d[4];                                                                            \
    for (int i = 0; i < 16; i++) {                                                             \
        int row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;                                   \
        int col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);                                         \
        a[i / 4] |= (unsigned)A[row * 32 + col] << (8 * (i & 3));                              \
    }                                                                                          \
    for (int i = 0; i < 8; i++) {                                                              \
        int row = t * 4 + (i & 3) + (i >= 4 ? 16 : 0);                                         \
        b[i / 4] |= (unsigned)B[row * 8 + g] << (8 * (i & 3));                                 \
    }                                                                                          \
    for (int i = 0; i < 4; i++) c[i] = C[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)];           \
    asm volatile("mma.sync.aligned.m16n8k32.row.col" SAT ".s32." TA "." TB ".s32 "             \
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                   \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                              \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),           \
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                                \
    for (int i = 0; i < 4; i++) D[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)] = d[i];           \
}

MMA_8BIT(mma_s8s8, "s8", "s8", "")
MMA_8BIT(mma_u8u8, "u8", "u8", "")
MMA_8BIT(mma_s8u8, "s8", "u8", "")
MMA_8BIT(mma_s8s8_sat, "s8", "s8", ".satfinite")

// ldmatrix / stmatrix: M holds four 8x8 matrices of 16-bit elements, matrix i in rows 8i..8i+7
// of a 32x8 row-major array. Shared memory keeps them with a row stride of 16 elements (the
// second half of each row is padding), so the rows' addresses are not one contiguous block.
// Lane 8i+r supplies the address of row r of matrix i; R[lane * 4 + i] is lane's register i.
#define LDM(NAME, X, TRANS, OUTS, REGS)                                                         \
extern "C" __global__ void NAME(const unsigned short *M, unsigned *R) {                        \
    __shared__ __align__(16) unsigned short s[32 * 16];                                        \
    int lane = threadIdx.x;                                                                    \
    for (int i = lane; i < 32 * 8; i += 32) s[(i / 8) * 16 + i % 8] = M[i];                    \
    __syncwarp();                                                                              \
    unsigned r[4] = {0, 0, 0, 0};                                                              \
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[lane * 16]);                         \
    asm volatile("ldmatrix.sync.aligned.m8n8." X TRANS ".shared.b16 " REGS ", [%" #OUTS "];"  \
                 : LDM_OUT_##OUTS : "r"(addr));                                                \
    for (int i = 0; i < 4; i++) R[lane * 4 + i] = r[i];                                        \
}
#define LDM_OUT_1 "=r"(r[0])
#define LDM_OUT_2 "=r"(r[0]), "=r"(r[1])
#define LDM_OUT_4 "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])

LDM(ldm_x1, "x1", "", 1, "{%0}")
LDM(ldm_x2, "x2", "", 2, "{%0,%1}")
LDM(ldm_x4, "x4", "", 4, "{%0,%1,%2,%3}")
LDM(ldm_x1_trans, "x1", ".trans", 1, "{%0}")
LDM(ldm_x2_trans, "x2", ".trans", 2, "{%0,%1}")
LDM(ldm_x4_trans, "x4", ".trans", 4, "{%0,%1,%2,%3}")

// stmatrix (sm_90): lane's register i is R[lane * 4 + i]; the warp stores the matrices into
// shared memory (row stride 16 elements) and M receives them as a 32x8 row-major array
// (matrices beyond .xN stay zero).
#define STM(NAME, X, TRANS, INS, REGS)                                                          \
extern "C" __global__ void NAME(const unsigned *R, unsigned short *M) {                        \
    __shared__ __align__(16) unsigned short s[32 * 16];                                        \
    int lane = threadIdx.x;                                                                    \
    for (int i = lane; i < 32 * 16; i += 32) s[i] = 0;                                         \
    __syncwarp();                                                                              \
    unsigned r[4];                                                                             \
    for (int i = 0; i < 4; i++) r[i] = R[lane * 4 + i];                                        \
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[lane * 16]);                         \
    STM_ASM(X, TRANS, INS, REGS)                                                               \
    __syncwarp();                                                                              \
    for (int i = lane; i < 32 * 8; i += 32) M[i] = s[(i / 8) * 16 + i % 8];                    \
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define STM_ASM(X, TRANS, INS, REGS)                                                            \
    asm volatile("stmatrix.sync.aligned.m8n8." X TRANS ".shared.b16 [%0], " REGS ";"          \
                 :: "r"(addr), STM_IN_##INS : "memory");
#else
#define STM_ASM(X, TRANS, INS, REGS) (void)r; (void)addr;
#endif
#define STM_IN_1 "r"(r[0])
#define STM_IN_2 "r"(r[0]), "r"(r[1])
#define STM_IN_4 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])

STM(stm_x1, "x1", "", 1, "{%1}")
STM(stm_x2, "x2", "", 2, "{%1,%2}")
STM(stm_x4, "x4", "", 4, "{%1,%2,%3,%4}")
STM(stm_x4_trans, "x4", ".trans", 4, "{%1,%2,%3,%4}")
STM(stm_x2_trans, "x2", ".trans", 2, "{%1,%2}")
