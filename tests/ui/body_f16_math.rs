use ptx_runtime::half::f16;
use ptx_runtime::kernel;

// `+ - * / %`, comparisons and min/max work on f16; other math converts to f32.
#[kernel]
pub fn k(x: &[f16], out: &mut [f16]) {
    out[0] = x[0].signum();
}

fn main() {}
