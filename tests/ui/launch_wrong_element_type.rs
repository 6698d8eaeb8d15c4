#![allow(unused)]
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn scale(a: f32, x: &mut [f32]) {}

fn main() -> ptx_runtime::Result<()> {
    let stream = Device::cpu().stream();
    let mut ints = DeviceBuffer::<u32>::zeroed(&stream, 16)?;
    scale::launch(&stream, LaunchConfig::for_num_elems(16), 2.0f32, &mut ints)
}
