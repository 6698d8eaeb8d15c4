use ptx_runtime::kernel;

fn helper(v: u32) -> u32 {
    v + 1
}

#[kernel]
pub fn k(out: &mut [u32]) {
    out[0] = helper(out[0]);
}

fn main() {}
