//! The subset, feature by feature: each kernel maps inputs to outputs (one thread per
//! element); its PTX goes through ptxas, its body runs on the host over the grid, and on the
//! CPU backend its outputs must equal the host's bit for bit.

// The kernels spell out the language forms under test (a `loop` that breaks with a value at
// once, `x % 1`, index loops, casts to the same type...): the device compiler must handle what
// is written, so clippy's rewrites would test less.
#![allow(clippy::never_loop, clippy::modulo_one, clippy::erasing_op, clippy::identity_op, clippy::needless_range_loop, clippy::manual_is_multiple_of, clippy::unnecessary_cast, clippy::assign_op_pattern, clippy::too_many_arguments, clippy::needless_late_init, clippy::redundant_closure, clippy::manual_range_patterns, clippy::manual_div_ceil)]

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::half::{bf16, f16};
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

/// Equality for comparing device and host results: bit for bit, except that any two NaNs
/// are the same (Rust leaves NaN payloads unspecified, and PTX produces canonical NaNs).
pub trait Same {
    fn same(&self, other: &Self) -> bool;
}

macro_rules! same_by_eq {
    ($($t:ty),*) => {$(
        impl Same for $t {
            fn same(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}
same_by_eq!(i8, u8, i16, u16, i32, u32, i64, u64, usize, bool);

impl Same for f32 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}

impl Same for f64 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}

impl Same for Casts {
    fn same(&self, o: &Self) -> bool {
        (self.i8_, self.u8_, self.i16_, self.u16_, self.i32_, self.u32_, self.i64_, self.u64_, self.flag) == (o.i8_, o.u8_, o.i16_, o.u16_, o.i32_, o.u32_, o.i64_, o.u64_, o.flag)
            && self.f32_.same(&o.f32_)
            && self.f64_.same(&o.f64_)
    }
}

/// Runs a map kernel on the host (`body`) and on the CPU backend (`launch`), and compares.
pub(crate) fn check_map<I, O>(
    name: &str,
    ptx: &str,
    inputs: &[I],
    body: impl Fn(&[I], &mut [O]) + Sync,
    launch: impl Fn(&Stream, LaunchConfig, &DeviceBuffer<I>, &mut DeviceBuffer<O>) -> Result<()>,
) -> Vec<O>
where
    I: DeviceRepr + Sync,
    O: DeviceRepr + Default + Send + std::fmt::Debug + Same,
{
    assemble(name, ptx);
    let n = inputs.len();
    let blocks = n.div_ceil(64) as u32;
    let mut host_out: Vec<O> = (0..n).map(|_| O::default()).collect();
    let o = host::Disjoint::new(&mut host_out);
    // SAFETY: every kernel here writes only its own element.
    host::run([blocks, 1, 1], [64, 1, 1], 0, || body(inputs, unsafe { o.get() }));
    let stream = crate::body_exec::cpu_stream();
    let inp = DeviceBuffer::from_slice(&stream, inputs).expect("upload");
    let mut out = DeviceBuffer::<O>::zeroed(&stream, n).expect("alloc");
    launch(&stream, LaunchConfig::new(blocks, 64), &inp, &mut out).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dev = out.to_vec().expect("download");
    if let Some(first) = dev.iter().zip(&host_out).position(|(d, h)| !d.same(h)) {
        panic!("{name}: device and host differ first at element {first}: device {:?}, host {:?}", dev[first], host_out[first]);
    }
    host_out
}

// ---- bindings and control flow ----

#[kernel]
pub fn bindings(x: &[i32], out: &mut [i32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let v = v * 2; // shadowing
    let w: i64;
    if v > 10 {
        w = v as i64 * 3;
    } else {
        w = -1;
    }
    let block_value = {
        let t = v + 1;
        t * t
    };
    let mut acc = 0;
    let mut k = 0;
    while k < 5 {
        k += 1;
        if k == 2 {
            continue;
        }
        acc += k;
    }
    let found = 'outer: loop {
        for a in 0..10 {
            for b in 0..10 {
                if a * b == v.rem_euclid(50) {
                    break 'outer a * 100 + b;
                }
            }
        }
        break -1;
    };
    out[i] = block_value.wrapping_add(w as i32).wrapping_add(acc).wrapping_add(found);
}

#[test]
fn bindings_and_control_flow() {
    let inputs: Vec<i32> = (-40..60).collect();
    let got = check_map("bindings", bindings::PTX, &inputs, |x, o| bindings(x, o), |s, c, i, o| bindings::launch(s, c, i, o));
    for (x, g) in inputs.iter().zip(&got) {
        let v = x * 2;
        let w: i64 = if v > 10 { v as i64 * 3 } else { -1 };
        let bv = (v + 1) * (v + 1);
        let found = (0..10).flat_map(|a| (0..10).map(move |b| (a, b))).find(|(a, b)| a * b == v.rem_euclid(50)).map_or(-1, |(a, b)| a * 100 + b);
        assert_eq!(*g, bv.wrapping_add(w as i32).wrapping_add(1 + 3 + 4 + 5).wrapping_add(found), "x = {x}");
    }
}

#[kernel]
pub fn ranges(n: &[u32], out: &mut [u64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i >= n.len() {
        return;
    }
    let m = n[i];
    let mut h: u64 = 0;
    for a in 0..m {
        h = h.wrapping_mul(31).wrapping_add(a as u64);
    }
    for a in 0..=m {
        h = h.wrapping_mul(37).wrapping_add(a as u64);
    }
    for a in (0..m).rev() {
        h = h.wrapping_mul(41).wrapping_add(a as u64);
    }
    for a in (1..=m).rev() {
        h = h.wrapping_mul(43).wrapping_add(a as u64);
    }
    for a in (2..m + 20).step_by(3) {
        h = h.wrapping_mul(47).wrapping_add(a as u64);
    }
    for a in (0..=m).step_by(4) {
        h = h.wrapping_mul(53).wrapping_add(a as u64);
    }
    for a in (0..m + 7).rev().step_by(5) {
        h = h.wrapping_mul(59).wrapping_add(a as u64);
    }
    for a in (1..m + 9).step_by(4).rev() {
        h = h.wrapping_mul(61).wrapping_add(a as u64);
    }
    for a in (250u8..=255).rev() {
        h = h.wrapping_mul(67).wrapping_add(a as u64);
    }
    for a in (i8::MIN..i8::MIN + 3).step_by(2) {
        h = h.wrapping_mul(71).wrapping_add(a as u64);
    }
    for mut a in 0..3 {
        a += 100;
        h = h.wrapping_mul(73).wrapping_add(a);
    }
    out[i] = h;
}

#[test]
fn for_loops_over_every_range_form() {
    let inputs: Vec<u32> = (0..40).collect();
    let got = check_map("ranges", ranges::PTX, &inputs, |x, o| ranges(x, o), |s, c, i, o| ranges::launch(s, c, i, o));
    for (m, g) in inputs.iter().zip(&got) {
        let m = *m;
        let mut h: u64 = 0;
        let mut mix = |k: u64, v: u64| h = h.wrapping_mul(k).wrapping_add(v);
        (0..m).for_each(|a| mix(31, a as u64));
        (0..=m).for_each(|a| mix(37, a as u64));
        (0..m).rev().for_each(|a| mix(41, a as u64));
        (1..=m).rev().for_each(|a| mix(43, a as u64));
        (2..m + 20).step_by(3).for_each(|a| mix(47, a as u64));
        (0..=m).step_by(4).for_each(|a| mix(53, a as u64));
        (0..m + 7).rev().step_by(5).for_each(|a| mix(59, a as u64));
        (1..m + 9).step_by(4).rev().for_each(|a| mix(61, a as u64));
        (250u8..=255).rev().for_each(|a| mix(67, a as u64));
        (i8::MIN..i8::MIN + 3).step_by(2).for_each(|a| mix(71, a as u64));
        (0..3u64).for_each(|a| mix(73, a + 100));
        assert_eq!(*g, h, "m = {m}");
    }
}

#[kernel]
pub fn matching(x: &[i64], out: &mut [u8]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        out[i] = match x[i] {
            i64::MIN..=-1 => 1,
            0 => 2,
            1 | 3 | 5 | 7 => 3,
            8..16 => 4,
            n @ 16..=99 if n % 10 == 0 => 5,
            16..=99 => 6,
            n if n > 1_000_000_000_000 => 7,
            _ => 8,
        };
    }
}

#[test]
fn match_on_integers_and_ranges() {
    let inputs: Vec<i64> = vec![-5, i64::MIN, 0, 1, 2, 3, 7, 8, 15, 16, 20, 21, 99, 100, 2_000_000_000_000, 500];
    let got = check_map("matching", matching::PTX, &inputs, |x, o| matching(x, o), |s, c, i, o| matching::launch(s, c, i, o));
    assert_eq!(got, [1, 1, 2, 3, 8, 3, 3, 4, 4, 6, 5, 6, 6, 8, 7, 8]);
}

// ---- operators on every integer type ----

macro_rules! int_ops {
    ($($name:ident: $t:ident, $u:ident;)*) => {$(
        #[kernel]
        pub fn $name(x: &[$t], out: &mut [$t]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i >= x.len() {
                return;
            }
            let a = x[i];
            let b = x[(i * 7 + 3) % x.len()];
            let mut r = a.wrapping_add(b) ^ a.wrapping_sub(b).rotate_left(3) ^ a.wrapping_mul(b);
            r ^= a.wrapping_add(1).wrapping_neg();
            if b != 0 && !(a == $t::MIN && b == (0 as $t).wrapping_sub(1)) {
                r ^= a / b;
                r = r.wrapping_add(a % b);
                r ^= a.rem_euclid(b).wrapping_add(a.div_euclid(b));
            }
            r ^= (a & b) | (a ^ !b);
            // Division by constants: powers of two are a shift and a mask when unsigned.
            r ^= (a / 8).wrapping_add(a % 16) ^ (a / 1).wrapping_add(a % 1) ^ (a / 3).wrapping_add(a % 5);
            r ^= a << (b & 7);
            r = r.wrapping_add(a >> ((b as u32) % 8));
            r ^= ((a < b) as $t) | (((a <= b) as $t) << 1) | (((a == b) as $t) << 2) | (((a != b) as $t) << 3) | (((a > b) as $t) << 4) | (((a >= b) as $t) << 5);
            r ^= a.min(b).wrapping_add(a.max(b)) ^ a.clamp($t::MIN / 2, $t::MAX / 2);
            r ^= a.saturating_add(b) ^ a.saturating_sub(b).rotate_right(2);
            r = r.wrapping_add(a.abs_diff(b) as $t);
            r ^= (a.count_ones() + a.count_zeros() * 3 + a.leading_zeros() * 5 + a.trailing_zeros() * 7) as $t;
            r ^= a.swap_bytes() ^ a.reverse_bits() ^ a.wrapping_pow(3) ^ (a & 7).pow(2);
            let u = a as $u;
            r ^= (u.is_power_of_two() as $t) << 6;
            // div_ceil and is_multiple_of (a zero divisor included: 0 is a multiple of 0 only).
            let ub = b as $u;
            r = r.wrapping_add(u.div_ceil(ub | 1) as $t) ^ (u.div_ceil(7) as $t);
            r ^= ((u.is_multiple_of(ub & 3) as $t) << 1) ^ (((u & 1).is_multiple_of(ub & 1) as $t) << 2) ^ ((u.is_multiple_of(6) as $t) << 3);
            // Compound assignment, without overflow (which the host, in a debug build, checks).
            let mut c = a & 15;
            c += 3;
            c -= b & 3;
            c *= 5;
            c ^= a;
            c |= 1;
            c &= !2;
            c <<= 1;
            c >>= 2;
            out[i] = r ^ c;
        }
    )*};
}

int_ops! {
    ops_i8: i8, u8;
    ops_u8: u8, u8;
    ops_i16: i16, u16;
    ops_u16: u16, u16;
    ops_i32: i32, u32;
    ops_u32: u32, u32;
    ops_i64: i64, u64;
    ops_u64: u64, u64;
}

macro_rules! signed_extra {
    ($($name:ident: $t:ident;)*) => {$(
        #[kernel]
        pub fn $name(x: &[$t], out: &mut [$t]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let a = x[i];
                out[i] = a.wrapping_abs() ^ a.wrapping_div(-1) ^ a.wrapping_rem(-1) ^ (a.signum() << 4) ^ (-(a / 2)) ^ (a.unsigned_abs() as $t).rotate_left(1);
            }
        }
    )*};
}

signed_extra! {
    signed_i8: i8;
    signed_i16: i16;
    signed_i32: i32;
    signed_i64: i64;
}

/// Values that exercise the edges: 0, ±1, extremes, and a pseudo-random spread.
fn edge_values<T: Copy>(from_u64: impl Fn(u64) -> T, bits: u32) -> Vec<T> {
    let mut v: Vec<u64> = vec![0, 1, u64::MAX, 2, 3, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1u64 << (bits - 1)).wrapping_add(1)];
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..120 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push(s >> (s % bits as u64));
    }
    v.into_iter().map(from_u64).collect()
}

