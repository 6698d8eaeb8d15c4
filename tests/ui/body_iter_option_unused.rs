use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [u32]) {
    let first = x.iter().position(|v| *v > 0.0);
    out[0] = first.map_or(0, |i| i as u32);
}

fn main() {}
