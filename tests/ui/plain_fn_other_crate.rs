// A plain function of another crate of the workspace (a path dependency), called from device
// code: one error naming it and where it is defined, as for the crate's own functions.
use ptx_devlib::Rgb;
use ptx_runtime::kernel;

#[kernel]
pub fn k(px: &[Rgb], out: &mut [u32]) {
    out[0] = ptx_devlib::to_hex(px[0]) + ptx_devlib::luma(px[0]) as u32;
}

fn main() {}
