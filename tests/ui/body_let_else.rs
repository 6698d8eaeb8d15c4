use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let 3 = out[0] else { return };
    out[0] = 4;
}

fn main() {}