macro_rules! int_tests {
    ($($test:ident => $k:ident: $t:ident;)*) => {$(
        #[test]
        fn $test() {
            let inputs = edge_values(|v| v as $t, $t::BITS);
            check_map(stringify!($k), $k::PTX, &inputs, |x, o| $k(x, o), |s, c, i, o| $k::launch(s, c, i, o));
        }
    )*};
}

int_tests! {
    integer_ops_i8 => ops_i8: i8;
    integer_ops_u8 => ops_u8: u8;
    integer_ops_i16 => ops_i16: i16;
    integer_ops_u16 => ops_u16: u16;
    integer_ops_i32 => ops_i32: i32;
    integer_ops_u32 => ops_u32: u32;
    integer_ops_i64 => ops_i64: i64;
    integer_ops_u64 => ops_u64: u64;
    signed_methods_i8 => signed_i8: i8;
    signed_methods_i16 => signed_i16: i16;
    signed_methods_i32 => signed_i32: i32;
    signed_methods_i64 => signed_i64: i64;
}

// ---- floats ----

macro_rules! float_ops {
    ($($name:ident: $t:ident;)*) => {$(
        #[kernel]
        pub fn $name(x: &[$t], out: &mut [$t]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i >= x.len() {
                return;
            }
            let a = x[i];
            let b = x[(i * 5 + 1) % x.len()];
            let c = x[(i * 3 + 2) % x.len()];
            let mut r = [0.0 as $t; 16];
            r[0] = a + b;
            r[1] = a - b * c;
            r[2] = a / b;
            r[3] = a % b;
            r[4] = -a;
            r[5] = a.mul_add(b, c);
            r[6] = a.sqrt() + b.abs();
            r[7] = a.min(b) - a.max(c);
            r[8] = a.floor() + b.ceil() * 2.0 + c.trunc() * 4.0;
            r[9] = a.round() + b.round_ties_even() * 8.0 + c.fract();
            r[10] = a.recip() + b.copysign(c) + a.signum();
            r[11] = a.clamp(-1.5, 2.5) + a.to_degrees() + b.to_radians();
            r[12] = ((a < b) as u32 + (a <= b) as u32 * 2 + (a == b) as u32 * 4 + (a != b) as u32 * 8 + (a > b) as u32 * 16 + (a >= b) as u32 * 32) as $t;
            r[13] = (a.is_nan() as u32 + a.is_infinite() as u32 * 2 + a.is_finite() as u32 * 4 + a.is_sign_negative() as u32 * 8 + a.is_sign_positive() as u32 * 16) as $t;
            r[14] = $t::from_bits(a.to_bits() ^ 1) + a.powi(3) + b.powi(-2);
            let mut m = a;
            m += b;
            m *= c;
            m -= 1.0;
            m /= 3.0;
            m %= 2.0;
            r[15] = m;
            for k in 0..16 {
                out[i * 16 + k] = r[k];
            }
        }
    )*};
}

