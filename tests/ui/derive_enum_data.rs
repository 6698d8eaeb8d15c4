#![allow(unused)]

use ptx_runtime::DeviceRepr;

// With fields, `repr(C)` alone has a C `int` tag: the device needs a fixed integer.
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub enum Shape {
    Circle { r: f32 },
    Empty,
}

// No repr: Rust's layout of an enum with fields is unspecified.
#[derive(Clone, Copy, DeviceRepr)]
pub enum Tok {
    Num(i32),
    End,
}

// `repr(C, u8)` with a field type that has no device layout.
#[derive(Clone, DeviceRepr)]
#[repr(C, u8)]
pub enum Msg {
    Text(String),
    Code(u32),
}

fn main() {}
