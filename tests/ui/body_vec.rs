use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [f32]) {
    let v = vec![1.0f32, 2.0];
    x[0] = v[1];
}

fn main() {}
