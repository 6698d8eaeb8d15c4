//! Contraction on request (`#[kernel(fmad)]`, nvcc's `-fmad=true`; `ptx-macros/src/ir/contract.rs`):
//! `a * b + c` becomes one `fma.rn`, rounded once. Each kernel runs on the CPU backend against
//! the host computing `mul_add` exactly where the contraction applies (and `*` then `+`
//! elsewhere); without the opt-in the same body keeps Rust's two roundings.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

/// The four shapes, and a product used twice (which stays a `mul`: fusing it into both
/// would compute it twice, and nvcc does not either).
#[kernel(fmad)]
pub fn shapes_fmad(a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < a.len() && i < b.len() && i < c.len() && 6 * i + 5 < out.len() {
        let (x, y, z) = (a[i], b[i], c[i]);
        out[6 * i] = x * y + z;
        out[6 * i + 1] = z + x * y;
        out[6 * i + 2] = x * y - z;
        out[6 * i + 3] = z - x * y;
        let p = x * y;
        out[6 * i + 4] = p + z;
        out[6 * i + 5] = p - z;
    }
}

/// The same body without the opt-in.
#[kernel]
pub fn shapes_plain(a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < a.len() && i < b.len() && i < c.len() && 6 * i + 5 < out.len() {
        let (x, y, z) = (a[i], b[i], c[i]);
        out[6 * i] = x * y + z;
        out[6 * i + 1] = z + x * y;
        out[6 * i + 2] = x * y - z;
        out[6 * i + 3] = z - x * y;
        let p = x * y;
        out[6 * i + 4] = p + z;
        out[6 * i + 5] = p - z;
    }
}

fn shapes_on_host(a: &[f32], b: &[f32], c: &[f32], fused: bool) -> Vec<f32> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        let (x, y, z) = (a[i], b[i], c[i]);
        if fused {
            out.extend([x.mul_add(y, z), x.mul_add(y, z), x.mul_add(y, -z), (-x).mul_add(y, z)]);
        } else {
            out.extend([x * y + z, z + x * y, x * y - z, z - x * y]);
        }
        out.extend([x * y + z, x * y - z]);
    }
    out
}

/// An accumulation in a loop, f64, where the product's operands are loads behind bounds
/// checks (other blocks than the `add`).
#[kernel(fmad)]
pub fn dot_fmad(x: &[f64], y: &[f64], out: &mut [f64]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < out.len() {
        let mut acc = 0.0f64;
        let mut k = 0;
        while k < x.len() {
            acc += x[k] * y[(k + i) % y.len()];
            k += 1;
        }
        out[i] = acc;
    }
}

fn floats(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 8.0
        })
        .collect()
}

fn count(ptx: &str, opcode: &str) -> usize {
    ptx.lines().filter(|l| l.split_whitespace().next() == Some(opcode)).count()
}

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn fmad_contracts_multiply_adds_and_rounds_once() {
    assert!(assemble("shapes_fmad", shapes_fmad::PTX));
    assert!(assemble("shapes_plain", shapes_plain::PTX));
    // Four contractions (two with a `neg`); the product used twice stays.
    assert_eq!(count(shapes_fmad::PTX, "fma.rn.f32"), 4, "{}", shapes_fmad::PTX);
    assert_eq!(count(shapes_fmad::PTX, "mul.rn.f32"), 1, "{}", shapes_fmad::PTX);
    assert_eq!(count(shapes_plain::PTX, "fma.rn.f32"), 0, "{}", shapes_plain::PTX);
    assert_eq!(count(shapes_plain::PTX, "mul.rn.f32"), 5, "{}", shapes_plain::PTX);

    let n = 256;
    let f = |seed| floats(n, seed).into_iter().map(|v| v as f32).collect::<Vec<f32>>();
    let (a, b, c) = (f(1), f(2), f(3));
    let fused = shapes_on_host(&a, &b, &c, true);
    let twice = shapes_on_host(&a, &b, &c, false);
    // The inputs tell the two apart (else the comparison below would prove nothing).
    assert!(fused.iter().zip(&twice).filter(|(x, y)| x != y).count() > n / 4);
    let stream = cpu_stream();
    let (ab, bb, cb) = (DeviceBuffer::from_slice(&stream, &a).unwrap(), DeviceBuffer::from_slice(&stream, &b).unwrap(), DeviceBuffer::from_slice(&stream, &c).unwrap());
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 6 * n).unwrap();
    shapes_fmad::launch(&stream, LaunchConfig::new(4, 64), &ab, &bb, &cb, &mut ob).unwrap();
    assert_eq!(bits32(&ob.to_vec().unwrap()), bits32(&fused));
    shapes_plain::launch(&stream, LaunchConfig::new(4, 64), &ab, &bb, &cb, &mut ob).unwrap();
    assert_eq!(bits32(&ob.to_vec().unwrap()), bits32(&twice));
}

#[test]
fn fmad_contracts_an_accumulation_across_blocks() {
    assert!(assemble("dot_fmad", dot_fmad::PTX));
    assert_eq!(count(dot_fmad::PTX, "fma.rn.f64"), 1, "{}", dot_fmad::PTX);
    assert_eq!(count(dot_fmad::PTX, "mul.rn.f64"), 0, "{}", dot_fmad::PTX);
    let (x, y) = (floats(100, 4), floats(100, 5));
    let host: Vec<u64> = (0..64)
        .map(|i| {
            let mut acc = 0.0f64;
            for k in 0..x.len() {
                acc = x[k].mul_add(y[(k + i) % y.len()], acc);
            }
            acc.to_bits()
        })
        .collect();
    let stream = cpu_stream();
    let (xb, yb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &y).unwrap());
    let mut ob = DeviceBuffer::<f64>::zeroed(&stream, 64).unwrap();
    dot_fmad::launch(&stream, LaunchConfig::new(1, 64), &xb, &yb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), host);
}
