use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [u32]) {
    let found = Some(x[0]);
    let _ = found;
}

fn main() {}
