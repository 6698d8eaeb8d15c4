use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    out[0] = x.iter().map(|v| v * v).sum();
}

fn main() {}
