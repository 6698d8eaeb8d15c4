use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    out[0] = x.get(1).map(|v| *v + 1).unwrap_or(0);
}

fn main() {}
