//! Run time of the corpus kernels against nvcc's build of their CUDA C twins
//! (`benches/cuda/`), on the same inputs in the same process, and achieved bandwidth against a
//! device-to-device copy of the same size measured in the same run.
//!
//! ```text
//! gpu_timing [--nvcc-ptx DIR] [--out FILE.md]
//! ```
//!
//! - Device: `PTX_DEVICE` when set (`PTX_DEVICE=cpu` runs the whole harness on the CPU
//!   backend at small sizes, timed by the host clock: a smoke test, not a benchmark); else
//!   CUDA device 0; with no GPU it says it skipped and exits successfully.
//! - nvcc's PTX, two builds of each twin, each in a table of its own: `-DNDEBUG` (CUDA as
//!   people write it, no `assert`s) and checked (`assert`s on, as our bounds checks are).
//!   From `DIR/ndebug/<twin>.ptx` and `DIR/checked/<twin>.ptx` (`cargo xtask bench-gpu` and
//!   `cargo xtask gpu-pack` write them with `nvcc -ptx -O3 -fmad=false -arch=sm_80`, the
//!   `.version` lowered to one older drivers load), else compiled now with `$NVCC` or `nvcc`
//!   from `PATH`, else only ours is timed. Both builds are JIT-compiled by the driver.
//! - Each kernel: one launch whose output is compared between the two builds, 3 warm-up
//!   launches, then 20 launches each between two CUDA events; the median is reported.
//!   Arguments are encoded before the start event so that host work is not timed.
//! - Bandwidth is the kernel's compulsory traffic (each input read once, each output written
//!   once) over the median time; the copy moves the same number of bytes (reads half, writes
//!   half) with `cuMemcpyDtoDAsync`. matmul and nbody are compute-bound and report GFLOP/s;
//!   tensor_gemm (f16 in, f32 accumulated on the tensor cores) reports TFLOP/s, and a line under
//!   the tables gives them as a share of the GPU's dense f16 tensor peak where the device's
//!   name is one of [`dense_f16_peak`]'s.
//!
//! Slices are passed as the ABI lays them out for each build: ours take one `{ u64 address,
//! u64 length }` parameter, the twins a pointer and a length.

// Only the kernels are used; the corpus's checks are the test suite's.
#[allow(dead_code)]
#[path = "../tests/suite/corpus/mod.rs"]
mod corpus;

use ptx_runtime::cudarc::driver::sys::CUevent_flags;
use ptx_runtime::{Args, BackendKind, Device, DeviceBuffer, Kernel, LaunchConfig, Stream};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

const WARMUP: usize = 3;
const RUNS: usize = 20;

type Res<T> = Result<T, String>;

/// One parameter of a launch.
#[derive(Clone, Copy)]
enum Param {
    /// A slice over buffer `.0`, of `.1` elements of the kernel's element type.
    Slice(usize, u64),
    U32(u32),
    F32(f32),
}

/// What a kernel's speed is measured in.
enum Work {
    /// Compulsory bytes read and written.
    Bytes(u64),
    /// Floating-point operations.
    Flops(u64),
    /// Floating-point operations on the tensor cores (reported in TFLOP/s).
    TensorFlops(u64),
}

/// One kernel's launch: input buffers (every buffer is `f32`s; a `Particle` is 7 of them),
/// parameters, configuration, which buffers are outputs, and its work.
struct Setup {
    size: String,
    buffers: Vec<Vec<f32>>,
    params: Vec<Param>,
    config: LaunchConfig,
    outputs: Vec<usize>,
    work: Work,
    /// Relative tolerance between the two builds' outputs (summation order and `exp` differ).
    tolerance: f32,
}

struct Case {
    /// The table's row.
    row: &'static str,
    /// The kernel's name in nvcc's build (`extern "C"`, the Rust function's name but for
    /// `transpose_any_block`, timed against the transpose's twin).
    name: &'static str,
    /// `benches/cuda/<twin>.cu`.
    twin: &'static str,
    ours: &'static Kernel,
    setup: fn(small: bool) -> Setup,
}

