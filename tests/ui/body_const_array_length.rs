use ptx_runtime::kernel;

// A constant the macro cannot read from the source (a `const fn`'s value): rustc evaluates it.
const fn four() -> usize {
    4
}
const N: usize = four();

// An array of such a constant's length works when indexed; a copy of it as a whole does not.
#[kernel]
pub fn k(out: &mut [f32]) {
    let mut a = [0.0f32; N];
    a[1] = 2.0;
    let b = a;
    out[0] = b[1];
}

fn main() {}
