use ptx_runtime::kernel;

static mut COUNTER: u32 = 0;

#[kernel]
pub fn k(out: &mut [u32]) {
    unsafe {
        COUNTER += 1;
    }
    out[0] = 1;
}

fn main() {}
