//! nvcc's PTX for `warpSize` and cooperative groups' tiles — the constructs of NVIDIA's
//! `reduction` and `shfl_scan` samples (which, compiled unmodified, load and give their
//! results too; their sources are not part of this repository) — runs on the CPU backend with results equal to host
//! computations. `warpSize` is the predefined identifier `WARP_SZ` in PTX; tiles of 64 threads
//! keep their scratch in the reserved shared memory `%reserved_smem_offset_1` points to, next
//! to the kernel's own dynamic shared memory. Sources: `tests/cuda/coop_groups.cu`, compiled
//! for sm_80 and sm_90 (cooperative groups use the reserved region from sm_80 on).

use crate::cpu_harness::{arg, nvcc_archs_cccl, Harness};

const SRC: &str = include_str!("../cuda/coop_groups.cu");

/// With a watchdog: tiles of several warps wait on barriers in their scratch, so scratch
/// that other data overwrote would spin forever instead of failing.
fn modules() -> Vec<Harness> {
    let v: Vec<Harness> = nvcc_archs_cccl("cpu_cg", SRC, &["sm_80", "sm_90"]).iter().map(|p| Harness::new(p)).collect();
    for k in &v {
        k.dev.set_watchdog(Some(std::time::Duration::from_secs(60)));
    }
    v
}

/// Small signed values, different for every index.
fn input(n: usize) -> Vec<i32> {
    (0..n).map(|i| ((i as i64 * 7919 + 13) % 201 - 100) as i32).collect()
}

/// The constructs these tests are about are in nvcc's output (or the tests prove nothing).
#[test]
fn nvcc_writes_warp_sz_and_the_reserved_offset() {
    for ptx in nvcc_archs_cccl("cpu_cg_ptx", SRC, &["sm_80", "sm_90"]) {
        assert!(ptx.contains("WARP_SZ"), "nvcc no longer writes WARP_SZ for warpSize");
        assert!(ptx.contains("%reserved_smem_offset_1"), "multi-warp tiles no longer use the reserved region");
    }
}

#[test]
fn warp_size_is_32() {
    for mut k in modules() {
        let n = 96;
        let out = k.zeroed::<i32>(3 * n);
        k.launch("warp_size", [1, 1, 1], [n as u32, 1, 1], 0, &[out.ptr()]).unwrap();
        let o: Vec<i32> = k.download(out);
        for t in 0..n {
            assert_eq!(&o[3 * t..3 * t + 3], &[32, t as i32 % 32, t as i32 / 32], "thread {t}");
        }
    }
}

#[test]
fn tiles_of_32_and_16_sum_by_shfl_down() {
    for mut k in modules() {
        let (blocks, threads) = (3usize, 128usize);
        let x = input(blocks * threads);
        let din = k.upload(&x);
        for (kernel, size) in [("tile32_sums", 32), ("tile16_sums", 16)] {
            let out = k.zeroed::<i32>(x.len() / size);
            k.launch(kernel, [blocks as u32, 1, 1], [threads as u32, 1, 1], 0, &[din.ptr(), out.ptr()]).unwrap();
            let got: Vec<i32> = k.download(out);
            let want: Vec<i32> = x.chunks(size).map(|c| c.iter().sum()).collect();
            assert_eq!(got, want, "{kernel}");
        }
    }
}

#[test]
fn tiles_of_64_span_two_warps() {
    for mut k in modules() {
        let (blocks, threads) = (2usize, 192usize);
        let n = blocks * threads;
        let x = input(n);
        let din = k.upload(&x);
        let (sum, bcast, rank) = (k.zeroed::<i32>(n), k.zeroed::<i32>(n), k.zeroed::<i32>(n));
        k.launch("tile64", [blocks as u32, 1, 1], [threads as u32, 1, 1], 0, &[din.ptr(), sum.ptr(), bcast.ptr(), rank.ptr()]).unwrap();
        let (sum, bcast, rank): (Vec<i32>, Vec<i32>, Vec<i32>) = (k.download(sum), k.download(bcast), k.download(rank));
        for i in 0..n {
            let tile = i / 64;
            let first = tile * 64;
            let in_block = i % threads;
            assert_eq!(sum[i], x[first..first + 64].iter().sum::<i32>(), "sum, thread {i}");
            assert_eq!(bcast[i], x[first + 5] * 3, "shfl from the tile's thread 5, thread {i}");
            assert_eq!(rank[i], (in_block % 64) as i32 + 1000 * (in_block / 64) as i32, "ranks, thread {i}");
        }
    }
}

#[test]
fn reduction_sample_kernels() {
    for mut k in modules() {
        let n = 5000usize;
        let x = input(n);
        let din = k.upload(&x);
        // reduce_cg: two elements per thread, 256 threads, a tree down to a tile of 32.
        let threads = 256usize;
        let blocks = n.div_ceil(threads * 2);
        let out = k.zeroed::<i32>(blocks);
        k.launch("reduce_cg", [blocks as u32, 1, 1], [threads as u32, 1, 1], threads as u32 * 4, &[din.ptr(), out.ptr(), arg(n as u32)]).unwrap();
        let got: Vec<i32> = k.download(out);
        let want: Vec<i32> = x.chunks(threads * 2).map(|c| c.iter().sum()).collect();
        assert_eq!(got, want, "reduce_cg");
        // reduce_multi_warp: cg::reduce over tiles of 128; the threads' values kept in dynamic
        // shared memory across it (which must not overlap the tiles' scratch in the reserved
        // region) and the tiles' sums after them.
        let blocks = n.div_ceil(threads);
        let out = k.zeroed::<i32>(2 * blocks);
        let shared = (threads + threads / 128) as u32 * 4;
        k.launch("reduce_multi_warp", [blocks as u32, 1, 1], [threads as u32, 1, 1], shared, &[din.ptr(), out.ptr(), arg(n as u32)]).unwrap();
        let got: Vec<i32> = k.download(out);
        let want: Vec<i32> = x.chunks(threads).flat_map(|c| [c.iter().sum(), c.iter().sum()]).collect();
        assert_eq!(got, want, "reduce_multi_warp");
    }
}

