// A generic struct instantiated past Rust's size limit (`isize::MAX` bytes): one error at the
// kernel, naming the field; the fuzzer once found this a panic.
use ptx_runtime::{kernel, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Ring<T: Copy, const N: usize> {
    pub head: u32,
    pub items: [T; N],
}

#[kernel]
pub fn newest(rs: &[Ring<f64, 0xF0F0_F0F0_1234_5678>], out: &mut [u32]) {
    out[0] = rs[0].head;
}

fn main() {}
