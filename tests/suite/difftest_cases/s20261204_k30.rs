//! Found by `cargo xtask difftest --replay 20261204:30` (ptxas: ptxas -arch=sm_75: ), minimised.
//! The expectation is the host's outcome for the same body built with overflow checks off
//! (as the device computes), recorded by the tester.

#![allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]

use super::support::*;
use ptx_runtime::{DeviceBuffer, LaunchConfig, Stream};

pub mod m30 {
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceRepr};
pub const C30_0: usize = 0usize;
pub const C30_1: u32 = 4294967290u32;
pub const C30_2: u64 = 64u64;
pub const C30_3: u8 = 0u8;
pub const C30_4: i32 = 1199171833i32;
pub const C30_5: u8 = 0u8;
pub const C30_6: f32 = 41.125f32;
pub const C30_7: u32 = 134498179u32;
pub const C30_8: usize = 10usize;
pub const C30_9: usize = 4661428242842680844usize;
pub const C30_10: u16 = 65534u16;
#[derive(Clone, Copy, Debug, DeviceRepr)]
#[repr(C)]
pub struct S30 { pub f0: u32, pub f1: isize, pub f2: isize, pub f3: u64 }
#[device_fn]
pub fn h30_0(a0: u32, a1: i32, s: S30) -> f32 {
    let b0: i16 = ((-7i16) << 3i32);
    6.440222e-16f32
}
#[kernel]
pub fn k30(p0: i32, p1: f32, p2: i16, p3: isize, xs: &[i16], s: S30, out: &mut [u64]) {
    if false {
        'b1: {
            let v2: i32 = p0;
            let mut a3: [u32; 2] = [3428121995u32, (43820116u32 << 13)];
        }
    } else {
        out[0] = 39.875f64.to_bits() as u64;
    }
    out[1] = (-4.3125f64).to_bits() as u64;
    out[2] = p2.min((C30_0 as i16)) as u64;
    out[3] = (p3 as f32 as f64).to_bits() as u64;
    match ((1u16 as usize) << s.f2) {
        n if n > 36 => {
            let mut v4 = (C30_1 as u32);
            v4 /= 7;
            let v5: i8 = (-19i8);
        }
        _ => {
            if (0u8 <= 2u8.wrapping_neg()) { return; }
        }
    }
    let mut t6 = S30 { f0: (p2 as i8).trailing_zeros(), f2: ((p3 | p3) << 39u8), ..s };
    out[4] = 0u64 as u64;
    let mut v7: f32 = p1;
    out[5] = ((-73.125f64) / (C30_2 as f64)).powf(((C30_3 as f64) * 4.5)).to_bits() as u64;
    let mut a8: [i64; 5] = [i64::MAX; 5];
    v7 = (h30_0((200038940u32 + 2u32), (2i16 as i32), s) * 3.1118406e20f32);
    v7 %= v7;
    v7 %= p1;
    t6.f3 = t6.f3;
    if (!p2.unsigned_abs().is_power_of_two()) {
        v7 = (-1.9869614e28f32).ceil().round_ties_even();
        let mut a9: [i32; 6] = [p0.rotate_left(3031533435u32); 6];
        if ((u32::MAX as f32 as usize) | (C30_4 as usize)).is_multiple_of(7243591625994109894usize.wrapping_div((1u32 as u16 as usize) | 1)) {
            out[6] = (match (-19034i16) { n @ 29..=48 if n % 2 == 0 => (98.25f64 - 9.881366358414749e-259f64), _ => ((-95.25f64) + (-0.0f64)), }).tanh().to_bits() as u64;
            a8[0] = a8[(((-12i64) << p2) as usize % 5)];
            out[7] = (match 1u8.saturating_add(C30_5) { 19 | 25 => 244u8.abs_diff(113u8), 24..=45 => (0u16 as u8), _ => 0u8.div_euclid(70u8 | 1), }).abs_diff((65534u16 as u8).reverse_bits()) as u64;
            let v10: usize = (p3 as usize);
        }
    }
}
}

pub fn run_30(stream: &Stream) -> (String, &'static str, String) {
    let p0: i32 = (0x80000001u64 as i32);
    let p1: f32 = f32::from_bits(0xa8b65b3b);
    let p2: i16 = (0xdu64 as i16);
    let p3: isize = (0xfffffffffffffffeu64 as isize);
    let xs: Vec<i16> = vec![(0x3eccu64 as i16), (0x1u64 as i16), (0x2u64 as i16)];
    let s = m30::S30 { f0: (0xffffffffu64 as u32), f1: (0x0u64 as isize), f2: (0x1u64 as isize), f3: (0x16u64 as u64) };
    let dev = on_device(stream, 12, |st, out| { let xs = DeviceBuffer::from_slice(st, &xs)?; m30::k30::launch(st, LaunchConfig::new(1u32, 1u32), p0, p1, p2, p3, &xs, s, out) });
    (compare(&expected(), &dev, &[Slot::F64, Slot::F64, Slot::Int, Slot::F64, Slot::Int, Slot::F64Ulp(1), Slot::F64Ulp(2), Slot::Int, Slot::Int, Slot::Int, Slot::F32, Slot::F32]), m30::k30::PTX, String::new())
}

fn expected() -> Outcome {
    Outcome::Values(vec![0x4043f00000000000u64, 0xc011400000000000u64, 0x0u64, 0xc000000000000000u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64, 0x0u64])
}

fn line_of(marker: &str) -> u32 {
    include_str!("s20261204_k30.rs").lines().position(|l| l.starts_with(marker)).expect("marker") as u32 + 1
}

#[test]
fn difftest_s20261204_k30() {
    crate::tools::assemble("difftest s20261204 k30", m30::k30::PTX);
    let (verdict, _, _) = run_30(&crate::body_exec::cpu_stream());
    assert!(verdict.starts_with("ok"), "{verdict}");
}