fn cases() -> Vec<Case> {
    use corpus::{conv1d, dot, layernorm, matmul, nbody, saxpy, shared_histogram, softmax, stencil, tensor_gemm, transpose, warp_reduce};
    vec![
        Case { row: "saxpy", name: "saxpy", twin: "saxpy", ours: &saxpy::saxpy::KERNEL, setup: saxpy_setup },
        Case { row: "dot", name: "dot", twin: "dot", ours: &dot::dot::KERNEL, setup: dot_setup },
        Case { row: "matmul", name: "matmul", twin: "matmul", ours: &matmul::matmul::KERNEL, setup: matmul_setup },
        Case { row: "stencil", name: "stencil", twin: "stencil", ours: &stencil::stencil::KERNEL, setup: stencil_setup },
        Case { row: "transpose", name: "transpose", twin: "transpose", ours: &transpose::transpose::KERNEL, setup: transpose_setup },
        // Ours with no block declared, as the twin declares none.
        Case { row: "transpose (no block declared)", name: "transpose", twin: "transpose", ours: &transpose::transpose_any_block::KERNEL, setup: transpose_setup },
        Case { row: "softmax", name: "softmax", twin: "softmax", ours: &softmax::softmax::KERNEL, setup: softmax_setup },
        Case { row: "nbody_step", name: "nbody_step", twin: "nbody", ours: &nbody::nbody_step::KERNEL, setup: nbody_setup },
        Case { row: "tensor_gemm", name: "tensor_gemm", twin: "tensor_gemm", ours: &tensor_gemm::tensor_gemm::KERNEL, setup: tensor_gemm_setup },
        Case { row: "conv1d", name: "conv1d", twin: "conv1d", ours: &conv1d::conv1d::KERNEL, setup: conv1d_setup },
        Case { row: "layernorm", name: "layernorm", twin: "layernorm", ours: &layernorm::layernorm::KERNEL, setup: layernorm_setup },
        Case { row: "warp_reduce", name: "warp_reduce", twin: "warp_reduce", ours: &warp_reduce::warp_reduce::KERNEL, setup: warp_reduce_setup },
        Case { row: "shared_histogram", name: "shared_histogram", twin: "shared_histogram", ours: &shared_histogram::shared_histogram::KERNEL, setup: histogram_setup },
    ]
}

fn random(n: usize, seed: u64) -> Vec<f32> {
    corpus::Rng::new(seed).f32s(n, -1.0, 1.0)
}

fn saxpy_setup(small: bool) -> Setup {
    let n = if small { 1 << 14 } else { 1 << 24 };
    let blocks = (n / 256) as u32;
    Setup {
        size: format!("n = {n}"),
        buffers: vec![random(n, 1), random(n, 2)],
        params: vec![Param::F32(1.7), Param::Slice(0, n as u64), Param::Slice(1, n as u64)],
        config: LaunchConfig::new(blocks, 256),
        outputs: vec![1],
        work: Work::Bytes(12 * n as u64),
        tolerance: 0.0,
    }
}

fn dot_setup(small: bool) -> Setup {
    let n = if small { 1 << 14 } else { 1 << 24 };
    let blocks: u32 = if small { 16 } else { 1024 };
    Setup {
        size: format!("n = {n}"),
        buffers: vec![random(n, 3), random(n, 4), vec![0.0; blocks as usize]],
        params: vec![Param::Slice(0, n as u64), Param::Slice(1, n as u64), Param::Slice(2, blocks as u64)],
        config: LaunchConfig::new(blocks, 256),
        outputs: vec![2],
        work: Work::Bytes(8 * n as u64),
        tolerance: 0.0,
    }
}

fn matmul_setup(small: bool) -> Setup {
    let n: usize = if small { 64 } else { 2048 };
    let g = n.div_ceil(16) as u32;
    Setup {
        size: format!("{n} × {n}"),
        buffers: vec![random(n * n, 5), random(n * n, 6), vec![0.0; n * n]],
        params: vec![Param::Slice(0, (n * n) as u64), Param::Slice(1, (n * n) as u64), Param::Slice(2, (n * n) as u64), Param::U32(n as u32)],
        config: LaunchConfig::new((g, g, 1), (16, 16, 1)),
        outputs: vec![2],
        work: Work::Flops(2 * (n as u64).pow(3)),
        tolerance: 0.0,
    }
}

