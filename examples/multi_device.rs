//! One job split over every device: each computes `y = a·x + y` over its share of 2^20
//! elements on its own stream, the shares are gathered on the first device by device-to-device
//! copies (peer copies between GPUs, through the host otherwise), and the whole is checked
//! against the host. Without a GPU it runs on two independent CPU devices.
//!
//! ```sh
//! cargo run --release --example multi_device
//! ```

use ptx_runtime::device::*;
use ptx_runtime::{kernel, BackendKind, Device, DeviceBuffer, LaunchConfig};

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
    let mut devices = Device::all()?;
    if devices.len() == 1 && devices[0].kind() == BackendKind::Cpu {
        devices = vec![Device::new_cpu(), Device::new_cpu()];
        println!("(no GPU: two independent CPU devices stand in for two GPUs)");
    }
    for (i, d) in devices.iter().enumerate() {
        let p = d.properties()?;
        println!("device {i}: {} (sm_{}{}, {} multiprocessors)", p.name, p.compute_capability.0, p.compute_capability.1, p.multiprocessors);
    }

    let n: usize = 1 << 20;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();

    // Each device's share, launched on its own stream; the launches overlap across devices.
    let share = n.div_ceil(devices.len());
    let mut parts = Vec::new();
    for (d, range) in devices.iter().zip((0..n).step_by(share).map(|s| s..(s + share).min(n))) {
        let stream = d.new_stream()?;
        let xd = DeviceBuffer::from_slice(&stream, &x[range.clone()])?;
        let mut yd = DeviceBuffer::from_slice(&stream, &y[range.clone()])?;
        saxpy::launch(&stream, LaunchConfig::for_num_elems(range.len() as u32), a, &xd, &mut yd)?;
        parts.push((stream, range, yd));
    }

    // Gather on the first device, device to device.
    let home = devices[0].stream();
    let mut all = DeviceBuffer::<f32>::zeroed(&home, n)?;
    for (stream, range, yd) in &parts {
        stream.synchronize()?;
        all.slice_mut(range.clone())?.copy_from_device(&yd.as_slice())?;
    }
    let out = all.to_vec()?;

    let wrong = (0..n).filter(|&i| out[i].to_bits() != (a * x[i] + y[i]).to_bits()).count();
    println!("saxpy over {n} elements on {} devices: {wrong} mismatches", devices.len());
    if wrong != 0 {
        eprintln!("FAILED: {wrong} elements differ from the host");
        std::process::exit(1);
    }
    println!("verified: every element equals the host's a*x+y, bit for bit");
    Ok(())
}
