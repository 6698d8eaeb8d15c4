use ptx_runtime::kernel;

#[kernel]
pub fn k(x: &mut [f32]) {
    let shown: &dyn core::fmt::Debug = &x[0];
    let _ = shown;
}

fn main() {}
