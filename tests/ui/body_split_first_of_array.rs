use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let a = [x[0], x[1], x[2]];
    if let Some((first, rest)) = a.split_first() {
        out[0] = *first + rest.len() as u32;
    }
}

fn main() {}
