use ptx_runtime::{device_fn, kernel};

#[device_fn]
pub fn fold_with<T: Copy, F: Fn(T, T) -> T>(xs: &[T], init: T, f: F) -> T {
    let mut acc: T = init;
    for x in xs.iter() {
        acc = f(acc, *x);
    }
    acc
}

#[kernel]
pub fn k(x: &[f32], out: &mut [f32]) {
    out[0] = fold_with(x, 0.0, |a, b| a + b);
}

fn main() {}
