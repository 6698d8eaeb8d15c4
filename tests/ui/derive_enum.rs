#![allow(unused)]

use ptx_runtime::DeviceRepr;

// `repr(C)` alone is C's `int`-sized enum: the device needs a fixed integer.
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub enum Mode {
    Fast,
    Exact,
}

// With fields too, a discriminant is an integer literal (the device compiler reads the tags from the tokens).
const BASE: u32 = 4;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(u32)]
pub enum Shape {
    Circle(f32),
    Square = BASE,
}

// No repr at all.
#[derive(Clone, Copy, DeviceRepr)]
pub enum Bare {
    A,
}

fn main() {}
