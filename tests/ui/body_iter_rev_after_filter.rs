use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    let mut s = 0.0;
    for v in x.iter().filter(|v| **v > 0.0).rev() {
        s += v;
    }
    out[0] = s;
}

fn main() {}
