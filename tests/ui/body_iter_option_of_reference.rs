use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let first = x.iter().enumerate().find(|(_, v)| **v > 3);
    out[0] = first.map_or(0, |(i, v)| *v + i as u32);
}

fn main() {}
