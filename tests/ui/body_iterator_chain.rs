use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    // An iterator stored in a variable.
    let squares = x.iter().map(|v| v * v);
    out[0] = squares.sum();
}

fn main() {}
