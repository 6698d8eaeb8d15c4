use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [u32]) {
    out[0] = x[0].classify() as u32;
}

fn main() {}
