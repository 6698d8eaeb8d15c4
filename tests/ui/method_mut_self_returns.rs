#![allow(unused)]

use ptx_runtime::{device_fn, DeviceRepr};

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Counter {
    pub n: u32,
}

#[device_fn]
impl Counter {
    /// Copy-in/copy-out: the updated receiver is the return value, so there is no room for
    /// another.
    pub fn bump(&mut self) -> u32 {
        self.n += 1;
        self.n
    }
}

fn main() {}
