use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    let (s, c) = x[0].sin_cos();
    out[0] = s + c;
}

fn main() {}
