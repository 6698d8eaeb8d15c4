use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let rows = |r: &u32| 0..*r;
    out[0] = x.iter().flat_map(rows).sum();
}

fn main() {}
