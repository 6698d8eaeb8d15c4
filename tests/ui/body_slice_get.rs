use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let v = x.get(3);
    let _ = v;
    out[0] = 1;
}

fn main() {}