float_ops! {
    ops_f32: f32;
    ops_f64: f64;
}

fn float_inputs() -> Vec<f64> {
    let mut v = vec![
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 1e-30, -1e-30, 1e30, 1e300, -1e300, 5e-324, 1e-310,
        f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.49999999999999994, 4503599627370497.0, 123.456, -7.0,
    ];
    let mut s = 12345u64;
    for _ in 0..60 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        v.push(f64::from_bits(s >> 2) * if s & 1 == 0 { 1.0 } else { -1.0 });
        v.push(((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 20.0);
    }
    v
}

macro_rules! float_tests {
    ($($test:ident => $k:ident: $t:ident;)*) => {$(
        #[test]
        fn $test() {
            let inputs: Vec<$t> = float_inputs().into_iter().map(|v| v as $t).collect();
            let n = inputs.len();
            assemble(stringify!($k), $k::PTX);
            let mut host_out = vec![0.0 as $t; n * 16];
            let o = host::Disjoint::new(&mut host_out);
            // SAFETY: each thread writes its own 16 elements.
            host::run([n.div_ceil(64) as u32, 1, 1], [64, 1, 1], 0, || $k(&inputs, unsafe { o.get() }));
            let stream = crate::body_exec::cpu_stream();
            let inp = DeviceBuffer::from_slice(&stream, &inputs).unwrap();
            let mut out = DeviceBuffer::<$t>::zeroed(&stream, n * 16).unwrap();
            $k::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &inp, &mut out).unwrap();
            let dev = out.to_vec().unwrap();
            for (j, (d, h)) in dev.iter().zip(&host_out).enumerate() {
                // `min(0.0, -0.0) - max(..)` (result 7): Rust leaves the sign of a zero from
                // min/max unspecified; PTX orders −0 below +0.
                let zero_sign_free = j % 16 == 7 && *d == 0.0 && *h == 0.0;
                assert!(d.same(h) || zero_sign_free, "{}: result {} of input {}: device {d:e}, host {h:e}", stringify!($k), j % 16, inputs[j / 16]);
            }
        }
    )*};
}

