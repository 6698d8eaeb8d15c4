#![allow(unused)]
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn axpy(a: f32, n: u32, x: &[f32]) {}

fn main() -> ptx_runtime::Result<()> {
    let stream = Device::cpu().stream();
    let x = DeviceBuffer::<f32>::zeroed(&stream, 16)?;
    axpy::launch(&stream, LaunchConfig::for_num_elems(16), 2.0f64, 16u32, &x)?;
    axpy::launch(&stream, LaunchConfig::for_num_elems(16), 2.0f32, &x)
}
