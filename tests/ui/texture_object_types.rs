use ptx_runtime::device::*;
use ptx_runtime::texture::*;
use ptx_runtime::{Device, DeviceBuffer, LaunchConfig};

#[ptx_runtime::kernel]
pub fn read(t: Texture2d<i32>, out: &mut [i32]) {
    out[0] = tex2d(t, 0.5, 0.5);
}

fn main() -> ptx_runtime::Result<()> {
    let stream = Device::cpu().stream();
    let floats = Array2d::<f32>::new(&stream, (4, 4))?;
    // Normalized-float reads are for 8- and 16-bit integers.
    let _ = TextureDesc::new().normalized_float().array(&stream, &floats)?;
    // A texture of f32 texels is not a texture of i32 ones.
    let t = TextureDesc::new().array(&stream, &floats)?;
    let mut out = DeviceBuffer::<i32>::zeroed(&stream, 1)?;
    read::launch(&stream, LaunchConfig::new(1, 1), &t, &mut out)?;
    Ok(())
}
