use ptx_runtime::device::*;
use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let t = (thread_idx_x(), 3u32);
    out[0] = match t {
        (0, x) | (x, 0) => x,
        _ => 1,
    };
}

fn main() {}
