use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair<T> {
    pub a: T,
    pub b: T,
}

#[kernel]
pub fn k(p: &[Pair<f32>], out: &mut [f32]) {
    let q = p[0];
    out[0] = q.a + q.b;
}

fn main() {}
