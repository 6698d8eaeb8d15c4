use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    let f = |v: f32| v + 1.0;
    let v = vec![f(x[0])];
    println!("{}", v[0]);
    let it = x.iter();
    out[0] = it.sum();
}

fn main() {}
