use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u8]) {
    let greeting = "hello";
    out[0] = greeting.len() as u8;
}

fn main() {}
