use ptx_runtime::kernel;

#[kernel]
pub fn k(out: &mut [u64]) {
    let wide: u128 = out[0] as u128 * 3;
    out[0] = wide as u64;
}

fn main() {}
