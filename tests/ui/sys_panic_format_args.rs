use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32], x: u32) {
    assert!(out.len() > 1, "need two, got {}", out.len());
    if x > 3 {
        panic!("x = {x}");
    }
    out[1] = x;
}

fn main() {}
