// `warpSize` (nvcc writes the predefined identifier WARP_SZ) and cooperative groups' tiles,
// the constructs of NVIDIA's `reduction` and `shfl_scan` samples (tests/suite/cpu_cg.rs).
// Multi-warp tiles keep their scratch in the reserved shared memory that
// `%reserved_smem_offset_1` points to (sm_80 and newer).

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// out[3t..3t+3]: warpSize, the lane and the warp index computed from it.
extern "C" __global__ void warp_size(int *out) {
  int t = threadIdx.x;
  out[3 * t] = warpSize;
  out[3 * t + 1] = t % warpSize;
  out[3 * t + 2] = t / warpSize;
}

// Sums within tiles of 32 and of 16 threads by shfl_down; lane 0 of each tile writes its
// tile's sum at the tile's meta-group rank (one slot per tile of the grid).
template <unsigned Size>
__device__ void tile_sums(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<Size> tile = cg::tiled_partition<Size>(block);
  int v = in[blockIdx.x * blockDim.x + block.thread_rank()];
  for (int d = tile.size() / 2; d > 0; d /= 2) {
    v += tile.shfl_down(v, d);
  }
  tile.sync();
  if (tile.thread_rank() == 0) {
    out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
  }
}

extern "C" __global__ void tile32_sums(const int *in, int *out) { tile_sums<32>(in, out); }
extern "C" __global__ void tile16_sums(const int *in, int *out) { tile_sums<16>(in, out); }

// Tiles of 64 threads (two warps): cg::reduce, a shuffle from the tile's thread 5, the
// ranks, and a sync between them. All of these go through the reserved scratch.
extern "C" __global__ void tile64(const int *in, int *sum, int *bcast, int *rank) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> t = cg::tiled_partition<64>(block);
  unsigned i = blockIdx.x * blockDim.x + block.thread_rank();
  int v = in[i];
  int s = cg::reduce(t, v, cg::plus<int>());
  t.sync();
  int b = t.shfl(v * 3, 5);
  sum[i] = s;
  bcast[i] = b;
  rank[i] = t.thread_rank() + 1000 * t.meta_group_rank();
}

// The reduction sample's shape: two loads per thread, a tree in shared memory down to one
// warp, then shfl_down within a tile of 32 (loop bounds from warpSize and tile.size()).
extern "C" __global__ void reduce_cg(const int *in, int *out, unsigned n) {
  cg::thread_block cta = cg::this_thread_block();
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int sum = (i < n) ? in[i] : 0;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  cg::sync(cta);
  for (unsigned s = blockDim.x / 2; s >= (unsigned)warpSize; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) {
      sum += tile32.shfl_down(sum, offset);
    }
  }
  if (cta.thread_rank() == 0) out[blockIdx.x] = sum;
}

// The reduction sample's multi-warp variant: the block handle made from block_tile_memory
// (empty from sm_80 on, where the reserved region serves instead), cg::reduce over tiles of
// 128 threads, then thread 0 adds the tiles' results. Each thread's value also waits in
// dynamic shared memory across the reduce, and thread 0 adds those too: if the tiles'
// scratch overlapped the kernel's own shared memory, the second sum would differ.
// For blocks of up to 256 threads; dynamic shared: (blockDim.x + blockDim.x / 128) ints.
extern "C" __global__ void reduce_multi_warp(const int *in, int *out, unsigned n) {
  __shared__ cg::block_tile_memory<256> scratch;
  cg::thread_block cta = cg::this_thread_block(scratch);
  extern __shared__ int sdata[];
  int *tile_sums = sdata + blockDim.x;
  cg::thread_block_tile<128> tile = cg::tiled_partition<128>(cta);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (i < n) ? in[i] : 0;
  sdata[threadIdx.x] = v;
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = s;
  cg::sync(cta);
  if (cta.thread_rank() == 0) {
    int total = 0, kept = 0;
    for (unsigned k = 0; k < tile.meta_group_size(); k++) total += tile_sums[k];
    for (unsigned k = 0; k < blockDim.x; k++) kept += sdata[k];
    out[2 * blockIdx.x] = total;
    out[2 * blockIdx.x + 1] = kept;
  }
}

// The shfl_scan sample's shape: an inclusive scan per warp by __shfl_up_sync (lane and warp
// from warpSize), the warps' totals scanned by the first warp through shared memory, and each
// block's total written to `partial`.
extern "C" __global__ void shfl_scan(int *data, int width, int *partial) {
  extern __shared__ int sums[];
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = id % warpSize;
  int warp = threadIdx.x / warpSize;
  int value = data[id];
  for (int i = 1; i <= width; i *= 2) {
    int n = __shfl_up_sync(0xffffffff, value, i, width);
    if (lane >= i) value += n;
  }
  if (threadIdx.x % warpSize == warpSize - 1) sums[warp] = value;
  __syncthreads();
  int warps = blockDim.x / warpSize;
  if (warp == 0 && lane < warps) {
    int warp_sum = sums[lane];
    unsigned mask = (1u << warps) - 1;
    for (int i = 1; i <= warps; i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, warps);
      if (lane >= i) warp_sum += n;
    }
    sums[lane] = warp_sum;
  }
  __syncthreads();
  if (warp > 0) value += sums[warp - 1];
  data[id] = value;
  if (partial != nullptr && threadIdx.x == blockDim.x - 1) partial[blockIdx.x] = value;
}

// A grid barrier (cooperative launch): each round every thread reads a value written in the
// previous round by a thread of the next block, then the grid syncs before anyone overwrites.
// Without the barrier (or with blocks run one after another) the result differs.
extern "C" __global__ void grid_rounds(int *a, unsigned n, int rounds) {
  cg::grid_group g = cg::this_grid();
  unsigned i = g.thread_rank();
  for (int r = 0; r < rounds; r++) {
    int v = a[(i + blockDim.x + 1) % n] * 3 + (int)i;
    g.sync();
    a[i] = v;
    g.sync();
  }
}

// Block 0 leaves before the grid barrier the others wait at: a deadlock on any device.
extern "C" __global__ void grid_missing_block(int *a) {
  cg::grid_group g = cg::this_grid();
  if (blockIdx.x == 0) return;
  g.sync();
  a[g.thread_rank()] = 1;
}
