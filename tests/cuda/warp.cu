// Warp-synchronous intrinsics and divergence (tests/suite/cpu_warp.rs).

// out[t*8 + k]: the k-th result of thread t.
extern "C" __global__ void shuffles(int* out) {
  int t = threadIdx.x;
  int lane = t % 32;
  int* o = out + t * 8;
  o[0] = __shfl_sync(0xffffffff, t * 10, 5);
  o[1] = __shfl_up_sync(0xffffffff, t, 3);
  o[2] = __shfl_down_sync(0xffffffff, t, 3);
  o[3] = __shfl_xor_sync(0xffffffff, t, 6);
  o[4] = __shfl_sync(0xffffffff, t, lane + 1, 8);      // width 8: within groups of 8
  o[5] = __shfl_down_sync(0xffffffff, t, 2, 16);
  o[6] = __shfl_up_sync(0xffffffff, t, 1, 4);
  // A warp-level sum by butterfly.
  int v = t;
  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  o[7] = v;
}

extern "C" __global__ void votes(const int* in, unsigned* out) {
  int t = threadIdx.x;
  int x = in[t];
  unsigned* o = out + t * 4;
  o[0] = __ballot_sync(0xffffffff, x > 10);
  o[1] = __all_sync(0xffffffff, x >= 0);
  o[2] = __any_sync(0xffffffff, x == 17);
  o[3] = __popc(__ballot_sync(0xffffffff, x & 1));
}

// Divergent code: each branch sees only its own lanes as active, and shuffles within a
// branch use that branch's mask.
extern "C" __global__ void divergent(unsigned* out) {
  int t = threadIdx.x;
  unsigned r;
  if (t % 3 == 0) {
    unsigned m = __activemask();
    r = m ^ __shfl_sync(m, (unsigned)t, 0);   // lane 0 is in this branch
  } else if (t % 3 == 1) {
    unsigned m = __activemask();
    r = m + __reduce_add_sync(m, (unsigned)t);
  } else {
    unsigned m = __activemask();
    __syncwarp(m);
    r = __ballot_sync(m, t > 16);
  }
  __syncwarp();
  out[t] = r + __activemask();
}

// Loops with different trip counts per lane reconverge, and matches count equal values.
extern "C" __global__ void loops(unsigned* out) {
  int t = threadIdx.x;
  int n = 0;
  for (int i = 0; i < t % 7; i++) n += i;
  unsigned conv = __activemask();
  unsigned any = __match_any_sync(0xffffffff, t % 4);
  int pred;
  unsigned all = __match_all_sync(0xffffffff, n >= 0 ? 1 : 0, &pred);
  out[t * 4 + 0] = n;
  out[t * 4 + 1] = conv;
  out[t * 4 + 2] = any;
  out[t * 4 + 3] = all + pred;
}

// __syncthreads_count / _and / _or (bar.red) and a barrier with a thread count.
extern "C" __global__ void block_votes(const int* in, int* out) {
  int x = in[threadIdx.x];
  int c = __syncthreads_count(x > 0);
  int a = __syncthreads_and(x > -5);
  int o = __syncthreads_or(x == 99);
  if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; }
}

// Each half warp synchronizes on its own member mask, as tiles of 16 threads do.
extern "C" __global__ void half_masks(int* out) {
  int t = threadIdx.x;
  unsigned m = (t % 32) < 16 ? 0x0000ffffu : 0xffff0000u;
  int v = t;
  for (int d = 8; d > 0; d /= 2) v += __shfl_down_sync(m, v, d, 16);
  out[2 * t] = v;
  out[2 * t + 1] = __ballot_sync(m, t % 3 == 0);
}