fn stencil_setup(small: bool) -> Setup {
    let (w, h): (usize, usize) = if small { (128, 96) } else { (8192, 4096) };
    Setup {
        size: format!("{w} × {h}"),
        buffers: vec![random(w * h, 7), vec![0.0; w * h]],
        params: vec![Param::Slice(0, (w * h) as u64), Param::Slice(1, (w * h) as u64), Param::U32(w as u32), Param::U32(h as u32), Param::F32(0.5), Param::F32(0.125)],
        config: LaunchConfig::new(((w / 32) as u32, (h / 8) as u32, 1), (32, 8, 1)),
        outputs: vec![1],
        work: Work::Bytes(8 * (w * h) as u64),
        tolerance: 0.0,
    }
}

fn transpose_setup(small: bool) -> Setup {
    let (w, h): (usize, usize) = if small { (128, 64) } else { (8192, 4096) };
    Setup {
        size: format!("{w} × {h}"),
        buffers: vec![random(w * h, 8), vec![0.0; w * h]],
        params: vec![Param::Slice(0, (w * h) as u64), Param::Slice(1, (w * h) as u64), Param::U32(w as u32), Param::U32(h as u32)],
        config: LaunchConfig::new(((w / 32) as u32, (h / 32) as u32, 1), (32, 8, 1)),
        outputs: vec![1],
        work: Work::Bytes(8 * (w * h) as u64),
        tolerance: 0.0,
    }
}

fn softmax_setup(small: bool) -> Setup {
    let (rows, cols): (usize, usize) = if small { (32, 256) } else { (16384, 4096) };
    Setup {
        size: format!("{rows} rows × {cols}"),
        buffers: vec![random(rows * cols, 9), vec![0.0; rows * cols]],
        params: vec![Param::Slice(0, (rows * cols) as u64), Param::Slice(1, (rows * cols) as u64), Param::U32(cols as u32)],
        // The kernel's shared buffer holds 128 partial results: at most 128 threads a block.
        config: LaunchConfig::new(rows as u32, 128),
        outputs: vec![1],
        work: Work::Bytes(8 * (rows * cols) as u64),
        // Our `exp` and nvcc's double `exp` may differ in the last bit.
        tolerance: 1e-6,
    }
}

fn nbody_setup(small: bool) -> Setup {
    let n: usize = if small { 256 } else { 32768 };
    let mut bodies = random(7 * n, 10);
    for b in bodies.chunks_mut(7) {
        b[6] = b[6].abs() + 0.1;
    }
    Setup {
        size: format!("{n} bodies"),
        buffers: vec![bodies, vec![0.0; 7 * n]],
        params: vec![Param::Slice(0, n as u64), Param::Slice(1, n as u64), Param::F32(0.01), Param::F32(0.01)],
        config: LaunchConfig::new((n / 128) as u32, 128),
        outputs: vec![1],
        // Per interaction: 3 subtractions, 3 multiplies and 3 adds for d², a square root, a
        // multiply and a division, a multiply by the mass, and 3 multiply-adds: 20 flops, the
        // customary count.
        work: Work::Flops(20 * (n as u64).pow(2)),
        tolerance: 0.0,
    }
}

fn conv1d_setup(small: bool) -> Setup {
    let n = if small { 1 << 12 } else { 1 << 24 };
    let taps: Vec<f32> = random(9, 12).iter().map(|w| w * 0.5).collect();
    Setup {
        size: format!("n = {n}, 9 taps"),
        buffers: vec![random(n + 8, 11), taps, vec![0.0; n]],
        params: vec![Param::Slice(0, n as u64 + 8), Param::Slice(1, 9), Param::Slice(2, n as u64)],
        config: LaunchConfig::new((n / 256) as u32, 256),
        outputs: vec![2],
        work: Work::Bytes(8 * n as u64 + 68),
        tolerance: 0.0,
    }
}

fn layernorm_setup(small: bool) -> Setup {
    let (rows, cols): (usize, usize) = if small { (256, 48) } else { (65536, 256) };
    Setup {
        size: format!("{rows} rows × {cols}"),
        buffers: vec![random(rows * cols, 13), random(cols, 14), random(cols, 15), vec![0.0; rows * cols]],
        params: vec![Param::Slice(0, (rows * cols) as u64), Param::Slice(1, cols as u64), Param::Slice(2, cols as u64), Param::Slice(3, (rows * cols) as u64), Param::U32(rows as u32), Param::U32(cols as u32)],
        // One thread per row, as the kernel is written.
        config: LaunchConfig::new((rows / 128) as u32, 128),
        outputs: vec![3],
        work: Work::Bytes(8 * (rows * cols) as u64),
        tolerance: 0.0,
    }
}

