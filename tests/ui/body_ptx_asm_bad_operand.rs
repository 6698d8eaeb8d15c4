use ptx_runtime::{kernel, ptx_asm};

#[kernel]
pub fn k(out: &mut [u32]) {
    let r: u32;
    ptx_asm!("mov.u32 {0}, {3};", out(u32) r, in(u32) 1);
    out[0] = r;
}

fn main() {}
