#![allow(unused)]
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn fill(x: &mut [f32]) {}

fn main() -> ptx_runtime::Result<()> {
    let stream = Device::cpu().stream();
    let buf = DeviceBuffer::<f32>::zeroed(&stream, 16)?;
    fill::launch(&stream, LaunchConfig::for_num_elems(16), &buf)
}
