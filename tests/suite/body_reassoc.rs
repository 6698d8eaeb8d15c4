//! Invariant parts of indices split off in loops ptxas unrolls (`ptx-macros/src/ir/reassoc.rs`)
//! and repeated index arithmetic computed once (`ir/cse.rs`): in a `for` loop with a constant
//! end, `x[i + k]`, `tile[(ty + j) * 33 + tx]` and `(y0 + j) * w + x` become a base computed
//! before the loop plus a multiple of the counter, which ptxas folds into each unrolled trip's
//! immediate offset. The results are the host's, a failed check still stops the kernel at its
//! line, and ptxas's SASS shows one base register where each trip had its own.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, ptx_loops as loops, sass};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// conv1d's shape with five taps.
#[kernel]
pub fn taps(x: &[f32], w: &[f32], y: &mut [f32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        let mut acc = 0.0f32;
        for k in 0..5 {
            acc += w[k] * x[i + k]; // taps
        }
        y[i] = acc;
    }
}

/// A `const fn`'s value, which the macro does not read from the source (`front::source_const`
/// evaluates literals and operators only): rustc writes the number into the PTX, as it does
/// for a constant of another crate, and the passes for such constants are what runs.
const fn unread<V>(v: V) -> V {
    v
}

const T: usize = unread(32);

/// The transpose of a 32 × `h` block (`h` ≤ 32) through a padded tile, its sizes a `const`
/// item's (a number rustc writes into the PTX, unknown to the macro).
#[kernel(block = (32, 8))]
pub fn tile_rows(input: &[f32], out: &mut [f32], h: u32) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let h = h as usize;
    for j in (0..T).step_by(8) {
        if ty + j < h {
            tile[(ty + j) * (T + 1) + tx] = input[(ty + j) * T + tx]; // tile in
        }
    }
    sync_threads();
    for j in (0..T).step_by(8) {
        if tx < h {
            out[(ty + j) * T + tx] = tile[tx * (T + 1) + ty + j];
        }
    }
}

/// Rows of a `w × h` grid, four per thread: the index `(y0 + j) · w + x` is written twice
/// (check and access of each slice).
#[kernel(block = (32, 8))]
pub fn rows_of(input: &[f32], out: &mut [f32], w: u32, h: u32) {
    let x = (block_idx_x() * 32 + thread_idx_x()) as usize;
    let y0 = (block_idx_y() * 32 + thread_idx_y()) as usize;
    let (w, h) = (w as usize, h as usize);
    for j in (0..32).step_by(8) {
        let y = y0 + j;
        if x < w && y < h {
            out[y * w + x] = input[y * w + x] * 2.0; // rows
        }
    }
}

fn line_of(text: &str) -> u32 {
    include_str!("body_reassoc.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_reassoc.rs"), "{file}");
            assert_eq!(line, line_of(at));
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

/// The base registers of the memory operands of the SASS instructions starting with `op`
/// (`LDG`, `STS`...).
fn bases(sass: &[String], op: &str) -> Vec<String> {
    let mut out: Vec<String> = sass
        .iter()
        .filter(|i| i.split_whitespace().any(|w| w.starts_with(op)))
        .filter_map(|i| {
            let inner = i.rsplit('[').next()?;
            Some(inner.split(|c: char| c == '.' || c == ']' || c == '+').next()?.to_owned())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_tap_loop_reads_through_one_base() {
    assert!(assemble("taps", taps::PTX));
    let stream = cpu_stream();
    for n in [1usize, 7, 64, 200] {
        let x: Vec<f32> = (0..n + 4).map(|k| (k as f32 * 0.37).sin()).collect();
        let w: Vec<f32> = (0..5).map(|k| 0.25 - k as f32 * 0.125).collect();
        let want: Vec<f32> = (0..n).map(|i| (0..5).fold(0.0f32, |acc, k| acc + w[k] * x[i + k])).collect();
        let (xb, wb) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &w).unwrap());
        let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
        taps::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &xb, &wb, &mut yb).unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "{n} outputs");
        // One element of `x` short: the last thread's last tap fails.
        let xs = DeviceBuffer::from_slice(&stream, &x[..n + 3]).unwrap();
        expect_bounds_failure(taps::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &xs, &wb, &mut yb), "acc += w[k] * x[i + k]; // taps");
    }
    for sm in [80, 90] {
        let Some(s) = sass("taps", taps::PTX, sm) else { return };
        // Two bases, `w` and `x + 4i`, every tap an offset from them (each trip had its own
        // `x + 4(i + k)` before, or two of them).
        assert_eq!(bases(&s, "LDG").len(), 2, "sm_{sm}: {s:#?}");
    }
}

