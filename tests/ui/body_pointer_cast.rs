use ptx_runtime::kernel;

#[kernel]
pub fn k(p: *const f32, out: *mut u32) {
    let q = p as *const u32;
    unsafe { *out = *q };
}

fn main() {}