fn warp_reduce_setup(small: bool) -> Setup {
    let n = if small { 1 << 12 } else { 1 << 24 };
    let warps = n / 32;
    Setup {
        size: format!("n = {n}"),
        buffers: vec![random(n, 16), vec![0.0; warps], vec![0.0; warps], vec![0.0; warps]],
        params: vec![Param::Slice(0, n as u64), Param::Slice(1, warps as u64), Param::Slice(2, warps as u64), Param::Slice(3, warps as u64)],
        config: LaunchConfig::new((n / 256) as u32, 256),
        // The ballots (`u32`) travel as the bits of `f32`s.
        outputs: vec![1, 2, 3],
        work: Work::Bytes(4 * n as u64 + 12 * warps as u64),
        tolerance: 0.0,
    }
}

fn histogram_setup(small: bool) -> Setup {
    let n = if small { 1 << 14 } else { 1 << 24 };
    let blocks: u32 = if small { 16 } else { 1024 };
    // `u32` values (the kernel reads their low byte) as the bits of `f32`s.
    let data = (0..n as u32).map(|k| f32::from_bits(k.wrapping_mul(2_654_435_761) >> 7)).collect();
    Setup {
        size: format!("n = {n}, 256 bins"),
        buffers: vec![data, vec![0.0; 256]],
        params: vec![Param::Slice(0, n as u64), Param::Slice(1, 256)],
        config: LaunchConfig::new(blocks, 256),
        outputs: vec![1],
        work: Work::Bytes(4 * n as u64),
        tolerance: 0.0,
    }
}

fn tensor_gemm_setup(small: bool) -> Setup {
    use corpus::tensor_gemm::{inputs, SHARED_BYTES, T, THREADS};
    let n: usize = if small { 64 } else { 4096 };
    // Each f16 matrix as the kernel reads it, 8 halves a 16-byte unit: here two halves an f32
    // (the buffers are `f32`s), low half first.
    let pairs = |m: Vec<ptx_runtime::half::f16>| m.chunks(2).map(|h| f32::from_bits(h[0].to_bits() as u32 | (h[1].to_bits() as u32) << 16)).collect::<Vec<f32>>();
    let (a, b) = inputs(n, 11);
    let units = (n * n / 8) as u64;
    let g = (n / T) as u32;
    Setup {
        size: format!("{n} × {n} × {n}"),
        buffers: vec![pairs(a), pairs(b), vec![0.0; n * n]],
        params: vec![Param::Slice(0, units), Param::Slice(1, units), Param::Slice(2, (n * n) as u64), Param::U32(n as u32)],
        config: LaunchConfig::new((g, g, 1), THREADS).with_shared_bytes(SHARED_BYTES),
        outputs: vec![2],
        work: Work::TensorFlops(2 * (n as u64).pow(3)),
        // The same mma.sync instructions on the same operands in the same order.
        tolerance: 0.0,
    }
}

/// The dense (no sparsity) f16 tensor-core peak with f32 accumulation, in TFLOP/s, of the GPUs
/// the benchmark is run on, by the CUDA device name, with its source: NVIDIA's H100 datasheet
/// and Hopper architecture whitepaper give "FP16 Tensor Core 1,979 TFLOPS" with sparsity for
/// H100 SXM (989.4 dense: 132 SMs × 4 tensor cores × 1024 FLOP per clock × 1.83 GHz), 1,513
/// (756.5 dense) for H100 PCIe; the H200 datasheet 1,979 (989.4 dense) for H200 SXM.
fn dense_f16_peak(device: &str) -> Option<(f64, &'static str)> {
    let d = device.to_ascii_uppercase();
    if d.contains("H200") {
        Some((989.4, "H200 SXM, NVIDIA H200 datasheet"))
    } else if d.contains("H100") && d.contains("PCIE") {
        Some((756.5, "H100 PCIe, NVIDIA H100 datasheet"))
    } else if d.contains("H100") {
        Some((989.4, "H100 SXM, NVIDIA H100 datasheet"))
    } else {
        None
    }
}

/// Our build or nvcc's: how a slice is passed.
#[derive(Clone, Copy, PartialEq)]
enum Abi {
    /// One 16-byte `{ address, length }` parameter.
    Ours,
    /// A pointer parameter and a length parameter.
    PointerAndLength,
}

