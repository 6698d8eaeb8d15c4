use ptx_runtime::device::*;
use ptx_runtime::half::bf16;
use ptx_runtime::kernel;

// Rounded conversions to bf16 take an f32 (f64 and integers: convert to f32 first).
#[kernel]
pub fn k(x: &[f64], out: &mut [bf16]) {
    out[0] = x[0].to_bf16_rz();
}

fn main() {}
