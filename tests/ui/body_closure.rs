use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [f32]) {
    let twice = |v: f32| v * 2.0;
    x[0] = twice(x[0]);
}

fn main() {}
