use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u32]) {
    let c = 'a';
    out[0] = c as u32;
}

fn main() {}
