use ptx_runtime::device::*;
use ptx_runtime::kernel;

#[kernel]
pub fn k(big: u64, n: i32, x: f32) {
    // Each conversion must match its argument's type; all errors are reported at once.
    printf!("%d %f %s %p %lu\n", big, n, x, n, n);
    // A literal is an `i32` (as rustc infers it), which `%ld` does not read.
    printf!("%ld\n", 5);
}

fn main() {}
