use core::cmp::Ordering;
use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let m = x.iter().min_by(|a, b| if a < b { Ordering::Less } else { Ordering::Greater });
    out[0] = *m.unwrap();
}

fn main() {}
