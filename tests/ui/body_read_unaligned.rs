use ptx_runtime::kernel;

#[kernel]
pub fn k(p: *const u32, out: &mut [u32]) {
    out[0] = unsafe { p.read_unaligned() };
}

fn main() {}
