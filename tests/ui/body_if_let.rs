use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [u32]) {
    if let 3 = x[0] {
        x[0] = 4;
    }
}

fn main() {}
