use core::ops::{Index, IndexMut};
use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct V {
    pub a: [f32; 2],
}

#[device_fn]
impl Index<usize> for V {
    type Output = f32;
    fn index(&self, i: usize) -> &Self::Output {
        &self.a[i]
    }
}

/// `Self::Output` is defined in the other impl, which this one's macro cannot see.
#[device_fn]
impl IndexMut<usize> for V {
    fn index_mut(&mut self, i: usize) -> &mut Self::Output {
        &mut self.a[i]
    }
}

fn main() {}
