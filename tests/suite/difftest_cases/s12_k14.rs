//! Found by `cargo xtask difftest --replay 12:14` (mismatch: slot=0 kind=F64 host=0xc0a2cfa000000000 dev=0x40d7d20c00000000), minimised.
//! The expectation is the host's outcome for the same body built with overflow checks off
//! (as the device computes), recorded by the tester.

#![allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]

use super::support::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig, Stream};

pub mod m14 {
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceRepr};
pub const C14_0: f32 = 104.6875f32;
pub const C14_1: u32 = 3480447977u32;
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub struct S14 { pub f0: f64, pub f1: i64, pub f2: u64 }
#[kernel]
pub fn k14(p0: bool, p1: usize, p2: isize, xs: &[u8], s: S14, out: &mut [u64]) {
    let mut v1 = ((C14_0 as f64) * ((C14_1 as i8) as f64));
    out[0] = v1.to_bits() as u64;
}
}

pub fn run_14(stream: &Stream) -> (String, &'static str, String) {
    let p0: bool = false;
    let p1: usize = (0xffffffffffffffffu64 as usize);
    let p2: isize = (0xf20f6638c14d046u64 as isize);
    let xs: Vec<u8> = vec![(0xffu64 as u8), (0x45u64 as u8), (0xcbu64 as u8), (0x1u64 as u8), (0xddu64 as u8), (0xffu64 as u8), (0x0u64 as u8)];
    let s = m14::S14 { f0: f64::from_bits(0x42fd9d06ec3765ea), f1: (0x3u64 as i64), f2: (0xffffffffffffffe3u64 as u64) };
    let dev = on_device(stream, 11, |st, out| { let xs = DeviceBuffer::from_slice(st, &xs)?; m14::k14::launch(st, LaunchConfig::new(1u32, 1u32), p0, p1, p2, &xs, s, out) });
    (compare(&expected(), &dev, &[Slot::F64, Slot::Int, Slot::F32Ulp(1), Slot::Int, Slot::F32Ulp(1), Slot::Int, Slot::Int, Slot::Int, Slot::Int, Slot::Int, Slot::F64]), m14::k14::PTX, String::new())
}

fn expected() -> Outcome {
    Outcome::Values(vec![0xc0a2cfa000000000u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64])
}

fn line_of(marker: &str) -> u32 {
    include_str!("s12_k14.rs").lines().position(|l| l.starts_with(marker)).expect("marker") as u32 + 1
}

#[test]
fn difftest_s12_k14() {
    crate::tools::assemble("difftest s12 k14", m14::k14::PTX);
    let (verdict, _, _) = run_14(&crate::body_exec::cpu_stream());
    assert!(verdict.starts_with("ok"), "{verdict}");
}