#[test]
fn shfl_scan_sample_kernel() {
    for mut k in modules() {
        let (blocks, threads) = (4usize, 256usize);
        let x = input(blocks * threads);
        let data = k.upload(&x);
        let partial = k.zeroed::<i32>(blocks);
        let warps = (threads / 32) as u32;
        k.launch("shfl_scan", [blocks as u32, 1, 1], [threads as u32, 1, 1], warps * 4, &[data.ptr(), arg(32i32), partial.ptr()]).unwrap();
        let got: Vec<i32> = k.download(data);
        let mut want = Vec::new();
        for block in x.chunks(threads) {
            want.extend(block.iter().scan(0, |acc, v| {
                *acc += v;
                Some(*acc)
            }));
        }
        assert_eq!(got, want, "inclusive scan per block");
        let totals: Vec<i32> = k.download(partial);
        assert_eq!(totals, x.chunks(threads).map(|c| c.iter().sum()).collect::<Vec<i32>>(), "block totals");
    }
}

/// `grid_rounds`'s result computed on the host: each round, every element becomes
/// `3 · a[(i + block + 1) mod n] + i`, all read before any is written.
pub fn grid_rounds_reference(a: &[i32], block: usize, rounds: usize) -> Vec<i32> {
    let n = a.len();
    let mut a = a.to_vec();
    for _ in 0..rounds {
        a = (0..n).map(|i| a[(i + block + 1) % n].wrapping_mul(3).wrapping_add(i as i32)).collect();
    }
    a
}

fn cooperative(k: &Harness, entry: &str, grid: u32, block: u32, params: &[Vec<u8>]) -> Result<(), ptx_runtime::Error> {
    let p: Vec<&[u8]> = params.iter().map(Vec::as_slice).collect();
    k.dev.launch_cooperative(&k.module, entry, [grid, 1, 1], [block, 1, 1], (0, None), &p).map_err(ptx_runtime::Error::from)
}

/// nvcc's `this_grid().sync()` reads the grid workspace from `%envreg1:2`: a cooperative
/// launch gives it one and the blocks meet at the barrier, every block of the grid interleaved
/// with the others — with one worker, eight blocks (run one after another they would wait
/// forever for the blocks after them).
#[test]
fn nvcc_grid_sync_runs_cooperatively_with_blocks_interleaved() {
    for mut k in modules() {
        for workers in [1, 3] {
            k.dev.set_parallelism(workers);
            let (blocks, threads, rounds) = (8usize, 64usize, 5usize);
            let x = input(blocks * threads);
            let a = k.upload(&x);
            cooperative(&k, "grid_rounds", blocks as u32, threads as u32, &[a.ptr(), arg((blocks * threads) as u32), arg(rounds as i32)]).unwrap();
            let got: Vec<i32> = k.download(a);
            assert_eq!(got, grid_rounds_reference(&x, threads, rounds), "{workers} worker(s)");
        }
    }
}

/// Outside a cooperative launch the workspace is 0 and cooperative groups trap, as on a GPU;
/// a grid larger than the device holds at once is refused before it runs.
#[test]
fn nvcc_grid_sync_needs_a_cooperative_launch_that_fits() {
    for mut k in modules() {
        k.dev.set_parallelism(2);
        let a = k.zeroed::<i32>(128);
        let r = k.launch("grid_rounds", [2, 1, 1], [64, 1, 1], 0, &[a.ptr(), arg(128u32), arg(1i32)]);
        assert!(matches!(r, Err(ptx_runtime::Error::Fault(ref f)) if f.kind == ptx_runtime::FaultKind::Trap), "{r:?}");
        // sm_80/sm_90 hold 2048 threads per SM: 32 blocks of 64 per worker, 64 in all.
        let per_sm = k.module.max_active_blocks("grid_rounds", 64, 0).unwrap();
        let most = per_sm * 2;
        let big = k.zeroed::<i32>((most as usize + 1) * 64);
        let n = arg(((most + 1) * 64) as u32);
        let r = cooperative(&k, "grid_rounds", most + 1, 64, &[big.ptr(), n, arg(1i32)]);
        assert!(matches!(r, Err(ptx_runtime::Error::InvalidConfig { ref reason }) if reason.contains("resident")), "{r:?}");
    }
}

/// A block that leaves before the grid barrier leaves the others spinning: the hang detector
/// sees every block of the grid in a cycle and reports a deadlock, without the watchdog.
#[test]
fn a_grid_barrier_a_block_never_reaches_is_a_deadlock() {
    for mut k in modules() {
        k.dev.set_parallelism(1);
        k.dev.set_watchdog(Some(std::time::Duration::from_secs(600)));
        let a = k.zeroed::<i32>(4 * 32);
        let start = std::time::Instant::now();
        let f = crate::cpu_harness::fault(cooperative(&k, "grid_missing_block", 4, 32, &[a.ptr()]));
        assert_eq!(f.kind, ptx_runtime::FaultKind::Deadlock, "{f}");
        assert!(start.elapsed().as_secs() < 300, "found by the hang detector, not the watchdog");
    }
}
