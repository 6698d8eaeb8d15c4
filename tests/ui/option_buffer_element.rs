use ptx_runtime::kernel;

#[kernel]
pub fn k(_x: &[Option<u32>], out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
