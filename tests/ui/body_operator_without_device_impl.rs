use core::ops::Add;
use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

impl Add for V {
    type Output = V;
    fn add(self, o: V) -> V {
        V { x: self.x + o.x }
    }
}

#[kernel]
pub fn k(v: &[V], out: &mut [V]) {
    out[0] = v[0] + v[1];
}

fn main() {}
