// Floating-point and integer semantics (tests/suite/cpu_math.rs): every result is compared
// with an independent host computation.

// Directed rounding: o[i*24 + k] holds op k on (a[i], b[i], c[i]).
extern "C" __global__ void rounding32(const float* a, const float* b, const float* c, float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  float* r = o + i * 24;
  r[0] = __fadd_rn(x, y); r[1] = __fadd_rz(x, y); r[2] = __fadd_rd(x, y); r[3] = __fadd_ru(x, y);
  r[4] = __fmul_rn(x, y); r[5] = __fmul_rz(x, y); r[6] = __fmul_rd(x, y); r[7] = __fmul_ru(x, y);
  r[8] = __fdiv_rn(x, y); r[9] = __fdiv_rz(x, y); r[10] = __fdiv_rd(x, y); r[11] = __fdiv_ru(x, y);
  r[12] = __fsqrt_rn(fabsf(x)); r[13] = __fsqrt_rz(fabsf(x)); r[14] = __fsqrt_rd(fabsf(x)); r[15] = __fsqrt_ru(fabsf(x));
  r[16] = __fmaf_rn(x, y, z); r[17] = __fmaf_rz(x, y, z); r[18] = __fmaf_rd(x, y, z); r[19] = __fmaf_ru(x, y, z);
  r[20] = __frcp_rn(x); r[21] = __frcp_rz(x); r[22] = __frcp_rd(x); r[23] = __frcp_ru(x);
}

extern "C" __global__ void rounding64(const double* a, const double* b, const double* c, double* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i], z = c[i];
  double* r = o + i * 20;
  r[0] = __dadd_rn(x, y); r[1] = __dadd_rz(x, y); r[2] = __dadd_rd(x, y); r[3] = __dadd_ru(x, y);
  r[4] = __dmul_rn(x, y); r[5] = __dmul_rz(x, y); r[6] = __dmul_rd(x, y); r[7] = __dmul_ru(x, y);
  r[8] = __ddiv_rn(x, y); r[9] = __ddiv_rz(x, y); r[10] = __ddiv_rd(x, y); r[11] = __ddiv_ru(x, y);
  r[12] = __dsqrt_rn(fabs(x)); r[13] = __dsqrt_rz(fabs(x)); r[14] = __dsqrt_rd(fabs(x)); r[15] = __dsqrt_ru(fabs(x));
  r[16] = __fma_rn(x, y, z); r[17] = __fma_rz(x, y, z); r[18] = __fma_rd(x, y, z); r[19] = __fma_ru(x, y, z);
}

// Conversions: o[i*20 + k].
extern "C" __global__ void conversions(const float* a, const double* d, const long long* l, long long* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  double y = d[i];
  long long v = l[i];
  long long* r = o + i * 20;
  r[0] = __float2int_rn(x); r[1] = __float2int_rz(x); r[2] = __float2int_rd(x); r[3] = __float2int_ru(x);
  r[4] = __float2uint_rn(x); r[5] = __float2ll_rz(x); r[6] = __float2ull_rd(x); r[7] = __double2int_rn(y);
  r[8] = __double2ll_ru(y);
  r[9] = __float_as_int(__double2float_rn(y)); r[10] = __float_as_int(__double2float_rz(y));
  r[11] = __float_as_int(__double2float_rd(y)); r[12] = __float_as_int(__double2float_ru(y));
  r[13] = __float_as_int(__ll2float_rn(v)); r[14] = __float_as_int(__ll2float_rz(v));
  r[15] = __float_as_int(__ll2float_rd(v)); r[16] = __float_as_int(__ll2float_ru(v));
  r[17] = __double_as_longlong(__ll2double_rd(v)); r[18] = __double_as_longlong(__ull2double_ru((unsigned long long)v));
  unsigned short h, bf;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bf) : "f"(x));
  float hx, bx;
  asm("cvt.f32.f16 %0, %1;" : "=f"(hx) : "h"(h));
  asm("cvt.f32.bf16 %0, %1;" : "=f"(bx) : "h"(bf));
  r[19] = (long long)h | (long long)bf << 16 | (long long)(__float_as_int(hx) == __float_as_int(x)) << 32;
}

// Library math compiled to nvcc's own instruction sequences; o[i*8 + k].
extern "C" __global__ void library(const float* a, const double* d, float* o, double* od, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  double y = d[i];
  float* r = o + i * 8;
  r[0] = sinf(x); r[1] = cosf(x); r[2] = expf(x * 0.01f); r[3] = logf(fabsf(x) + 1.0f);
  r[4] = powf(fabsf(x) * 0.01f + 0.5f, 1.7f); r[5] = tanhf(x * 0.1f); r[6] = atan2f(x, 3.0f); r[7] = cbrtf(x);
  double* q = od + i * 4;
  q[0] = sin(y); q[1] = exp(y * 0.01); q[2] = log(fabs(y) + 1.0); q[3] = sqrt(fabs(y));
}

__device__ float ex2_approx(float x) { float r; asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }

// The .approx instructions behind the fast intrinsics.
extern "C" __global__ void fast(const float* a, float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  float* r = o + i * 6;
  r[0] = __sinf(x); r[1] = __cosf(x); r[2] = ex2_approx(x); r[3] = __log2f(fabsf(x) + 0.5f);
  r[4] = rsqrtf(fabsf(x) + 0.25f); r[5] = __fdividef(x, 3.0f);
}


// Integer intrinsics: o[i*16 + k].
extern "C" __global__ void integers(const unsigned* a, const unsigned* b, unsigned long long* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned long long X = (unsigned long long)x << 32 | y;
  unsigned long long* r = o + i * 16;
  r[0] = __popc(x); r[1] = __clz(x); r[2] = __brev(x); r[3] = __ffs(x);
  r[4] = __byte_perm(x, y, y & 0x7777); r[5] = (unsigned)__mulhi((int)x, (int)y); r[6] = __umulhi(x, y);
  r[7] = __umul64hi(X, X + 12345); r[8] = __sad((int)x, (int)y, 7u); r[9] = __funnelshift_l(x, y, y);
  r[10] = __funnelshift_rc(x, y, y); r[11] = (unsigned)((int)x / ((int)y | 1)) ^ ((int)x % ((int)y | 1));
  r[12] = X / (y | 1) + X % (x | 1); r[13] = __popcll(X) + __clzll(X) * 100 + __ffsll(X) * 10000;
  r[14] = __brevll(X); r[15] = (unsigned)__mul24((int)x, (int)y) ^ __umul24(x, y);
}