fn encode<'a>(stream: &'a Stream, abi: Abi, params: &[Param], buffers: &[DeviceBuffer<f32>]) -> Args<'a> {
    let mut args = Args::new(stream);
    for p in params {
        match *p {
            Param::Slice(b, len) => {
                let address = buffers[b].device_address();
                if abi == Abi::Ours {
                    args.push_bytes([address.to_le_bytes(), len.to_le_bytes()].concat());
                } else {
                    args.push_bytes(address.to_le_bytes().to_vec());
                    args.push_bytes(len.to_le_bytes().to_vec());
                }
            }
            Param::U32(v) => args.push_bytes(v.to_le_bytes().to_vec()),
            Param::F32(v) => args.push_bytes(v.to_le_bytes().to_vec()),
        }
    }
    args
}

/// Milliseconds of `f`'s work on the stream: between two events on CUDA, by the host clock on
/// the CPU backend (where every operation completes before it returns).
fn time_ms(stream: &Stream, f: impl FnOnce() -> Res<()>) -> Res<f64> {
    match stream.cuda_stream() {
        Some(s) => {
            let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
            let start = s.record_event(flags).map_err(|e| format!("cuEventRecord: {e:?}"))?;
            f()?;
            let end = s.record_event(flags).map_err(|e| format!("cuEventRecord: {e:?}"))?;
            Ok(start.elapsed_ms(&end).map_err(|e| format!("cuEventElapsedTime: {e:?}"))? as f64)
        }
        None => {
            let t = Instant::now();
            f()?;
            Ok(t.elapsed().as_secs_f64() * 1e3)
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One build of one kernel: its outputs after one launch and its median time.
fn measure(stream: &Stream, kernel: &'static Kernel, abi: Abi, setup: &Setup, runs: usize) -> Res<(Vec<Vec<f32>>, f64)> {
    let upload = || setup.buffers.iter().map(|b| DeviceBuffer::from_slice(stream, b)).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string());
    let outputs = {
        let buffers = upload()?;
        stream.launch_kernel(kernel, setup.config, encode(stream, abi, &setup.params, &buffers)).map_err(|e| e.to_string())?;
        setup.outputs.iter().map(|&o| buffers[o].to_vec()).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?
    };
    // Fresh inputs for the timed launches (saxpy updates its `y` in place).
    let buffers = upload()?;
    let mut times = Vec::new();
    for i in 0..WARMUP + runs {
        let args = encode(stream, abi, &setup.params, &buffers);
        let t = time_ms(stream, || stream.launch_kernel(kernel, setup.config, args).map_err(|e| e.to_string()))?;
        if i >= WARMUP {
            times.push(t);
        }
    }
    stream.synchronize().map_err(|e| e.to_string())?;
    Ok((outputs, median(times)))
}

/// Median time of copying `bytes / 2` bytes device to device (moving `bytes`), in ms.
fn copy_ms(stream: &Stream, bytes: u64, runs: usize) -> Res<f64> {
    let half = (bytes / 2) as usize;
    let mut times = Vec::new();
    match stream.cuda_stream() {
        Some(s) => {
            let src = s.alloc_zeros::<u8>(half).map_err(|e| format!("cuMemAlloc: {e:?}"))?;
            let mut dst = s.alloc_zeros::<u8>(half).map_err(|e| format!("cuMemAlloc: {e:?}"))?;
            for i in 0..WARMUP + runs {
                let t = time_ms(stream, || s.memcpy_dtod(&src, &mut dst).map_err(|e| format!("cuMemcpyDtoDAsync: {e:?}")))?;
                if i >= WARMUP {
                    times.push(t);
                }
            }
        }
        None => {
            // The CPU backend's memory is the host's: a host copy is its "device" copy.
            let src = vec![1u8; half];
            let mut dst = vec![0u8; half];
            for _ in 0..runs {
                times.push(time_ms(stream, || {
                    dst.copy_from_slice(std::hint::black_box(&src));
                    Ok(())
                })?);
            }
            std::hint::black_box(&dst);
        }
    }
    Ok(median(times))
}

/// nvcc's builds of the twins, each timed in a table of its own: (the subdirectory of
/// `--nvcc-ptx` holding it, the nvcc flags beyond `-ptx -O3 -fmad=false -arch=sm_80`, the
/// table's heading).
const VARIANTS: [(&str, &[&str], &str); 2] = [
    ("ndebug", &["-DNDEBUG"], "Against CUDA as people write it: nvcc's `-DNDEBUG` build of the twins (no `assert`s)"),
    ("checked", &[], "Against the checked twins: nvcc's build with their `assert`s (bounds checks, as ours keep)"),
];

/// nvcc's PTX of a twin in one of the [`VARIANTS`]: from `dir/<variant>/` (`prebuilt`), or
/// compiled now. The pre-built PTX may still be refused by a driver older than expected;
/// this machine's nvcc is then the second choice.
fn nvcc_ptx(prebuilt: bool, dir: Option<&Path>, twin: &str, (variant, flags, _): (&str, &[&str], &str)) -> Option<String> {
    if prebuilt {
        return std::fs::read_to_string(dir?.join(variant).join(format!("{twin}.ptx"))).ok();
    }
    let nvcc = std::env::var_os("NVCC").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("nvcc"));
    // From the repository root (where `run.sh` runs a packed binary), else where it was built.
    let file = format!("benches/cuda/{twin}.cu");
    let src = [Path::new(".").join(&file), Path::new(env!("CARGO_MANIFEST_DIR")).join(&file)].into_iter().find(|p| p.is_file())?;
    let out = std::env::temp_dir().join(format!("ptx-bench-{}-{twin}-{variant}.ptx", std::process::id()));
    let ok = std::process::Command::new(nvcc)
        .args(["-ptx", "-O3", "-fmad=false", "-arch=sm_80"])
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    let ptx = std::fs::read_to_string(&out).ok().filter(|_| ok);
    let _ = std::fs::remove_file(&out);
    ptx
}

/// Largest difference relative to max(|want|, 1), and whether it is within `tolerance`.
fn agreement(ours: &[Vec<f32>], theirs: &[Vec<f32>], tolerance: f32) -> String {
    let mut worst = 0.0f32;
    for (a, b) in ours.iter().zip(theirs) {
        if a.len() != b.len() {
            return "DIFFERENT LENGTHS".into();
        }
        for (x, y) in a.iter().zip(b) {
            let d = if x.to_bits() == y.to_bits() { 0.0 } else { (x - y).abs() / y.abs().max(1.0) };
            worst = worst.max(if d.is_nan() { f32::INFINITY } else { d });
        }
    }
    match (worst, worst <= tolerance) {
        (0.0, _) => "bit-equal".into(),
        (w, true) => format!("within {w:.1e}"),
        (w, false) => format!("DIFFER by {w:.1e}"),
    }
}

fn main() {
    match run() {
        Ok(()) => {}
        Err(e) => {
            eprintln!("gpu_timing: {e}");
            std::process::exit(1);
        }
    }
}

fn run() -> Res<()> {
    let mut nvcc_dir = None;
    let mut out_file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--nvcc-ptx" => nvcc_dir = args.next().map(PathBuf::from),
            "--out" => out_file = args.next().map(PathBuf::from),
            // `cargo bench` passes `--bench`.
            "--bench" => {}
            other => return Err(format!("unknown argument `{other}`; usage: gpu_timing [--nvcc-ptx DIR] [--out FILE.md]")),
        }
    }
    let device = if std::env::var_os(ptx_runtime::DEVICE_ENV).is_some() {
        Device::select().map_err(|e| e.to_string())?
    } else {
        match Device::cuda(0) {
            Ok(d) => d,
            Err(e) => {
                println!("gpu_timing: skipped: no GPU ({e}). `PTX_DEVICE=cpu` runs the harness on the CPU backend.");
                return Ok(());
            }
        }
    };
    let small = device.kind() == BackendKind::Cpu;
    let runs = if small { 3 } else { RUNS };
    let stream = device.new_stream().map_err(|e| e.to_string())?;

    const HEADER: &str = "| kernel | size | ours ms | nvcc ms | ours / nvcc | ours | nvcc | copy | ours / copy | outputs |\n|---|---|---|---|---|---|---|---|---|---|\n";
    let mut tables = VARIANTS.map(|_| String::from(HEADER));
    let mut failed = false;
    // Tensor-core rates against the device's peak: one line per kernel and nvcc build.
    let mut peaks = String::new();
    let peak = if small { None } else { dense_f16_peak(&device.name()) };
    for case in cases() {
        let setup = (case.setup)(small);
        let (ours_out, ours_ms) = measure(&stream, case.ours, Abi::Ours, &setup, runs).map_err(|e| format!("{} (ours): {e}", case.row))?;
        let rate = |ms: f64| match setup.work {
            Work::Bytes(b) => format!("{:.2} GB/s", b as f64 / ms / 1e6),
            Work::Flops(f) => format!("{:.2} GFLOP/s", f as f64 / ms / 1e6),
            Work::TensorFlops(f) => format!("{:.2} TFLOP/s", f as f64 / ms / 1e9),
        };
        let (copy, of_copy) = match setup.work {
            Work::Bytes(b) => {
                let c = copy_ms(&stream, b, runs)?;
                (rate(c), format!("{:.0}%", 100.0 * c / ours_ms))
            }
            Work::Flops(_) | Work::TensorFlops(_) => ("–".into(), "–".into()),
        };
        for (variant, table) in VARIANTS.into_iter().zip(tables.iter_mut()) {
            let mut theirs = None;
            let mut why = "no nvcc PTX".to_owned();
            for prebuilt in [true, false] {
                let Some(ptx) = nvcc_ptx(prebuilt, nvcc_dir.as_deref(), case.twin, variant) else { continue };
                // The runtime keeps a kernel's module for the process's lifetime: leaking is the
                // `'static` it asks for.
                let kernel: &'static Kernel = Box::leak(Box::new(Kernel::new(Box::leak(ptx.into_boxed_str()), case.name)));
                match measure(&stream, kernel, Abi::PointerAndLength, &setup, runs) {
                    Ok(m) => {
                        theirs = Some(m);
                        break;
                    }
                    Err(e) => {
                        eprintln!("gpu_timing: {} (nvcc's {} PTX, {}): {e}", case.row, variant.0, if prebuilt { "pre-built" } else { "compiled here" });
                        why = "nvcc's PTX failed (see the log)".into();
                    }
                }
            }
            if let (Work::TensorFlops(f), Some((p, source))) = (&setup.work, peak) {
                let share = |ms: f64| 100.0 * (*f as f64 / ms / 1e9) / p;
                let theirs_share = theirs.as_ref().map_or("–".to_owned(), |(_, ms)| format!("{:.1}%", share(*ms)));
                let _ = writeln!(peaks, "- {} ({}): ours {:.1}%, nvcc's {} build {theirs_share} of the dense f16 tensor peak, {p} TFLOP/s ({source}).", case.row, setup.size, share(ours_ms), variant.0);
            }
            let (nvcc_ms, ratio, nvcc_rate, agree) = match &theirs {
                Some((out, ms)) => {
                    let agree = agreement(&ours_out, out, setup.tolerance);
                    failed |= agree.starts_with("DIFFER");
                    (format!("{ms:.3}"), format!("{:.2}", ours_ms / ms), rate(*ms), agree)
                }
                None => ("–".into(), "–".into(), "–".into(), why),
            };
            let _ = writeln!(table, "| {} | {} | {ours_ms:.3} | {nvcc_ms} | {ratio} | {} | {nvcc_rate} | {copy} | {of_copy} | {agree} |", case.row, setup.size, rate(ours_ms));
        }
        eprintln!("gpu_timing: {} done", case.row);
    }
    let mut tables: String = VARIANTS.iter().zip(&tables).map(|((_, _, title), t)| format!("{title}:\n\n{t}\n")).collect();
    if !peaks.is_empty() {
        tables += &format!("Tensor cores:\n\n{peaks}\n");
    }
    let report = format!(
        "Device: {}. Median of {runs} launches after {} warm-up launches; {}. Ours keep their bounds checks.\n\n{tables}",
        device.name(),
        WARMUP,
        if small { "CPU backend: small sizes and host-clock times, a smoke test of the harness, not a benchmark" } else { "CUDA events" },
    );
    println!("{report}");
    if let Some(f) = out_file {
        if let Some(dir) = f.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&f, format!("# Run time: ours against nvcc\n\n{report}")).map_err(|e| format!("{}: {e}", f.display()))?;
    }
    if failed {
        return Err("the two builds' outputs differ (see the table)".into());
    }
    Ok(())
}
