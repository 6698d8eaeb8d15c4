// Atomics and memory ordering as nvcc emits them (tests/suite/cpu_atomics.rs).

extern "C" __global__ void histogram(const unsigned* data, int n, unsigned* bins, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] % nbins], 1u);
}

// Every integer atomic on global and shared memory; r[] gets the final values.
extern "C" __global__ void all_ops(int* g, unsigned long long* g64, float* gf, double* gd, int* r) {
  __shared__ int s[8];
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (threadIdx.x < 8) s[threadIdx.x] = threadIdx.x == 3 ? 0x7fffffff : (threadIdx.x == 6 ? -1 : 0);
  __syncthreads();
  atomicAdd(&g[0], t);
  atomicSub(&g[1], t);
  atomicMax(&g[2], t * 7 % 1000);
  atomicMin(&g[3], 500 - t);
  atomicAnd(&g[4], ~(1 << (t % 31)));
  atomicOr(&g[5], 1 << (t % 31));
  atomicXor(&g[6], t);
  atomicInc((unsigned*)&g[7], 100u);
  atomicDec((unsigned*)&g[8], 1000u);
  atomicCAS(&g[9], t - 1, t);  // a chain: only succeeds when g[9] == t-1
  atomicExch(&g[10], 42);
  atomicMax((unsigned*)&g[11], (unsigned)t * 2654435761u);
  atomicAdd(&g64[0], (unsigned long long)t << 33);
  atomicMax((long long*)&g64[1], (long long)t - 100);
  atomicCAS(&g64[2], 0ull, 0x123456789abcdefull);
  atomicAdd(gf, 0.25f);
  atomicAdd(gd, 0.125);
  atomicAdd(&s[0], t);
  atomicMax(&s[1], t);
  atomicMin(&s[3], t);
  atomicOr(&s[4], 1 << (t % 31));
  atomicInc((unsigned*)&s[5], 7u);
  atomicAnd(&s[6], ~(1 << (t % 31)));
  __syncthreads();
  if (threadIdx.x < 8) atomicAdd(&r[threadIdx.x], s[threadIdx.x]);
}

// Message passing between blocks: the producer writes data, then releases a flag; the
// consumer acquires the flag, then reads the data. Block 2k produces for block 2k+1.
extern "C" __global__ void message(int* data, int* flags, int* seen) {
  int pair = blockIdx.x / 2;
  if (threadIdx.x != 0) return;
  if (blockIdx.x % 2 == 0) {
    for (int k = 0; k < 16; k++) data[pair * 16 + k] = pair * 1000 + k;
    asm volatile("st.release.gpu.global.u32 [%0], 1;" :: "l"(flags + pair) : "memory");
  } else {
    int f;
    do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flags + pair) : "memory"); } while (f == 0);
    for (int k = 0; k < 16; k++) seen[pair * 16 + k] = data[pair * 16 + k];
  }
}

// The same inside one block, between warps: warp 1 waits for warp 0.
extern "C" __global__ void message_in_block(int* out) {
  __shared__ int data[32];
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x < 32) {
    data[threadIdx.x] = threadIdx.x * 3;
    __threadfence_block();
    if (threadIdx.x == 0) flag = 1;
  } else if (threadIdx.x == 32) {
    while (flag == 0) {}
    __threadfence_block();
    for (int k = 0; k < 32; k++) out[k] = data[k];
  }
}

// A spin lock from compare-and-swap protects a non-atomic counter; every thread of every
// block takes it, including threads of the same warp (safe since independent thread
// scheduling, sm_70).
__device__ void lock(int* m) { while (atomicCAS(m, 0, 1) != 0) {} __threadfence(); }
__device__ void unlock(int* m) { __threadfence(); atomicExch(m, 0); }
extern "C" __global__ void locked_count(int* mutex, volatile int* counter) {
  lock(mutex);
  *counter = *counter + 1;
  unlock(mutex);
}

// Scoped and ordered atomics through the PTX the guide's mapping tables give.
extern "C" __global__ void ordered(int* x, int* out) {
  int old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(x) : "memory");
  asm volatile("fence.sc.sys;" ::: "memory");
  asm volatile("atom.release.sys.global.or.b32 %0, [%1], 256;" : "=r"(old) : "l"(x + 1) : "memory");
  asm volatile("red.relaxed.cta.global.add.u32 [%0], 2;" :: "l"(x + 2) : "memory");
  asm volatile("fence.acq_rel.cta;" ::: "memory");
  asm volatile("atom.acquire.gpu.global.exch.b32 %0, [%1], 5;" : "=r"(old) : "l"(x + 3) : "memory");
  int v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(x + 4) : "memory");
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" :: "l"(out + threadIdx.x), "r"(v + 1) : "memory");
  unsigned short o16;
  asm volatile("atom.global.cas.b16 %0, [%1], 0, 7;" : "=h"(o16) : "l"(x + 5) : "memory");
}
