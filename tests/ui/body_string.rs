use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [u8]) {
    let s = String::new();
    x[0] = s.len() as u8;
}

fn main() {}
