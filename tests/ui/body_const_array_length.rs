use ptx_runtime::kernel;

const N: usize = 4;

#[kernel]
pub fn k(out: &mut [f32]) {
    let mut a = [0.0f32; N];
    a[1] = 2.0;
    out[0] = a[1];
}

fn main() {}
