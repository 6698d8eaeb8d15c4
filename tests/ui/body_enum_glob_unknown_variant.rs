use ptx_runtime::{kernel, DeviceRepr};

#[repr(u8)]
#[derive(DeviceRepr, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
}

// With the glob inside the body a name that is no variant compiled and trapped at run time:
// the device read `Op::Div`, Rust a binding. Now one error at the pattern, naming the variants.
#[kernel]
pub fn k(op: Op, out: &mut [u32]) {
    use Op::*;
    out[0] = match op {
        Add => 1,
        Sub => 3,
        Div => 2,
    };
}

fn main() {}
