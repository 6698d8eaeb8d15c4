use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let later = async { 1 };
    let _ = later;
    out[0] = 0;
}

fn main() {}
