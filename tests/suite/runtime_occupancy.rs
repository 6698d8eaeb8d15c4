//! Occupancy (`Device::max_active_blocks_per_sm`, `Device::max_potential_block_size`,
//! `LaunchConfig::for_num_elems_max_occupancy`): the CPU backend's numbers against a
//! computation written here from the CUDA Programming Guide's per-architecture limits, the
//! chosen configuration launching correctly, and bad requests as `Err`.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, Error, Kernel, LaunchConfig};

#[kernel]
pub fn add_one(x: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] += 1;
    }
}

/// 12 KiB of static shared memory per block: on sm_75 (64 KiB per SM) five blocks fit.
#[kernel]
pub fn staged(x: &mut [f32]) {
    let mut stage = unsafe { shared_array::<f32, 3072>() };
    let t = thread_idx_x() as usize;
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        stage[t] = x[i];
        x[i] = stage[t] * 2.0;
    }
}

/// The same on sm_90, whose blocks each take 1 KiB more for the system.
#[kernel(sm = 90)]
pub fn staged_sm90(x: &mut [f32]) {
    let mut stage = unsafe { shared_array::<f32, 5120>() };
    let t = thread_idx_x() as usize;
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        stage[t] = x[i];
        x[i] = stage[t] * 2.0;
    }
}

#[kernel(launch_bounds(max_threads = 160))]
pub fn add_one_bounded(x: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] += 1;
    }
}

#[kernel(block = 96)]
pub fn add_one_fixed(x: &mut [u32]) {
    let i = (block_idx_x() * 96 + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] += 1;
    }
}

#[kernel(block = (8, 8))]
pub fn square_block(x: &mut [u32]) {
    let i = (block_idx_x() * 64 + thread_idx_y() * 8 + thread_idx_x()) as usize;
    if i < x.len() {
        x[i] += 1;
    }
}

/// Per SM, from the guide's table: (resident threads, resident blocks, shared bytes, bytes
/// reserved per block, allocation unit).
fn guide(sm: u32) -> (u32, u32, u32, u32, u32) {
    match sm {
        75 => (1024, 16, 64 << 10, 0, 256),
        90 => (2048, 32, 228 << 10, 1024, 128),
        _ => unreachable!(),
    }
}

/// Blocks per SM, written out independently of `ptx_abi`: whole warps against the thread
/// limit, the block limit, and shared memory rounded to the allocation unit.
fn expected_blocks(sm: u32, threads: u32, shared: u32) -> u32 {
    let (sm_threads, sm_blocks, sm_shared, reserved, unit) = guide(sm);
    let warps = threads.div_ceil(32);
    let by_threads = sm_threads / 32 / warps;
    let per_block = (shared + reserved).div_ceil(unit) * unit;
    let by_shared = sm_shared.checked_div(per_block).unwrap_or(u32::MAX);
    by_threads.min(sm_blocks).min(by_shared)
}

/// Checks every block size the kernel may have against [`expected_blocks`], and the suggested
/// size against the best of them.
fn check_kernel(kernel: &'static Kernel, sm: u32, static_shared: u32, sizes: std::ops::RangeInclusive<u32>) {
    let device = Device::cpu();
    let mut best = 0;
    for threads in sizes.clone() {
        let got = device.max_active_blocks_per_sm(kernel, threads, 0).unwrap();
        assert_eq!(got, expected_blocks(sm, threads, static_shared), "{} with {threads} threads", kernel.entry);
        best = best.max(got * threads);
    }
    let size = device.max_potential_block_size(kernel, 0).unwrap();
    assert!(sizes.contains(&size.block_threads), "{size:?}");
    let per_sm = expected_blocks(sm, size.block_threads, static_shared);
    assert_eq!(per_sm * size.block_threads, best, "{}: {size:?} does not maximise resident threads", kernel.entry);
    assert_eq!(size.min_grid % per_sm, 0, "{size:?}: a whole number of SMs");
}

