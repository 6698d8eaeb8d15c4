use ptx_runtime::{device_fn, kernel};

#[device_fn]
pub fn rec<F: Fn(u32) -> u32>(f: F, n: u32) -> u32 {
    if n == 0 {
        f(0)
    } else {
        rec(f, n - 1)
    }
}

#[kernel]
pub fn k(out: &mut [u32]) {
    out[0] = rec(|v| v + 1, 3);
}

fn main() {}
