// Kernels that never return, one per kind of hang (tests/suite/cpu_hang.rs), and two that
// wait on each other correctly.

// Warp 0 spins on a flag warp 1 sets only after a barrier that warp 0 never reaches.
extern "C" __global__ void barrier_vs_spin(volatile int* flag) {
  if (threadIdx.x < 32) {
    while (*flag == 0) {}
  } else {
    __syncthreads();
    *flag = 1;
  }
}

// The same through shared memory.
extern "C" __global__ void barrier_vs_spin_shared(int* out) {
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  if (threadIdx.x < 32) {
    while (flag == 0) {}
  } else {
    __syncthreads();
    flag = 1;
  }
  out[threadIdx.x] = 1;
}

// One thread spins on a flag no thread writes; the others exit.
extern "C" __global__ void spin_alone(volatile int* flag) {
  if (threadIdx.x == 5) {
    while (*flag == 0) {}
  }
}

// An infinite loop (the empty asm keeps the compiler from deleting it).
extern "C" __global__ void forever(int* out) {
  out[threadIdx.x] = 1;
  for (;;) {
    asm volatile("");
  }
}

// A spin whose state never repeats (a counter): only the watchdog can end it.
extern "C" __global__ void count_forever(volatile int* flag, unsigned* out) {
  unsigned n = 0;
  while (*flag == 0) {
    n++;
  }
  out[0] = n;
}

// A spin lock whose holder waits at a barrier the spinners never reach.
extern "C" __global__ void lock_vs_barrier(int* lock, int* out) {
  if (threadIdx.x == 32) {
    atomicExch(lock, 1);
  }
  __syncthreads();
  if (threadIdx.x >= 32) {
    __syncthreads();  // the holder releases only after a second barrier
    if (threadIdx.x == 32) atomicExch(lock, 0);
  } else {
    while (atomicCAS(lock, 0, 1) != 0) {}
    out[threadIdx.x] = 1;
  }
}

// Block b waits for block b + 1; the last block goes first. Fine when every block has a host
// thread, a deadlock when the later block never starts.
extern "C" __global__ void wait_for_next_block(volatile int* flags) {
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    if (b + 1 < gridDim.x) {
      while (flags[b + 1] == 0) {}
    }
    flags[b] = 1;
  }
}

// Warp 1 hands warp 0 a value through shared memory after a long computation: a correct
// intra-block wait, which must not be mistaken for a hang.
extern "C" __global__ void slow_handoff(int* out, int rounds) {
  __shared__ volatile int flag;
  __shared__ volatile int value;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 32) {
    unsigned x = 1;
    for (int i = 0; i < rounds; i++) x = x * 1664525u + 1013904223u;
    value = (int)(x & 0xffff);
    __threadfence_block();
    flag = 1;
  } else if (threadIdx.x == 0) {
    while (flag == 0) {}
    out[0] = value;
  }
}

// Block 0 waits until every other block has counted itself, each after some work: correct
// while block 0 has a host thread of its own and the others share the rest.
extern "C" __global__ void wait_for_all(int* count, int* out, int rounds) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (atomicAdd(count, 0) < (int)gridDim.x - 1) {}
    out[0] = 1;
  } else {
    unsigned x = blockIdx.x;
    for (int i = 0; i < rounds; i++) x = x * 1664525u + 1013904223u;
    out[blockIdx.x] = (int)(x & 0xffff);
    atomicAdd(count, 1);
  }
}
