#![allow(unused)]

use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub x: f32,
}

// A hand-written `PartialEq`: device code compares field by field only for the derived one.
impl PartialEq for V {
    fn eq(&self, o: &V) -> bool {
        self.x.to_bits() == o.x.to_bits()
    }
}

#[kernel]
pub fn k(a: &[V], out: &mut [u32]) {
    out[0] = (a[0] == a[1]) as u32;
}

fn main() {}
