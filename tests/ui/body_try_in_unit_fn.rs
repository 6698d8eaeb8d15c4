use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let v = x.first()?;
    out[0] = *v;
}

fn main() {}
