//! The subset, feature by feature: each kernel maps inputs to outputs (one thread per
//! element); its PTX goes through ptxas, its body runs on the host over the grid, and on the
//! CPU backend its outputs must equal the host's bit for bit.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, DeviceRepr, LaunchConfig, Result, Stream};

/// The bytes of values, for bitwise comparison (floats and NaNs included).
fn bytes<T: DeviceRepr>(v: &[T]) -> Vec<u8> {
    let size = T::LAYOUT.size;
    let mut out = vec![0u8; v.len() * size];
    for (i, x) in v.iter().enumerate() {
        x.write_bytes(&mut out[i * size..]);
    }
    out
}

/// Runs a map kernel on the host (`body`) and, when the CPU backend can, on the device
/// (`launch`), and compares.
fn check_map<I, O>(
    name: &str,
    ptx: &str,
    inputs: &[I],
    body: impl Fn(&[I], &mut [O]) + Sync,
    launch: impl Fn(&Stream, LaunchConfig, &DeviceBuffer<I>, &mut DeviceBuffer<O>) -> Result<()>,
) -> Vec<O>
where
    I: DeviceRepr + Sync,
    O: DeviceRepr + Default + Send + std::fmt::Debug,
{
    assemble(name, ptx);
    let n = inputs.len();
    let blocks = n.div_ceil(64) as u32;
    let mut host_out: Vec<O> = (0..n).map(|_| O::default()).collect();
    let o = host::Disjoint::new(&mut host_out);
    // SAFETY: every kernel here writes only its own element.
    host::run([blocks, 1, 1], [64, 1, 1], 0, || body(inputs, unsafe { o.get() }));
    if let Some(stream) = crate::body_exec::cpu_stream() {
        let inp = DeviceBuffer::from_slice(&stream, inputs).expect("upload");
        let mut out = DeviceBuffer::<O>::zeroed(&stream, n).expect("alloc");
        launch(&stream, LaunchConfig::new(blocks, 64), &inp, &mut out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dev = out.to_vec().expect("download");
        let (d, h) = (bytes(&dev), bytes(&host_out));
        if d != h {
            let first = d.iter().zip(&h).position(|(a, b)| a != b).unwrap_or(0) / O::LAYOUT.size;
            panic!("{name}: device and host differ first at element {first}: input {:?}… device {:?}, host {:?}", first, dev[first], host_out[first]);
        }
    }
    host_out
}

fn idx() -> usize {
    (block_idx_x() * block_dim_x() + thread_idx_x()) as usize
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