#[test]
fn a_tile_row_loop_stores_at_offsets_of_one_index() {
    assert!(assemble("tile_rows", tile_rows::PTX));
    let stream = cpu_stream();
    for h in [32usize, 29, 8, 1] {
        let input: Vec<f32> = (0..32 * h).map(|k| k as f32 * 0.5 - 3.0).collect();
        // out[r][c] = input[c][r] for the columns c < h; the rest stays 0.
        let want: Vec<f32> = (0..1024).map(|k| if k % 32 < h { input[(k % 32) * 32 + k / 32] } else { 0.0 }).collect();
        let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
        let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 1024).unwrap();
        tile_rows::launch(&stream, LaunchConfig::new(1, (32, 8)), &ib, &mut ob, h as u32).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{h} rows");
        let short = DeviceBuffer::from_slice(&stream, &input[..32 * h - 1]).unwrap();
        expect_bounds_failure(tile_rows::launch(&stream, LaunchConfig::new(1, (32, 8)), &short, &mut ob, h as u32), "tile[(ty + j) * (T + 1) + tx] = input[(ty + j) * T + tx]; // tile in");
    }
    for sm in [80, 90] {
        let Some(s) = sass("tile_rows", tile_rows::PTX, sm) else { return };
        // The four rows of the tile at offsets from one address (`ty · 33 + tx`), as nvcc's
        // `[R.X4+0x420]`, not at `(ty + 8) · 33`, `(ty + 16) · 33` ... computed trip by trip.
        let mut offsets: Vec<&str> = s.iter().filter(|i| i.contains("STS")).map(|i| i.split(']').next().and_then(|a| a.split_once('+')).map_or("0", |(_, o)| o)).collect();
        offsets.sort();
        assert_eq!(offsets, ["0", "0x420", "0x840", "0xc60"], "sm_{sm}: {s:#?}");
    }
}

#[test]
fn a_row_index_is_computed_once_and_split() {
    assert!(assemble("rows_of", rows_of::PTX));
    let ptx = rows_of::PTX;
    // The loop is unrolled here (its checks deferred, its trips four: `ir/unroll_full.rs`).
    // Each trip computes its index once (the check's and the access's are one), as the base
    // `y0 · w + x`, computed once, plus the trip's `j · w`: one 64-bit multiply a trip, each
    // added to the same base.
    assert!(loops(ptx).is_empty(), "{ptx}");
    let operands = |l: &str, op: &str| -> Option<Vec<String>> { Some(l.trim().strip_prefix(op)?.trim().trim_end_matches(';').split(", ").map(str::to_owned).collect()) };
    let muls: Vec<String> = ptx.lines().filter_map(|l| operands(l, "mul.lo.s64")).map(|o| o[0].clone()).collect();
    assert_eq!(muls.len(), 4, "{ptx}");
    let bases: std::collections::BTreeSet<String> = ptx
        .lines()
        .filter_map(|l| operands(l, "add.s64"))
        .filter_map(|o| if muls.contains(&o[2]) { Some(o[1].clone()) } else if muls.contains(&o[1]) { Some(o[2].clone()) } else { None })
        .collect();
    assert_eq!(bases.len(), 1, "{ptx}");
    let stream = cpu_stream();
    for (w, h) in [(32u32, 32u32), (45, 29), (70, 8), (5, 64)] {
        let n = (w * h) as usize;
        let input: Vec<f32> = (0..n).map(|k| k as f32 * 0.25).collect();
        let want: Vec<f32> = input.iter().map(|v| v * 2.0).collect();
        let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
        let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
        let grid = (w.div_ceil(32), h.div_ceil(32));
        rows_of::launch(&stream, LaunchConfig::new(grid, (32, 8)), &ib, &mut ob, w, h).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{w} × {h}");
        let short = DeviceBuffer::from_slice(&stream, &input[..n - 1]).unwrap();
        expect_bounds_failure(rows_of::launch(&stream, LaunchConfig::new(grid, (32, 8)), &short, &mut ob, w, h), "out[y * w + x] = input[y * w + x] * 2.0; // rows");
    }
}