float_tests! {
    float_ops_f32 => ops_f32: f32;
    float_ops_f64 => ops_f64: f64;
}

#[test]
fn float_arithmetic_is_rounded_per_operation() {
    // `a * b + c` is two roundings; only `mul_add` fuses.
    let ptx = ops_f32::PTX;
    assert!(ptx.contains("mul.rn.f32") && ptx.contains("add.rn.f32") && ptx.contains("sub.rn.f32") && ptx.contains("div.rn.f32"), "{ptx}");
    assert_eq!(ptx.matches("fma.rn.f32").count(), 1, "one fma, for the one mul_add");
    assert!(ptx.contains("sqrt.rn.f32") && ptx.contains("rcp.rn.f32"), "{ptx}");
}

// ---- casts ----

#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Casts {
    pub i8_: i8,
    pub u8_: u8,
    pub i16_: i16,
    pub u16_: u16,
    pub i32_: i32,
    pub u32_: u32,
    pub i64_: i64,
    pub u64_: u64,
    pub f32_: f32,
    pub f64_: f64,
    pub flag: bool,
}

macro_rules! cast_kernels {
    ($($name:ident: $t:ident;)*) => {$(
        #[kernel]
        pub fn $name(x: &[$t], out: &mut [Casts]) {
            let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
            if i < x.len() {
                let v = x[i];
                out[i] = Casts {
                    i8_: v as i8,
                    u8_: v as u8,
                    i16_: v as i16,
                    u16_: v as u16,
                    i32_: v as i32,
                    u32_: v as u32,
                    i64_: v as i64,
                    u64_: v as u64,
                    f32_: v as f32,
                    f64_: v as f64,
                    flag: v as i32 > 0,
                };
            }
        }
    )*};
}

