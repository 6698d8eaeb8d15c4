use ptx_runtime::half::f16;
use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f16], out: &mut [f16]) {
    out[0] = x[0] + x[1];
}

fn main() {}
