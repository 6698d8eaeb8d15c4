use ptx_runtime::kernel;

fn adder(k: u32) -> impl Fn(&u32) -> u32 {
    move |v| *v + k
}

#[kernel]
pub fn k(x: &[u32], out: &mut [u32]) {
    out[0] = x.get(1).map(adder(1)).unwrap_or(0);
}

fn main() {}