cast_kernels! {
    casts_from_i8: i8;
    casts_from_u8: u8;
    casts_from_i16: i16;
    casts_from_u16: u16;
    casts_from_i32: i32;
    casts_from_u32: u32;
    casts_from_i64: i64;
    casts_from_u64: u64;
    casts_from_f32: f32;
    casts_from_f64: f64;
}

#[kernel]
pub fn casts_from_bool(x: &[u8], out: &mut [Casts]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let b = x[i] != 0;
        out[i] = Casts { i8_: b as i8, u8_: b as u8, i16_: b as i16, u16_: b as u16, i32_: b as i32, u32_: b as u32, i64_: b as i64, u64_: b as u64, f32_: b as u8 as f32, f64_: b as u8 as f64, flag: !b };
    }
}

macro_rules! cast_tests {
    ($($test:ident => $k:ident: $t:ident, $inputs:expr;)*) => {$(
        #[test]
        fn $test() {
            let inputs: Vec<$t> = $inputs;
            let got = check_map(stringify!($k), $k::PTX, &inputs, |x, o| $k(x, o), |s, c, i, o| $k::launch(s, c, i, o));
            // The host run is Rust's `as`; spot-check the saturating float casts too.
            for (v, c) in inputs.iter().zip(&got) {
                assert_eq!(c.i32_, *v as i32);
            }
        }
    )*};
}

