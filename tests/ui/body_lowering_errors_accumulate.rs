use ptx_runtime::kernel;

// Rules checked while lowering are all reported, each once, not only the first.
#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    let a = [1u32; 4];
    out[0] = a[5];
    let big = [0u32; 5000];
    out[1] = big[x[0] as usize];
    let b = [2u32; 3];
    out[2] = b[7];
    if x[1] > 0 {
        let c = [3u32; 2];
        out[3] = c[4];
    }
}

fn main() {}
