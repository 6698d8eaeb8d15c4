use ptx_runtime::device::*;
use ptx_runtime::kernel;

#[kernel]
pub fn count(a: i32) {
    printf!("%d and %d\n", a);
}

#[kernel]
pub fn conversion(a: i32) {
    printf!("%n\n", a);
}

#[kernel]
pub fn long_double(x: f64) {
    printf!("%Lf\n", x);
}

fn main() {}