cast_tests! {
    casts_i8 => casts_from_i8: i8, edge_values(|v| v as i8, 8);
    casts_u8 => casts_from_u8: u8, edge_values(|v| v as u8, 8);
    casts_i16 => casts_from_i16: i16, edge_values(|v| v as i16, 16);
    casts_u16 => casts_from_u16: u16, edge_values(|v| v as u16, 16);
    casts_i32 => casts_from_i32: i32, edge_values(|v| v as i32, 32);
    casts_u32 => casts_from_u32: u32, edge_values(|v| v as u32, 32);
    casts_i64 => casts_from_i64: i64, edge_values(|v| v as i64, 64);
    casts_u64 => casts_from_u64: u64, edge_values(|v| v as u64, 64);
    casts_f32 => casts_from_f32: f32, float_inputs().into_iter().map(|v| v as f32).chain([3e9, -3e9, 1e19, -1e19, 255.9, 256.0, -128.9, -129.0, 65535.5, 2147483520.0, f32::NAN]).collect();
    casts_f64 => casts_from_f64: f64, float_inputs().into_iter().chain([3e9, -3e9, 1e19, -1e19, 255.9, 256.0, -128.9, -129.0, 65535.5, 2147483647.9, 2147483648.0, -2147483648.9, 18446744073709551615.0, f64::NAN]).collect();
}

#[test]
fn casts_bool() {
    let got = check_map("casts_from_bool", casts_from_bool::PTX, &[0u8, 1, 2, 255, 0], |x, o| casts_from_bool(x, o), |s, c, i, o| casts_from_bool::launch(s, c, i, o));
    let ones: Vec<(i64, f64, bool)> = got.iter().map(|c| (c.i64_, c.f64_, c.flag)).collect();
    assert_eq!(ones, [(0, 0.0, true), (1, 1.0, false), (1, 1.0, false), (1, 1.0, false), (0, 0.0, true)]);
}

