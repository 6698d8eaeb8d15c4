//! Found by `cargo xtask difftest --replay 20261125:352` (ptxas 13.5 crashed, a segmentation
//! fault on sm_75 and sm_90, on the loop below: a constant-false `return` and `panic!` left as
//! branches on `mov.pred` constants; `ir/constprop.rs` now folds such branches), minimised.
//! The expectation is the host's outcome for the same body built with overflow checks off
//! (as the device computes), recorded by the tester.

#![allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]

use super::support::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig, Stream};

pub mod m352 {
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceRepr};
pub const C352_0: f32 = 71.75f32;
pub const C352_1: u64 = 18446744073709551614u64;
pub const C352_2: u64 = 18446744073709551579u64;
pub const C352_3: u8 = 7u8;
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub struct S352 { pub f0: u16, pub f1: usize }
#[kernel]
pub fn k352(p0: u16, p1: i16, p2: i8, xs: &[u32], s: S352, out: &mut [u64]) {
    'l11: for i12 in 3u16..((p0 >> 6)).clamp(3u16, 4u16) {
        if (if false { 4.0625f32 } else { 6.4722945e-37f32 }).is_infinite() { return; }
        if ((-136813.45f32).is_nan() && true) { panic!("boom"); }
    }
}
}

pub fn run_352(stream: &Stream) -> (String, &'static str, String) {
    let p0: u16 = (0x2u64 as u16);
    let p1: i16 = (0xe2adu64 as i16);
    let p2: i8 = (0x81u64 as i8);
    let xs: Vec<u32> = vec![(0xc946a584u64 as u32), (0x20u64 as u32), (0xfffffffeu64 as u32)];
    let s = m352::S352 { f0: (0xffffu64 as u16), f1: (0x0u64 as usize) };
    let dev = on_device(stream, 4, |st, out| { let xs = DeviceBuffer::from_slice(st, &xs)?; m352::k352::launch(st, LaunchConfig::new(1u32, 1u32), p0, p1, p2, &xs, s, out) });
    (compare(&expected(), &dev, &[Slot::Int, Slot::F64Ulp(1), Slot::F64Ulp(3), Slot::Int]), m352::k352::PTX, String::new())
}

fn expected() -> Outcome {
    Outcome::Values(vec![0x0u64, 0x0u64, 0x0u64, 0x0u64])
}

fn line_of(marker: &str) -> u32 {
    include_str!("s20261125_k352.rs").lines().position(|l| l.starts_with(marker)).expect("marker") as u32 + 1
}

#[test]
fn difftest_s20261125_k352() {
    crate::tools::assemble("difftest s20261125 k352", m352::k352::PTX);
    let (verdict, _, _) = run_352(&crate::body_exec::cpu_stream());
    assert!(verdict.starts_with("ok"), "{verdict}");
}
