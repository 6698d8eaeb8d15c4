use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let b = Box::new(5u32);
    out[0] = *b;
}

fn main() {}
