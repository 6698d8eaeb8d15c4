use ptx_runtime::{device_fn, kernel};

#[device_fn]
pub fn twice(x: u32) -> u32 { x * 2 }

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let mut it = x.iter().peekable();
    let mut s = 0;
    while let Some(v) = it.next() {
        s += twice(*v);
    }
    for v in it {
        s += v;
    }
    let mut f = x.iter().filter(|v| **v > 2).peekable();
    out[0] = s + f.next().copied().unwrap_or(0);
}

fn main() {}
