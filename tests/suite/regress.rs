//! Regression tests for miscompiles and rejections found by differential testing (issue 12):
//! each kernel runs on the CPU backend and as plain Rust on the host over the same inputs, and
//! the outputs must agree bit for bit (`body_subset::check_map`); every module goes through
//! ptxas. Minimised cases from the differential tester are added here, one kernel per bug.

// The kernels are the reproductions as found: `x as u64` of a `u64`, index loops.
#![allow(clippy::unnecessary_cast, clippy::needless_range_loop)]

use crate::body_subset::check_map;
use ptx_runtime::device::*;
use ptx_runtime::kernel;

/// Inputs that reach every sign and width boundary of the narrow types.
fn inputs() -> Vec<u64> {
    let mut v: Vec<u64> = vec![0, 1, 2, 3, 44, 45, 127, 128, 129, 200, 255, 256, 32767, 32768, 65535, 65536, u32::MAX as u64, u64::MAX];
    v.extend((0..64).map(|k| (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 7)));
    v
}

/// `check_map` over `inputs()` for a `fn(&[u64], &mut [u64])` kernel.
macro_rules! check {
    ($k:ident) => {
        check_map(stringify!($k), $k::PTX, &inputs(), |x, o| $k(x, o), |s, c, i, o| $k::launch(s, c, i, o))
    };
}

// ---- issue 12, bug 1: narrow signed constants from outside the body were zero-extended ----

pub const C: i8 = -127;
pub const N: i32 = 200; // `N as i8` is -56
pub const U: u16 = 0xffa3; // `U as i8` is -93
pub const I: i64 = -100;
pub const F: f32 = -100.75;
pub const C16: i16 = -30000;
pub const M16: i32 = 0x1_8001; // `M16 as i16` is -32767

/// The first reproduction: widening an `i8` constant.
#[kernel]
pub fn i8_const_widened(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let v: i8 = C;
        out[i] = v as u64;
    }
}

#[test]
fn i8_constant_is_sign_extended() {
    let got = check!(i8_const_widened);
    assert_eq!(got[0], 0xffff_ffff_ffff_ff81);
}

/// `N as i8` of a wider constant, mixed with values read at run time.
#[kernel]
pub fn narrowed_consts(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let a = N as i8;
        let b = x[i] as i8;
        let w = a as i64 + b as i64; // signed widening of both
        let m = a.min(b) as i32; // signed min
        let lt = (b < N as i8) as u64; // signed comparison
        out[i] = (w as u64) ^ ((m as u64) << 16) ^ (lt << 63) ^ ((U as i8) as i32 as u64).rotate_left(40);
    }
}

#[test]
fn wider_constant_cast_to_i8() {
    check!(narrowed_consts);
}

/// `(x as i8) ^ C`, `(U as i8).div_euclid(-20)`, `(I as i8) % 45`, `(F as i8).unsigned_abs()`:
/// the other four mismatches of the issue.
#[kernel]
pub fn i8_const_ops(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let a = (x[i] as i8) ^ C;
        let b = (U as i8).div_euclid(-20);
        let c = (I as i8) % 45;
        let d = (F as i8).unsigned_abs();
        let e = (x[i] as i8).wrapping_add(C) / 3;
        out[i] = (a as u64) ^ ((b as u64) << 8) ^ ((c as i64 as u64) << 20) ^ ((d as u64) << 40) ^ ((e as i16 as u64) << 48);
    }
}

#[test]
fn i8_constant_in_signed_operations() {
    let got = check!(i8_const_ops);
    // Independently of the host run, element 0 (x = 0) worked out by hand: a = -127,
    // b = -93 div_euclid -20 = 5, c = -100 % 45 = -10, d = |-100| = 100, e = -127 / 3 = -42.
    let want = 0xffff_ffff_ffff_ff81u64 ^ (5 << 8) ^ ((-10i64 as u64) << 20) ^ (100 << 40) ^ ((-42i64 as u64) << 48);
    assert_eq!(got[0], want);
}

/// `i16` constants (they fill their register) and `N as i16` of a wider one.
#[kernel]
pub fn i16_consts(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let v = x[i] as i16;
        let a = C16 as i64;
        let b = (M16 as i16).max(v) as i32;
        let c = v.wrapping_sub(C16) % (M16 as i16);
        let d = ((C16 as i16) >> 3) as u16;
        out[i] = (a as u64) ^ ((b as u64) << 7) ^ ((c as i64 as u64) << 13) ^ ((d as u64) << 32);
    }
}

#[test]
fn i16_constants() {
    check!(i16_consts);
}

pub const FZ: f32 = -0.0;
pub const FN: f32 = f32::from_bits(0x7fc0_1234); // a NaN with a payload
pub const FS: f32 = f32::from_bits(1); // the smallest subnormal
pub const DZ: f64 = -0.0;
pub const DN: f64 = f64::from_bits(0xfff8_0000_dead_beef);
pub const DX: f64 = 1.0e300;

/// Float constants (typed by a cast: the macro sees only their names): their bits exactly (-0.0, NaN payloads, subnormals), and their casts.
#[kernel]
pub fn float_consts(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        out[i] = match i % 8 {
            0 => (FZ as f32).to_bits() as u64,
            1 => (FN as f32).to_bits() as u64,
            2 => (FS as f32).to_bits() as u64,
            3 => (DZ as f64).to_bits(),
            4 => (DN as f64).to_bits(),
            5 => (DX as f32).to_bits() as u64, // rustc's cast: +inf
            6 => (F as i8) as u64 ^ ((DX as i32) as u64) << 8, // saturating
            _ => (x[i] as f64 * DZ).to_bits(),
        };
    }
}

#[test]
fn float_constants_keep_their_bits() {
    let got = check!(float_consts);
    assert_eq!(got[0], 0x8000_0000);
    assert_eq!(got[1], 0x7fc0_1234);
    assert_eq!(got[4], 0xfff8_0000_dead_beef);
}
