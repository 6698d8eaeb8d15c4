use ptx_runtime::{kernel, DeviceRepr};

#[repr(u32)]
#[derive(DeviceRepr, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
}

// The variants imported outside the function are found through the scrutinee's type; a name
// that is none of them would be a binding matching everything in Rust.
use Op::*;

#[kernel]
pub fn k(op: Op, out: &mut [u32]) {
    out[0] = match op {
        Add => 1,
        Mul => 2,
    };
    out[1] = match op {
        Add => 1,
        Div => 2,
    };
}

fn main() {}
