use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    out[0] = x[0].cbrt();
}

fn main() {}
