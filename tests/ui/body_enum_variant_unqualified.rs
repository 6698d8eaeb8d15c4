use ptx_runtime::{kernel, DeviceRepr};

#[repr(u32)]
#[derive(DeviceRepr, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
}

use Op::*;

#[kernel]
pub fn k(op: Op, out: &mut [u32]) {
    out[0] = match op {
        Add => 1,
        Mul => 2,
    };
}

fn main() {}
