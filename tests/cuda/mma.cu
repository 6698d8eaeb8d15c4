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