#[test]
fn modules_assemble() {
    for (name, ptx) in [("add_one", add_one::PTX), ("staged", staged::PTX), ("staged_sm90", staged_sm90::PTX), ("add_one_bounded", add_one_bounded::PTX), ("add_one_fixed", add_one_fixed::PTX), ("square_block", square_block::PTX)] {
        assert!(assemble(name, ptx), "{name}");
    }
}

#[test]
fn blocks_per_sm_follow_the_guide() {
    check_kernel(&add_one::KERNEL, 75, 0, 1..=1024);
    // Shared memory limits: 12 KiB → 5 blocks, below the warp limit for small blocks.
    assert_eq!(Device::cpu().max_active_blocks_per_sm(&staged::KERNEL, 128, 0).unwrap(), 5);
    check_kernel(&staged::KERNEL, 75, 12 << 10, 1..=1024);
    // sm_90: 20 KiB + 1 KiB reserved per block → 10 blocks of 228 KiB.
    assert_eq!(Device::cpu().max_active_blocks_per_sm(&staged_sm90::KERNEL, 64, 0).unwrap(), 10);
    check_kernel(&staged_sm90::KERNEL, 90, 20 << 10, 1..=1024);
    // Dynamic shared memory counts with the static: 12 KiB + 20 KiB → 2 blocks.
    assert_eq!(Device::cpu().max_active_blocks_per_sm(&staged::KERNEL, 64, 20 << 10).unwrap(), expected_blocks(75, 64, 32 << 10));
    // Launch bounds: sizes above `max_threads` are not candidates.
    check_kernel(&add_one_bounded::KERNEL, 75, 0, 1..=160);
    // A fixed block has its one size.
    let fixed = Device::cpu().max_potential_block_size(&add_one_fixed::KERNEL, 0).unwrap();
    assert_eq!(fixed.block_threads, 96);
    assert_eq!(Device::cpu().max_active_blocks_per_sm(&add_one_fixed::KERNEL, 96, 0).unwrap(), expected_blocks(75, 96, 0));
}

#[test]
fn chosen_configuration_launches() {
    let stream = Device::cpu().stream();
    for kernel in [&add_one::KERNEL, &add_one_bounded::KERNEL, &add_one_fixed::KERNEL] {
        let n = 5000u32;
        let config = LaunchConfig::for_num_elems_max_occupancy(&stream, kernel, n).unwrap();
        let block = Device::cpu().max_potential_block_size(kernel, 0).unwrap().block_threads;
        assert_eq!((config.block.x, config.grid.x), (block, n.div_ceil(block)), "{}", kernel.entry);
        let host: Vec<u32> = (0..n).map(|i| i * 3).collect();
        let mut x = DeviceBuffer::from_slice(&stream, &host).unwrap();
        if std::ptr::eq(kernel, &add_one::KERNEL) {
            add_one::launch(&stream, config, &mut x).unwrap();
        } else if std::ptr::eq(kernel, &add_one_bounded::KERNEL) {
            add_one_bounded::launch(&stream, config, &mut x).unwrap();
        } else {
            add_one_fixed::launch(&stream, config, &mut x).unwrap();
        }
        assert_eq!(x.to_vec().unwrap(), host.iter().map(|v| v + 1).collect::<Vec<_>>(), "{}", kernel.entry);
    }
}