/// 16-bit floats made from `f32` and `f64`, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, ptx_runtime::DeviceRepr)]
#[repr(C)]
pub struct Halves {
    pub h_from_f32: u16,
    pub h_from_f64: u16,
    pub b_from_f32: u16,
    pub b_from_f64: u16,
}

impl Same for Halves {
    fn same(&self, o: &Self) -> bool {
        let h_nan = |b: u16| b & 0x7c00 == 0x7c00 && b & 0x03ff != 0;
        let b_nan = |b: u16| b & 0x7f80 == 0x7f80 && b & 0x007f != 0;
        let eq = |a: u16, b: u16, nan: &dyn Fn(u16) -> bool| a == b || (nan(a) && nan(b));
        eq(self.h_from_f32, o.h_from_f32, &h_nan) && eq(self.h_from_f64, o.h_from_f64, &h_nan) && eq(self.b_from_f32, o.b_from_f32, &b_nan) && eq(self.b_from_f64, o.b_from_f64, &b_nan)
    }
}

#[kernel]
pub fn halves_from(x: &[f64], out: &mut [Halves]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() {
        let v = x[i];
        out[i] = Halves {
            h_from_f32: f16::from_f32(v as f32).to_bits(),
            h_from_f64: f16::from_f64(v).to_bits(),
            b_from_f32: bf16::from_f32(v as f32).to_bits(),
            b_from_f64: bf16::from_f64(v).to_bits(),
        };
    }
}

/// `from_f64` means what the `half` crate computes on the host (rounding from the f64's
/// high word); the device matches it, also where a rounded `f32` in between would round twice
/// (bf16 subnormals) and where the low word would break a tie.
#[test]
fn half_conversions_match_the_host() {
    let mut inputs = float_inputs();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for _ in 0..2000 {
        inputs.push(f64::from_bits(next()));
    }
    // Exponents around f16's and bf16's subnormal and overflow ranges, random mantissas.
    for e in (-160i64..-110).chain(-30..-8).chain(12..18).chain(124..130) {
        for _ in 0..20 {
            let m = next() >> 12;
            let sign = next() & (1 << 63);
            inputs.push(f64::from_bits(sign | (((e + 1023) as u64) << 52) | m));
        }
    }
    // Ties in the high word with the low word set (f16 rounds at mantissa bit 42, bf16 at 45).
    for e in [-140i64, -134, -126, -20, -15, 0, 7, 15] {
        for _ in 0..10 {
            let m = next() >> 12;
            for cut in [42u32, 45] {
                let tie = (m & !((1u64 << cut) - 1)) | (1 << (cut - 1)) | (next() & 0xffff_ffff);
                inputs.push(f64::from_bits((((e + 1023) as u64) << 52) | tie));
            }
        }
    }
    inputs.extend([65504.0, 65519.99, 65520.0, 6e-8, 2.98e-8, 3.0e-8, f64::MAX, f64::MIN_POSITIVE, 5e-324, -0.0, f64::INFINITY, f64::NAN]);
    check_map("halves_from", halves_from::PTX, &inputs, |x, o| halves_from(x, o), |s, c, i, o| halves_from::launch(s, c, i, o));
}

#[test]
fn nan_casts_to_zero_whatever_the_widths() {
    // PTX's `cvt` gives 0 for NaN only from a non-f64 source to a non-64-bit integer; the
    // others take an explicit select.
    let c = casts_from_f64::PTX;
    assert!(c.contains("testp.notanumber.f64"), "{c}");
    let got = check_map("casts_nan", casts_from_f64::PTX, &[f64::NAN, -f64::NAN], |x, o| casts_from_f64(x, o), |s, c, i, o| casts_from_f64::launch(s, c, i, o));
    for c in got {
        assert_eq!((c.i8_, c.u8_, c.i16_, c.u16_, c.i32_, c.u32_, c.i64_, c.u64_), (0, 0, 0, 0, 0, 0, 0, 0));
    }
}
