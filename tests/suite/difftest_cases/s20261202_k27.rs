//! Found by `cargo xtask difftest --replay 20261202:27` (ptxas: ptxas -arch=sm_75: ), minimised.
//! The expectation is the host's outcome for the same body built with overflow checks off
//! (as the device computes), recorded by the tester.

#![allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]

use super::support::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig, Stream};

pub mod m27 {
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceRepr};
pub const C27_0: isize = (-22isize);
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub struct S27 { pub f0: f64, pub f1: i16 }
#[kernel]
pub fn k27(p0: f64, p1: u16, xs: &[u64], s: S27, out: &mut [u64]) {
    'l2: for i3 in (0usize..=1usize).rev().step_by(1) {
        let mut v4: u16 = (((!false) & 46u8.is_power_of_two()) as u32 as u16);
        if (339830441983682974u64 + 7115812054601429328u64).is_power_of_two() { break 'l2; }
        'l5: for i6 in 0u32..((if false { 3466340183u32 } else { 2978269588u32 })).clamp(0u32, 2u32) {
            if true {
                if (true as usize).is_power_of_two() { return; }
            }
            v4 >>= (229u8 >> 3);
        }
    }
}
}

pub fn run_27(stream: &Stream) -> (String, &'static str, String) {
    let p0: f64 = f64::from_bits(0x7ff0000000000000);
    let p1: u16 = (0x2u64 as u16);
    let xs: Vec<u64> = vec![(0xffffffffffffffffu64 as u64), (0x1u64 as u64), (0x7a8f34e80eaaaaadu64 as u64)];
    let s = m27::S27 { f0: f64::from_bits(0x12cea53a48e0135f), f1: (0xfffeu64 as i16) };
    let dev = on_device(stream, 7, |st, out| { let xs = DeviceBuffer::from_slice(st, &xs)?; m27::k27::launch(st, LaunchConfig::new(1u32, 1u32), p0, p1, &xs, s, out) });
    (compare(&expected(), &dev, &[Slot::Int, Slot::F32Ulp(2), Slot::Int, Slot::Int, Slot::Int, Slot::Int, Slot::Int]), m27::k27::PTX, String::new())
}

fn expected() -> Outcome {
    Outcome::Values(vec![0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64])
}

fn line_of(marker: &str) -> u32 {
    include_str!("s20261202_k27.rs").lines().position(|l| l.starts_with(marker)).expect("marker") as u32 + 1
}

#[test]
fn difftest_s20261202_k27() {
    crate::tools::assemble("difftest s20261202 k27", m27::k27::PTX);
    let (verdict, _, _) = run_27(&crate::body_exec::cpu_stream());
    assert!(verdict.starts_with("ok"), "{verdict}");
}
