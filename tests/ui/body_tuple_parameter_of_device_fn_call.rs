use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [(u32, u32)]) {
    out[0] = (1, 2);
}

fn main() {}
