use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [u32]) {
    out[0] = match x[0] {
        v if v > 0.0 => 1,
        _ => 0,
    };
}

fn main() {}
