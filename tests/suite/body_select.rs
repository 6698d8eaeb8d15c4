//! `if c { a } else { b }` between two cheap values that cannot fail (`lower::control::select`)
//! is a `selp`, as nvcc compiles `c ? a : b`: both values computed, no branch. An arm that
//! can fail or write (an index, a division, a call) keeps the branch, so nothing is evaluated
//! that Rust would not evaluate.

use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

#[kernel]
pub fn selects(x: &[f32], k: &[u32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < x.len() && i < k.len() && i < out.len() {
        let (v, n) = (x[i], k[i]);
        let a = if v < 0.0 { -v } else { v * 2.0 };
        let b = if n > 3 { n << 2 } else { n.wrapping_mul(7) ^ 5 };
        let c = if v.is_nan() || a > 10.0 { f32::from_bits(0x3f80_0000) } else { a.mul_add(0.5, 1.0) };
        out[i] = a + b as f32 + c;
    }
}

/// Arms Rust evaluates only when the condition says: an index that would be out of bounds and
/// a division by zero on the other side of the test.
#[kernel]
pub fn guarded(x: &[f32], k: &[u32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < out.len() {
        let n = if i < k.len() { k[i] } else { 0 };
        let v = if i < x.len() { x[i] } else { 0.0 };
        let q = if n != 0 { 100 / n } else { 0 };
        out[i] = v + q as f32;
    }
}

fn inputs() -> (Vec<f32>, Vec<u32>) {
    let x = vec![-3.5, 0.0, 2.0, 7.5, f32::NAN, -20.0, 1.25, 6.0];
    (x, k())
}

fn k() -> Vec<u32> {
    vec![0, 1, 3, 4, 9, 2, 100, 5]
}

fn reference_selects(v: f32, n: u32) -> f32 {
    let a = if v < 0.0 { -v } else { v * 2.0 };
    let b = if n > 3 { n << 2 } else { n.wrapping_mul(7) ^ 5 };
    let c = if v.is_nan() || a > 10.0 { 1.0 } else { a.mul_add(0.5, 1.0) };
    a + b as f32 + c
}

#[test]
fn cheap_arms_are_a_select() {
    let ptx = selects::PTX;
    assemble("select_cheap", ptx);
    assert!(ptx.matches("selp.").count() >= 3, "three selects:\n{ptx}");
    let (x, k) = inputs();
    let stream = crate::body_exec::cpu_stream();
    let (dx, dk) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &k).unwrap());
    let mut out = DeviceBuffer::<f32>::zeroed(&stream, x.len()).unwrap();
    selects::launch(&stream, LaunchConfig::new(1, 32), &dx, &dk, &mut out).unwrap();
    let want: Vec<f32> = x.iter().zip(&k).map(|(&v, &n)| reference_selects(v, n)).collect();
    // The NaN input gives a NaN (the device's canonical one, not the host's).
    for (i, (d, w)) in out.to_vec().unwrap().iter().zip(&want).enumerate() {
        assert!(d.to_bits() == w.to_bits() || d.is_nan() && w.is_nan(), "selects[{i}]: {d:e} vs {w:e}");
    }
}

#[test]
fn arms_that_can_fail_keep_their_branch() {
    let ptx = guarded::PTX;
    assemble("select_guarded", ptx);
    let (x, k) = (vec![-3.5, 0.0, 2.0, 7.5, 11.0, -20.0, 1.25, 6.0], k());
    let stream = crate::body_exec::cpu_stream();
    // Shorter inputs than the output: the indexing arms must not run for the last threads.
    let (dx, dk) = (DeviceBuffer::from_slice(&stream, &x[..5]).unwrap(), DeviceBuffer::from_slice(&stream, &k[..6]).unwrap());
    let mut out = DeviceBuffer::<f32>::zeroed(&stream, x.len()).unwrap();
    guarded::launch(&stream, LaunchConfig::new(1, 32), &dx, &dk, &mut out).unwrap();
    let want: Vec<f32> = (0..x.len())
        .map(|i| {
            let n = if i < 6 { k[i] } else { 0 };
            let v = if i < 5 { x[i] } else { 0.0 };
            v + if n != 0 { 100 / n } else { 0 } as f32
        })
        .collect();
    crate::corpus::assert_bits_eq("guarded", &out.to_vec().unwrap(), &want);
}
