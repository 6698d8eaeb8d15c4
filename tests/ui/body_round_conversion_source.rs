use ptx_runtime::device::*;
use ptx_runtime::half::bf16;
use ptx_runtime::kernel;

// Rounded conversions to bf16 take an f32, f64 or a 16-, 32- or 64-bit integer (u8: widen first).
#[kernel]
pub fn k(x: &[u8], out: &mut [bf16]) {
    out[0] = x[0].to_bf16_rz();
}

fn main() {}
