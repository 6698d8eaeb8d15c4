#![allow(unused)]

use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Pair<T> {
    pub a: T,
    pub b: T,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Arr<const N: usize> {
    pub v: [f32; N],
}

// The fields' literals do not fix `T` (rustc takes it from the annotation).
#[kernel]
pub fn k(out: &mut [Pair<f32>]) {
    let q: Pair<f32> = Pair { a: 1.0, b: 2.0 };
    out[0] = q;
}

// A const argument is an integer literal.
#[kernel]
pub fn arr(a: Arr<4>, b: &[Arr<{ 2 + 2 }>], out: &mut [f32]) {
    out[0] = a.v[0] + b[0].v[1];
}

fn main() {}