/// Taps read backwards (`sub`), beside an index that a mutable local moves (written on every
/// trip: not split, and read where the trip left it).
#[kernel]
pub fn reversed(x: &[f32], y: &mut [f32], shift: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < y.len() {
        let mut acc = 0.0f32;
        let mut skew = shift as usize;
        for k in 0..4 {
            acc += x[i + 3 - k] * (k as f32 + 1.0) + x[i + skew]; // reversed
            skew += 2;
        }
        y[i] = acc;
    }
}

#[test]
fn backward_taps_and_a_moving_index_read_what_the_host_reads() {
    assert!(assemble("reversed", reversed::PTX));
    let stream = cpu_stream();
    for (n, shift) in [(1usize, 0u32), (37, 1), (130, 3)] {
        let x: Vec<f32> = (0..n + shift as usize + 6).map(|k| (k as f32 * 0.61).cos()).collect();
        let want: Vec<f32> = (0..n)
            .map(|i| {
                let mut acc = 0.0f32;
                let mut skew = shift as usize;
                for k in 0..4 {
                    acc += x[i + 3 - k] * (k as f32 + 1.0) + x[i + skew];
                    skew += 2;
                }
                acc
            })
            .collect();
        let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
        let mut yb = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
        reversed::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &xb, &mut yb, shift).unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "{n} outputs, shift {shift}");
        // The last thread's last `x[i + skew]` one past the end.
        let xs = DeviceBuffer::from_slice(&stream, &x[..x.len() - 1]).unwrap();
        expect_bounds_failure(reversed::launch(&stream, LaunchConfig::new(n.div_ceil(64) as u32, 64), &xs, &mut yb, shift), "acc += x[i + 3 - k] * (k as f32 + 1.0) + x[i + skew]; // reversed");
    }
}

/// A float's bits plus a constant (`to_bits` is a `.b32` move of an `f32` register): not an
/// index the rewrite takes apart (difftest seed 20261302, kernel 494: `add.s32` of an `f32`
/// register, which ptxas refused).
#[kernel]
pub fn float_bits(x: &[f32], out: &mut [u32]) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < out.len() {
        let mut acc = 0u32;
        for k in 0..4 {
            acc ^= x[i + k].to_bits().wrapping_add(0xc0c0_0000); // bits
        }
        out[i] = acc;
    }
}

#[test]
fn a_floats_bits_plus_a_constant_stay_an_integer_operand() {
    assert!(assemble("float_bits", float_bits::PTX));
    let stream = cpu_stream();
    let n = 50;
    let x: Vec<f32> = (0..n + 3).map(|k| k as f32 * -1.75 + 0.5).collect();
    let want: Vec<u32> = (0..n).map(|i| (0..4).fold(0u32, |acc, k| acc ^ x[i + k].to_bits().wrapping_add(0xc0c0_0000))).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, n).unwrap();
    float_bits::launch(&stream, LaunchConfig::new(1, 64), &xb, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), want);
}
