use ptx_runtime::kernel;

const N: usize = 4;

// An array of an outside constant's length works when indexed; a copy of it as a whole does not.
#[kernel]
pub fn k(out: &mut [f32]) {
    let mut a = [0.0f32; N];
    a[1] = 2.0;
    let b = a;
    out[0] = b[1];
}

fn main() {}
