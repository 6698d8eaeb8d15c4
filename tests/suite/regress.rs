//! Regression tests for miscompiles and rejections found by differential testing (issue 12):
//! each kernel runs on the CPU backend and as plain Rust on the host over the same inputs, and
//! the outputs must agree bit for bit (`body_subset::check_map`); every module goes through
//! ptxas. Minimised cases from the differential tester are added here, one kernel per bug.

// The kernels are the reproductions as found: `x as u64` of a `u64`, index loops.
#![allow(clippy::unnecessary_cast, clippy::needless_range_loop, clippy::assign_op_pattern)]

use crate::body_subset::{check_map, Same};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

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

/// Runs a one-thread kernel over `n` outputs on the host and on the CPU backend, compares
/// them, and returns the host's.
fn check_one<T>(name: &str, ptx: &str, n: usize, body: impl Fn(&mut [T]) + Sync, launch: impl Fn(&Stream, LaunchConfig, &mut DeviceBuffer<T>) -> Result<()>) -> Vec<T>
where
    T: DeviceRepr + Default + Clone + Send + std::fmt::Debug + Same,
{
    assemble(name, ptx);
    let mut host_out = vec![T::default(); n];
    let o = host::Disjoint::new(&mut host_out);
    // SAFETY: one thread.
    host::run([1, 1, 1], [1, 1, 1], 0, || body(unsafe { o.get() }));
    let stream = crate::body_exec::cpu_stream();
    let mut out = DeviceBuffer::<T>::zeroed(&stream, n).expect("alloc");
    launch(&stream, LaunchConfig::new(1, 1), &mut out).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dev = out.to_vec().expect("download");
    assert!(dev.iter().zip(&host_out).all(|(d, h)| d.same(h)), "{name}: device {dev:?}, host {host_out:?}");
    host_out
}

macro_rules! check_one {
    ($k:ident, $n:expr) => {
        check_one(stringify!($k), $k::PTX, $n, |o| $k(o), |s, c, o| $k::launch(s, c, o))
    };
}

// ---- issue 12, bug 2: the value of `=` was typed before its place ----

/// The reproduction: indexing makes `q` a `usize` before `pow` is looked up.
#[kernel]
pub fn place_typed_first(out: &mut [u64]) {
    let q = 3;
    out[q] = q.pow(1) as u64;
}

#[test]
fn assignment_types_the_place_first() {
    assert_eq!(check_one!(place_typed_first, 4), [0, 0, 0, 3]);
}

#[kernel]
pub fn loop_var_is_multiple_of(a: &mut [bool]) {
    for q in 0..4 {
        a[q] = q.is_multiple_of(2); // only unsigned types have it: `q` must be `usize` here
    }
}

#[kernel]
pub fn loop_var_pow(a: &mut [usize]) {
    for q in 0..3 {
        a[q] = q.pow(2);
    }
    // Compound assignment types its place first too (as rustc does).
    for q in 0..3 {
        a[q + 3] += q.pow(3) + q.leading_zeros() as usize;
    }
    let r = 7;
    a[r] = r.wrapping_sub(9); // wraps in `usize`, not in `i32`
    let s = 6;
    a[s] = s.abs_diff(10) * 3;
    a[s] -= s.abs_diff(10) + s.count_ones() as usize;
}

#[test]
fn loop_variables_typed_by_the_place() {
    assert_eq!(check_one!(loop_var_is_multiple_of, 4), [true, false, true, false]);
    let got = check_one!(loop_var_pow, 8);
    assert_eq!(&got[..6], [0, 1, 4, 64, 64, 70]); // 0³ + 64, 1³ + 63, 2³ + 62 leading zeros
    assert_eq!(got[7], usize::MAX - 1);
    assert_eq!(got[6], 12 - (4 + 2));
}

#[device_fn]
pub fn add_then_square(a: usize, b: usize) -> usize {
    (a + b) * (a + b)
}

/// A local array indexed by an unrolled loop variable, and a device function's arguments
/// typed in order (the first fixes `q`, the second calls a method on it).
#[kernel]
pub fn typed_by_other_uses(out: &mut [u64]) {
    let mut a = [0u32; 4];
    for q in 0..4 {
        a[q] = q.pow(2) as u32 + q.trailing_zeros();
    }
    let q = 5;
    let v = add_then_square(q, q.reverse_bits() >> 60); // 5 + 10 in 64 bits
    let w = 40;
    let x: u8 = w;
    out[0] = a[0] as u64 | (a[1] as u64) << 8 | (a[2] as u64) << 16 | (a[3] as u64) << 24;
    out[1] = v as u64;
    out[2] = w.rotate_left(6) as u64 + x as u64; // `w` is a `u8`: rotates in 8 bits
}

#[test]
fn integer_types_fixed_by_earlier_uses() {
    let got = check_one!(typed_by_other_uses, 3);
    // q² + the trailing zeros of q as a `usize` (64 for 0).
    assert_eq!(got[0], 64 | 1 << 8 | 5 << 16 | 9 << 24);
    assert_eq!(got[1], 225);
    assert_eq!(got[2], 40u8.rotate_left(6) as u64 + 40);
}

// ---- constants whose type nothing in the body fixes ----

pub const SMALL: i32 = -7;
pub const REPS: i32 = 5;
pub const HALF: f64 = 0.1;

/// Only Rust's fallback types these (`i32`, `f64`); the expansion checks the constants have
/// that type (`tests/ui/body_const_type_guessed.rs` is the case where they do not).
#[kernel]
pub fn fallback_typed_consts(x: &[u64], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let y = 3;
        let mut n = 0;
        for _ in 0..REPS {
            n += y * SMALL;
        }
        let s = 0.3;
        out[i] = (n as u64) ^ ((s * HALF * 1e6) as u64) << 20 ^ (x[i] >> 3);
    }
}

#[test]
fn constants_typed_by_the_fallback() {
    let got = check!(fallback_typed_consts);
    assert_eq!(got[0], (-105i64 as u64) ^ ((0.3f64 * 0.1 * 1e6) as u64) << 20);
}

#[device_fn]
pub fn times_three(a: u32) -> u32 {
    a.wrapping_mul(3)
}

/// `q` is fixed by a device function's parameter, which the compiler learns only in a later
/// round (the callee's signature is fetched): the method must wait for that round.
#[kernel]
pub fn typed_by_a_callee(out: &mut [u64]) {
    let q = 4;
    let w = times_three(q);
    let r = 0xdead_beef;
    let v = times_three(r);
    out[0] = q.is_power_of_two() as u64 | (w as u64) << 8 | (r.reverse_bits() as u64) << 32;
    out[1] = v.leading_zeros() as u64;
}

#[test]
fn integer_types_fixed_by_a_callee() {
    let got = check_one!(typed_by_a_callee, 2);
    assert_eq!(got[0], 1 | 12 << 8 | (0xdead_beefu32.reverse_bits() as u64) << 32);
}
