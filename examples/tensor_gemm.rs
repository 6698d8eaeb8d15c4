//! Tensor-core matrix multiply `C = A·B` (f16 in, f32 accumulated, 128 × 128 × 128): each block
//! of four warps computes a 32 × 32 tile of C. Per 32-wide step of k, the block stages A's and
//! B's 32 × 32 tiles in shared memory with asynchronous copies (`cp.async`, 16 bytes each),
//! each warp loads its fragments with `ldmatrix` and multiplies with `mma.sync` (through the
//! tile API, `device::wmma`), accumulating in registers.
//!
//! ```sh
//! cargo run --release --example tensor_gemm
//! ```

use ptx_runtime::half::f16;
use ptx_runtime::{Device, DeviceBuffer, LaunchConfig};

// The kernel is the corpus's (`tests/suite/corpus/tensor_gemm.rs`), whose CUDA C twin
// `benches/cuda/tensor_gemm.cu` bench-codegen and the GPU benchmark compare it with.
#[path = "../tests/suite/corpus/tensor_gemm_kernel.rs"]
mod gemm;
use gemm::{tensor_gemm, units, SHARED_BYTES, T, THREADS};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> ptx_runtime::Result<()> {
    let device = Device::select()?;
    println!("backend: {} ({})", device.kind(), device.name());
    let stream = device.stream();

    let n = 128usize;
    let a: Vec<f16> = (0..n * n).map(|i| f16::from_f32(((i * 37) % 101) as f32 / 101.0 - 0.5)).collect();
    let b: Vec<f16> = (0..n * n).map(|i| f16::from_f32(((i * 53) % 97) as f32 / 97.0 - 0.5)).collect();
    let ad = DeviceBuffer::from_slice(&stream, &units(&a))?;
    let bd = DeviceBuffer::from_slice(&stream, &units(&b))?;
    let mut cd = DeviceBuffer::<f32>::zeroed(&stream, n * n)?;
    let tiles = (n / T) as u32;
    tensor_gemm::launch(&stream, LaunchConfig::new((tiles, tiles), THREADS).with_shared_bytes(SHARED_BYTES), &ad, &bd, &mut cd, n as u32)?;
    let c = cd.to_vec()?;

    // The reference: the exact products of the same f16 inputs (each exact in f32), summed in
    // f64. The tensor cores add in f32, rounding at least once per `mma.sync` (the CPU backend
    // rounds each 16-wide k step once; a GPU keeps fewer bits in its partial sums and
    // truncates), so the result may differ by a few f32 roundings of the magnitudes summed:
    // allowed is 2^-16 of Σ|a·b| over k (n / 16 = 8 steps of at most 2^-23 relative
    // each, with margin for the hardware's truncation).
    let mut worst = 0.0f64;
    let mut wrong = 0;
    for i in 0..n {
        for j in 0..n {
            let (mut s, mut mag) = (0.0f64, 0.0f64);
            for k in 0..n {
                let p = (a[i * n + k].to_f32() * b[k * n + j].to_f32()) as f64;
                s += p;
                mag += p.abs();
            }
            let err = (c[i * n + j] as f64 - s).abs();
            worst = worst.max(err / mag.max(f64::MIN_POSITIVE));
            if err > mag * (1.0 / 65536.0) {
                wrong += 1;
            }
        }
    }
    println!("{n}x{n}x{n} tensor-core gemm: {wrong} of {} elements outside the tolerance (worst error {worst:.2e} of Σ|a·b|)", n * n);
    if wrong != 0 {
        eprintln!("FAILED");
        std::process::exit(1);
    }
    println!("verified against the host reference");
    Ok(())
}
