use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    fn twice(v: u32) -> u32 {
        v * 2
    }
    out[0] = twice(out[0]);
}

fn main() {}
