use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    assert!(out.len() > 1, "need two");
    out[1] = 1;
}

fn main() {}
