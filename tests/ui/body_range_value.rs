use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let r = 0..10u32;
    let _ = r;
    out[0] = 1;
}

fn main() {}
