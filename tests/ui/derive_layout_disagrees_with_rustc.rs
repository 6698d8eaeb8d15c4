#![allow(unused)]

use ptx_runtime::abi::{Layout, ParamAbi};
use ptx_runtime::DeviceRepr;

/// A hand-written impl that lies: it claims 8-byte alignment for a 4-byte type.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Liar(u32);

unsafe impl DeviceRepr for Liar {
    const LAYOUT: Layout = Layout::new(8, 8);
    const PARAM: ParamAbi = ParamAbi::Aggregate(Self::LAYOUT);
    fn write_bytes(&self, out: &mut [u8]) {}
}

// The derive places `l` at offset 8 by the ABI rules; rustc places it at 4.
#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Outer {
    a: u8,
    l: Liar,
}

fn main() {}
