use ptx_runtime::device::*;
use ptx_runtime::kernel;
use ptx_runtime::texture::*;

// A 2-D float texture is not a 3-D texture nor a surface (rustc says so); a texture's element
// type is what a fetch returns; the gathered component is a literal.
#[kernel]
pub unsafe fn k(t: Texture2d<f32>, out: *mut f32, c: u32) {
    *out = tex3d(t, 0.0, 0.0, 0.0);
    *out = surf2d_read(t, 0, 0, Boundary::Trap);
    *out = tex2d_gather(t, 0.5, 0.5, c).x;
}

#[kernel]
pub fn bad_elem(_t: Texture2d<u8>) {}

fn main() {}