#[test]
fn bad_requests_are_errors() {
    let device = Device::cpu();
    let invalid = |r: ptx_runtime::Result<u32>, what: &str| match r {
        Err(Error::InvalidConfig { reason }) => reason,
        other => panic!("{what}: {other:?}"),
    };
    invalid(device.max_active_blocks_per_sm(&add_one::KERNEL, 0, 0), "block 0");
    invalid(device.max_active_blocks_per_sm(&add_one::KERNEL, 1025, 0), "block 1025");
    invalid(device.max_active_blocks_per_sm(&add_one::KERNEL, u32::MAX, 0), "block u32::MAX");
    // sm_75 gives a block at most 64 KiB; 12 KiB are static.
    assert!(device.max_active_blocks_per_sm(&staged::KERNEL, 32, 52 << 10).is_ok());
    let r = invalid(device.max_active_blocks_per_sm(&staged::KERNEL, 32, (52 << 10) + 1), "too much shared memory");
    assert!(r.contains("shared memory"), "{r}");
    invalid(device.max_active_blocks_per_sm(&add_one::KERNEL, 32, u32::MAX), "u32::MAX shared");
    assert!(device.max_potential_block_size(&add_one::KERNEL, u32::MAX).is_err());
    // Outside the launch bounds.
    invalid(device.max_active_blocks_per_sm(&add_one_bounded::KERNEL, 192, 0), "above max_threads");
    invalid(device.max_active_blocks_per_sm(&add_one_fixed::KERNEL, 128, 0), "not the fixed block");
    // A two-dimensional fixed block has no one-dimensional configuration.
    match LaunchConfig::for_num_elems_max_occupancy(&device.stream(), &square_block::KERNEL, 100) {
        Err(Error::InvalidConfig { reason }) => assert!(reason.contains("(8, 8, 1)"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(device.max_active_blocks_per_sm(&square_block::KERNEL, 64, 0).unwrap(), expected_blocks(75, 64, 0));
}

/// Every row of the limits table against CUDA's own occupancy calculator: `cuda_occupancy.h`,
/// the header-only calculator that ships next to nvcc, compiled with the host's C++ compiler
/// (the one nvcc uses) into a program that prints, per compute capability, the blocks an SM
/// holds and the shared-memory allocation unit.
#[test]
fn sm_limits_agree_with_cudas_occupancy_calculator() {
    use ptx_runtime::limits::SM_LIMITS;
    let Some(nvcc) = crate::tools::tool("NVCC", "nvcc", "the occupancy table against cuda_occupancy.h") else { return };
    let include = nvcc.parent().and_then(std::path::Path::parent).map(|d| d.join("include")).unwrap();
    assert!(include.join("cuda_occupancy.h").is_file(), "no cuda_occupancy.h next to {}", nvcc.display());
    let dir = crate::tools::scratch_dir("occupancy");
    let src = dir.join("occ.cpp");
    let rows: Vec<String> = SM_LIMITS.iter().map(|(sm, _)| format!("{{{}, {}}}", sm / 10, sm % 10)).collect();
    std::fs::write(
        &src,
        format!(
            "#include \"cuda_occupancy.h\"\n#include <stdio.h>\nint main() {{\n  int ccs[][2] = {{{}}};\n  for (auto &c : ccs) {{\n    cudaOccDeviceProp p;\n    p.computeMajor = c[0];\n    p.computeMinor = c[1];\n    int blocks = 0, unit = 0;\n    if (cudaOccMaxBlocksPerMultiprocessor(&blocks, &p) != CUDA_OCC_SUCCESS) return 1;\n    if (cudaOccSMemAllocationGranularity(&unit, &p) != CUDA_OCC_SUCCESS) return 1;\n    printf(\"%d%d %d %d\\n\", c[0], c[1], blocks, unit);\n  }}\n}}\n",
            rows.join(", ")
        ),
    )
    .unwrap();
    let exe = dir.join("occ");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let built = std::process::Command::new(&cxx).arg("-I").arg(&include).arg(&src).arg("-o").arg(&exe).output().expect("run the host C++ compiler");
    assert!(built.status.success(), "{cxx} failed on cuda_occupancy.h:\n{}", String::from_utf8_lossy(&built.stderr));
    let out = std::process::Command::new(&exe).output().expect("run the occupancy program");
    assert!(out.status.success(), "cuda_occupancy.h does not know one of our architectures");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), SM_LIMITS.len());
    for ((sm, row), line) in SM_LIMITS.iter().zip(lines) {
        let want = format!("{sm} {} {}", row.blocks, row.shared_granularity);
        assert_eq!(line, want, "sm_{sm}: cuda_occupancy.h says `{line}` (sm blocks unit), our table `{want}`");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
