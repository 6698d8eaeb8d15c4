use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let mut acc = 0u32;
    let r = &mut acc;
    *r += 1;
    out[0] = acc;
}

fn main() {}
