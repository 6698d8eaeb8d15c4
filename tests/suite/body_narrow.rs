//! 64-bit index arithmetic whose result is truncated to 32 bits, computed in 32 bits
//! (`ptx-macros/src/ir/narrow.rs`): the low half of a sum, product or shift depends only on the
//! operands' low halves. The PTX keeps no 64-bit multiply where only the low half is read
//! (ptxas accepts it), and the results are the host's, for values whose high halves are not
//! zero and products that wrap.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// `as u32` of 64-bit arithmetic that wraps: only the low half is read.
#[kernel]
pub fn low_half(a: &[u64], b: &[u64], out: &mut [u32], shift: u32) {
    let i = thread_idx_x() as usize;
    if i < out.len() && i < a.len() && i < b.len() {
        let x = a[i].wrapping_mul(b[i]).wrapping_add(a[i] << 3).wrapping_sub(b[i] ^ 0xF0F0_F0F0_1234_5678);
        let y = (x | (b[i] << (shift & 63))) & !a[i];
        out[i] = y.wrapping_neg() as u32;
    }
}

/// A mutable local updated in place (`v += 5`, one instruction reading and writing `v`) before
/// the truncated product: the low half is computed from the value the product read.
#[kernel]
pub fn updated(a: &[u64], out: &mut [u32]) {
    let i = thread_idx_x() as usize;
    if i < out.len() && i < a.len() {
        let mut v = a[i];
        v += 5;
        out[i] = (v * 3 + 1) as u32;
    }
}

/// The tiled matmul's shared-memory indexing (`ty * 16 + k`, `k * 16 + tx`), with the block
/// shape declared so that the tile checks go: the indices are then only ever truncated to
/// 32-bit shared addresses, computed in 32 bits.
#[kernel(block = (16, 16))]
pub fn tile_rows(input: &[f32], out: &mut [f32]) {
    let mut t = unsafe { shared_array::<f32, 256>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let o = (thread_idx_y() * 16 + thread_idx_x()) as usize;
    t[ty * 16 + tx] = input[o];
    sync_threads();
    let mut acc = 0.0f32;
    for k in 0..16 {
        acc += t[ty * 16 + k] * t[k * 16 + tx];
    }
    out[o] = acc;
}

/// `cvt.u32.u64` of a register written once, by 64-bit arithmetic: a sum, product or shift
/// computed in 64 bits for its low half (a loop counter, written twice, aside).
fn truncated_products(ptx: &str) -> usize {
    let operands = |l: &str| l.split_once(char::is_whitespace).map(|(_, o)| o.trim().trim_end_matches(';').split(", ").map(str::to_owned).collect::<Vec<_>>()).unwrap_or_default();
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let written = |r: &str| lines.iter().filter(|l| !l.starts_with('@') && !l.starts_with("st.") && operands(l).first().is_some_and(|d| d == r)).copied().collect::<Vec<_>>();
    let wide = |l: &str| ["add.s64", "sub.s64", "mul.lo.s64", "shl.b64"].iter().any(|op| l.starts_with(op));
    lines
        .iter()
        .filter(|l| l.starts_with("cvt.u32.u64"))
        .filter(|l| operands(l).get(1).is_some_and(|s| matches!(written(s).as_slice(), [d] if wide(d))))
        .count()
}

#[test]
fn the_low_half_of_wrapping_64_bit_arithmetic_is_the_hosts() {
    assert!(assemble("low_half", low_half::PTX));
    assert_eq!(truncated_products(low_half::PTX), 0, "{}", low_half::PTX);
    assert!(!low_half::PTX.contains("mul.lo.s64"), "{}", low_half::PTX);
    assert!(low_half::PTX.contains("mul.lo.s32"), "{}", low_half::PTX);
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let n = 64;
    let a: Vec<u64> = (0..n).map(|_| next()).collect();
    let b: Vec<u64> = (0..n).map(|k| if k % 4 == 0 { k as u64 } else { next() }).collect();
    let stream = cpu_stream();
    let (ab, bb) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap());
    for shift in [0u32, 5, 31, 32, 40, 63, 100] {
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
        low_half::launch(&stream, LaunchConfig::new(1, n as u32), &ab, &bb, &mut ob, shift).unwrap();
        let mut want = vec![0u32; n];
        let o = host::Disjoint::new(&mut want);
        // SAFETY: one element per thread.
        host::run([1, 1, 1], [n as u32, 1, 1], 0, || low_half(&a, &b, unsafe { o.get() }, shift));
        assert_eq!(ob.to_vec().unwrap(), want, "shift {shift}");
    }
}

#[test]
fn a_local_updated_in_place_is_read_where_the_product_read_it() {
    assert!(assemble("updated", updated::PTX));
    let a: Vec<u64> = (0..32u64).map(|k| (k << 33) + k * 7919).collect();
    let stream = cpu_stream();
    let ab = DeviceBuffer::from_slice(&stream, &a).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    updated::launch(&stream, LaunchConfig::new(1, 32), &ab, &mut ob).unwrap();
    let want: Vec<u32> = a.iter().map(|v| ((v + 5) * 3 + 1) as u32).collect();
    assert_eq!(ob.to_vec().unwrap(), want);
}

#[test]
fn shared_tile_indices_are_32_bit_and_the_results_the_hosts() {
    assert!(assemble("tile_rows", tile_rows::PTX));
    assert_eq!(truncated_products(tile_rows::PTX), 0, "{}", tile_rows::PTX);
    let input: Vec<f32> = (0..256).map(|k| ((k * 7) % 23) as f32 - 11.0).collect();
    let stream = cpu_stream();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 256).unwrap();
    tile_rows::launch(&stream, LaunchConfig::new(1, (16, 16)), &ib, &mut ob).unwrap();
    let want: Vec<f32> = (0..256)
        .map(|o| {
            let (ty, tx) = (o / 16, o % 16);
            (0..16).fold(0.0f32, |acc, k| acc + input[ty * 16 + k] * input[k * 16 + tx])
        })
        .collect();
    assert_eq!(ob.to_vec().unwrap(), want);
}
