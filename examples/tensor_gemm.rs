//! Tensor-core matrix multiply `C = A·B` (f16 in, f32 accumulated, 128 × 128 × 128): each block
//! of four warps computes a 32 × 32 tile of C. Per 32-wide step of k, the block stages A's and
//! B's 32 × 32 tiles in shared memory with asynchronous copies (`cp.async`, 16 bytes each),
//! each warp loads its fragments with `ldmatrix` and multiplies with `mma.sync` (through the
//! tile API, `device::wmma`), accumulating in registers.
//!
//! ```sh
//! cargo run --release --example tensor_gemm
//! ```

use ptx_runtime::device::*;
use ptx_runtime::half::f16;
use ptx_runtime::vector::f32x4;
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

/// The block's tile of C is `T × T`; k advances by `T`.
const T: usize = 32;

/// `a` and `b` are `n × n` row-major f16 matrices seen as 16-byte units of 8 halves (`f32x4`
/// bit patterns), `n` a multiple of 32.
#[kernel(sm = 80)]
pub fn tensor_gemm(a: &[f32x4], b: &[f32x4], c: &mut [f32], n: u32) {
    // The dynamic shared memory (4 KiB): A's tile (32 rows of 4 units, 32 halves), then B's,
    // written as 16-byte units by `cp.async` and read as halves by `ldmatrix` (two views of the
    // same bytes).
    let mut s = unsafe { dynamic_shared::<f32x4>() };
    let h = unsafe { dynamic_shared::<f16>() };
    let t = thread_idx_x() as usize;
    let warp = t / 32;
    let (wm, wn) = (warp / 2, warp % 2);
    let n = n as usize;
    let units = n / 8;
    let (bm, bn) = (block_idx_y() as usize * T, block_idx_x() as usize * T);
    let (r, u) = (t / 4, t % 4);
    let mut acc = wmma::fill_fragment(0.0);
    for kt in 0..n / T {
        // Thread t copies unit u of row r of each tile.
        unsafe {
            memcpy_async(&mut s[t], &a[(bm + r) * units + kt * 4 + u]);
            memcpy_async(&mut s[128 + t], &b[(kt * T + r) * units + bn / 8 + u]);
        }
        pipeline_commit();
        pipeline_wait_all();
        sync_threads();
        let pa = h.as_ptr();
        let pb = unsafe { h.as_ptr().add(T * T) };
        for kk in 0..2 {
            let fa = unsafe { wmma::load_matrix_a_shared(pa.add(wm * 16 * T + kk * 16), T) };
            let fb = unsafe { wmma::load_matrix_b_shared(pb.add(kk * 16 * T + wn * 16), T) };
            acc = wmma::mma_sync(fa, fb, acc);
        }
        sync_threads();
    }
    let at = (bm + wm * 16) * n + bn + wn * 16;
    assert!(at + 15 * n + 16 <= c.len());
    unsafe { wmma::store_matrix_sync(c.as_mut_ptr().add(at), acc, n) };
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// 8 halves as one 16-byte unit.
fn units(x: &[f16]) -> Vec<f32x4> {
    x.chunks(8)
        .map(|h| {
            let w = |i: usize| f32::from_bits(h[2 * i].to_bits() as u32 | (h[2 * i + 1].to_bits() as u32) << 16);
            f32x4::new(w(0), w(1), w(2), w(3))
        })
        .collect()
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
    tensor_gemm::launch(&stream, LaunchConfig::new((tiles, tiles), 128u32).with_shared_bytes(4096), &ad, &bd, &mut cd, n as u32)?;
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
