//! Found by `cargo xtask difftest --replay 12:0` (rejected: error: can't call method `trailing_zeros` on a value whose type is not known yet; annotate it (`let x: u32 = ...` or a literal suffix `1u32`)), minimised.
//! It was rejected, so it never ran on the host: the test checks that it compiles, assembles
//! and runs; `cargo xtask difftest --replay` compares its values.

#![allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]

use super::support::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig, Stream};

pub mod m0 {
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceRepr};
pub const C0_0: i8 = 2i8;
pub const C0_1: isize = (-31isize);
pub const C0_2: f32 = 1e-45f32;
pub const C0_3: u64 = 1u64;
pub const C0_4: f64 = 31.6875f64;
pub const C0_5: i64 = 0i64;
pub const C0_6: u64 = 18446744073709551600u64;
pub const C0_7: usize = 10381393666862756290usize;
pub const C0_8: usize = 639136037568806384usize;
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub struct S0 { pub f0: i8 }
#[kernel]
pub fn k0(p0: f32, p1: i32, p2: i16, p3: u16, xs: &[u64], s: S0, out: &mut [u64]) {
    let mut a9: [u64; 5] = [(1u64 ^ C0_3), (C0_4 as u64), 1u64.min(7u64), 18446744073709551614u64, 8370870414164232935u64.pow(7)];
    if (if (19u32.is_multiple_of(1u32) | true) { (p2.max(p2) == (21i16 << 3usize)) } else { (u8::MAX - 254).is_power_of_two() }) {
        {
            let q12 = 4;
            a9[q12] = (q12.trailing_zeros() as u64);
        }
    }
}
}

pub fn run_0(stream: &Stream) -> (String, &'static str, String) {
    let p0: f32 = f32::from_bits(0xc2744000);
    let p1: i32 = (0x69e3ac8cu64 as i32);
    let p2: i16 = (0xffffu64 as i16);
    let p3: u16 = (0x2u64 as u16);
    let xs: Vec<u64> = vec![(0x4aa07e92b43155f7u64 as u64), (0x1au64 as u64), (0xffffffffffffffecu64 as u64), (0xfffffffffffffff1u64 as u64), (0x0u64 as u64), (0x5u64 as u64), (0x1u64 as u64)];
    let s = m0::S0 { f0: (0xcfu64 as i8) };
    let dev = on_device(stream, 17, |st, out| { let xs = DeviceBuffer::from_slice(st, &xs)?; m0::k0::launch(st, LaunchConfig::new(1u32, 1u32), p0, p1, p2, p3, &xs, s, out) });
    (compare(&expected(), &dev, &[Slot::Int, Slot::Int, Slot::F64Ulp(1), Slot::Int, Slot::F32Ulp(1), Slot::Int, Slot::Int, Slot::F64Ulp(1), Slot::F32Ulp(1), Slot::F64, Slot::Int, Slot::Int, Slot::Int, Slot::Int, Slot::Int, Slot::Int, Slot::Int]), m0::k0::PTX, String::new())
}

fn expected() -> Outcome {
    Outcome::Error("not recorded: #[kernel] rejected this kernel when it was found".into())
}

fn line_of(marker: &str) -> u32 {
    include_str!("s12_k0.rs").lines().position(|l| l.starts_with(marker)).expect("marker") as u32 + 1
}

#[test]
fn difftest_s12_k0() {
    crate::tools::assemble("difftest s12 k0", m0::k0::PTX);
    let (verdict, _, _) = run_0(&crate::body_exec::cpu_stream());
    assert!(verdict.starts_with("ok") || verdict.starts_with("device-error host: not recorded"), "{verdict}");
}
