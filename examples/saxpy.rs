//! `y = a·x + y` over 2^20 elements. Runs on the GPU when there is one, otherwise on the CPU
//! backend (`PTX_DEVICE=cpu|cuda` chooses), and checks every element against the host.
//!
//! ```sh
//! cargo run --release --example saxpy
//! ```

use ptx_runtime::device::*;
use ptx_runtime::{kernel, BackendKind, Device, DeviceBuffer, LaunchConfig};
use std::time::Instant;

#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        y[i] += a * x[i];
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
    if device.kind() == BackendKind::Cpu {
        println!("(no GPU in use: the CPU backend executes the same PTX; PTX_DEVICE=cuda asks for the GPU)");
    }
    let stream = device.stream();

    let n: usize = 1 << 20;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();

    let xd = DeviceBuffer::from_slice(&stream, &x)?;
    let mut yd = DeviceBuffer::from_slice(&stream, &y)?;
    let start = Instant::now();
    saxpy::launch(&stream, LaunchConfig::for_num_elems(n as u32), a, &xd, &mut yd)?;
    stream.synchronize()?;
    let elapsed = start.elapsed();
    let out = yd.to_vec()?;

    // The kernel rounds the product and the sum separately, exactly as this host loop does.
    let wrong = (0..n).filter(|&i| out[i].to_bits() != (a * x[i] + y[i]).to_bits()).count();
    println!("saxpy over {n} elements: {:.2} ms, {wrong} mismatches", elapsed.as_secs_f64() * 1e3);
    if wrong != 0 {
        eprintln!("FAILED: {wrong} elements differ from the host");
        std::process::exit(1);
    }
    println!("verified: every element equals the host's a*x+y, bit for bit");
    Ok(())
}
