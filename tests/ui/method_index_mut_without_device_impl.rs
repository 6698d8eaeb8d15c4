use core::ops::Index;
use ptx_runtime::{device_fn, kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub a: [f32; 2],
}

#[device_fn]
impl Index<usize> for V {
    type Output = f32;
    fn index(&self, i: usize) -> &f32 {
        &self.a[i]
    }
}

impl core::ops::IndexMut<usize> for V {
    fn index_mut(&mut self, i: usize) -> &mut f32 {
        &mut self.a[i]
    }
}

#[kernel]
pub fn k(v: &mut [V]) {
    let mut x = v[0];
    x[1] = x[0];
    v[0] = x;
}

fn main() {}
