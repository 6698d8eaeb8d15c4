#![allow(unused)]
use ptx_runtime::{kernel, Device, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn copy(src: *const f32, dst: *mut f32) {}

fn main() -> ptx_runtime::Result<()> {
    let stream = Device::cpu().stream();
    let src = DeviceBuffer::<f32>::zeroed(&stream, 16)?;
    let mut dst = DeviceBuffer::<f32>::zeroed(&stream, 16)?;
    copy::launch(&stream, LaunchConfig::for_num_elems(16), &src, &mut dst)
}
