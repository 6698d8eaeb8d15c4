//! Tiled matrix multiply `C = A·B` (256 × 256): 16 × 16 tiles of A and B staged in shared
//! memory, one output element per thread.
//!
//! ```sh
//! cargo run --release --example matmul
//! ```

use ptx_runtime::device::*;
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

const TILE: usize = 16;

// One thread per element of a `TILE × TILE` tile: the block shape the kernel is written for,
// declared (`.reqntid 16, 16, 1`). Another shape is an `Err` before launch, and the tile
// indices `ty * TILE + tx` are then in bounds without a check.
#[kernel(block = (16, 16))]
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
    let mut ta = unsafe { shared_array::<f32, { TILE * TILE }>() };
    let mut tb = unsafe { shared_array::<f32, { TILE * TILE }>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let row = block_idx_y() as usize * TILE + ty;
    let col = block_idx_x() as usize * TILE + tx;
    let n = n as usize;
    let mut acc = 0.0f32;
    for t in 0..n.div_ceil(TILE) {
        let ac = t * TILE + tx;
        let br = t * TILE + ty;
        ta[ty * TILE + tx] = if row < n && ac < n { a[row * n + ac] } else { 0.0 };
        tb[ty * TILE + tx] = if br < n && col < n { b[br * n + col] } else { 0.0 };
        sync_threads();
        for k in 0..TILE {
            acc += ta[ty * TILE + k] * tb[k * TILE + tx];
        }
        sync_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

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

    let n = 256usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 37) % 101) as f32 / 101.0 - 0.5).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 53) % 97) as f32 / 97.0 - 0.5).collect();
    let ad = DeviceBuffer::from_slice(&stream, &a)?;
    let bd = DeviceBuffer::from_slice(&stream, &b)?;
    let mut cd = DeviceBuffer::<f32>::zeroed(&stream, n * n)?;
    let tiles = n.div_ceil(TILE) as u32;
    matmul::launch(&stream, LaunchConfig::new((tiles, tiles), (TILE as u32, TILE as u32)), &ad, &bd, &mut cd, n as u32)?;
    let c = cd.to_vec()?;

    // The kernel accumulates in k order with separately rounded multiply and add: the host loop
    // below does the same, so the results are equal bit for bit.
    let mut wrong = 0;
    for r in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc += a[r * n + k] * b[k * n + col];
            }
            if acc.to_bits() != c[r * n + col].to_bits() {
                wrong += 1;
            }
        }
    }
    println!("{n}x{n} matmul: {wrong} of {} elements differ from the host", n * n);
    if wrong != 0 {
        eprintln!("FAILED");
        std::process::exit(1);
    }
    println!("verified: equal to the host bit for bit");
    Ok(())
}
