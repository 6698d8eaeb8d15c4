use ptx_runtime::device::*;
use ptx_runtime::kernel;
use ptx_runtime::texture::*;
use ptx_runtime::Device;

// A cube map is not a 2-D texture, nor a layered 2-D texture a cube map (rustc says so at the
// argument).
#[kernel]
pub unsafe fn k(c: TextureCubemap<f32>, l: Texture2dLayered<f32>, out: *mut f32) {
    *out = tex2d(c, 0.5, 0.5);
    *out = tex_cubemap(l, 1.0, 0.0, 0.0);
}

fn main() -> ptx_runtime::Result<()> {
    let stream = Device::cpu().stream();
    // Cube maps have no surfaces here (`surfCubemapread` is not offered).
    let faces = ArrayCubemap::<f32>::new(&stream, 4)?;
    let _ = surface(&stream, &faces)?;
    Ok(())
}
