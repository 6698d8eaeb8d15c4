use ptx_runtime::{kernel, DeviceRepr};

#[repr(u8)]
#[derive(Clone, Copy, DeviceRepr)]
pub enum Op {
    Add,
    Mul,
}

// The unknown variant is reported once, by rustc.
#[kernel]
pub fn k(op: Op, out: &mut [u32]) {
    out[0] = match op {
        Op::Add => 1,
        Op::Div => 2,
        _ => 0,
    };
}

fn main() {}
