//! Constants defined outside the body, read from the source (`ptx-macros/src/front/
//! source_const.rs`): `TILE` of `const TILE: usize = 16;`, one computed from others, one
//! imported from another module, a `bool` and a negative one are the numbers they are to the
//! device compiler, so a branch on them is decided before ptxas sees it and the passes need no
//! test of them that rustc evaluates. The results are the host's (rustc's
//! values), a constant the macro cannot read (a `const fn`'s value) keeps working through
//! rustc's pieces, and ptxas accepts the PTX. The expansion's compile-time check of what the
//! macro read is `tests/ui/source_const_elsewhere.rs`.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, LaunchConfig};

pub const TILE: usize = 16;
const AREA: usize = TILE * TILE;
const SMOOTH: bool = !(TILE > 8);
const OFFSET: i32 = -(TILE as i32) / 4;

mod sizes {
    pub const TAPS: u32 = 1 << 2;
}
use sizes::TAPS;

/// A `const fn`'s value, which the macro does not read: rustc writes it into the PTX.
const fn unread<V>(v: V) -> V {
    v
}
const U_TILE: usize = unread(16);
const U_AREA: usize = unread(256);
const U_SMOOTH: bool = unread(false);
const U_OFFSET: i32 = unread(-4);
const U_TAPS: u32 = unread(4);

/// Each thread of a 16 × 16 block: one tile element, a branch on a `bool` constant, a loop of
/// `TAPS` trips and a negative offset.
#[kernel(block = (16, 16))]
pub fn tiled(x: &[f32], out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, AREA>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    tile[ty * TILE + tx] = x[ty * TILE + tx]; // x
    sync_threads();
    let v = if SMOOTH {
        // Never taken.
        (tile[ty * TILE + tx] + 3.25) * 0.125
    } else {
        tile[tx * TILE + ty]
    };
    let mut acc = 0i32;
    for k in 0..TAPS {
        acc += (k as i32 + OFFSET) * (tx as i32);
    }
    out[ty * TILE + tx] = v + acc as f32;
}

/// `tiled` with constants the macro cannot read.
#[kernel(block = (16, 16))]
pub fn tiled_unread(x: &[f32], out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, U_AREA>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    tile[ty * U_TILE + tx] = x[ty * U_TILE + tx]; // x unread
    sync_threads();
    let v = if U_SMOOTH {
        // Never taken.
        (tile[ty * U_TILE + tx] + 3.25) * 0.125
    } else {
        tile[tx * U_TILE + ty]
    };
    let mut acc = 0i32;
    for k in 0..U_TAPS as i32 {
        acc += (k + U_OFFSET) * (tx as i32);
    }
    out[ty * U_TILE + tx] = v + acc as f32;
}

fn on_host(x: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; AREA];
    let o = host::Disjoint::new(&mut out);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [16, 16, 1], 0, || tiled(x, unsafe { o.get() }));
    out
}

/// A guard rustc evaluates for the optimiser's passes on pieces (`ir::const_range`).
fn guards(ptx: &str) -> usize {
    ptx.lines().filter(|l| l.contains("setp.ne.u32") && (l.trim_end().ends_with(", 1, 0;") || l.trim_end().ends_with(", 0, 0;"))).count()
}

#[test]
fn constants_read_from_the_source_are_numbers_to_the_device_compiler() {
    let (read, unread) = (tiled::PTX, tiled_unread::PTX);
    assert!(assemble("tiled", read) && assemble("tiled_unread", unread));
    // The branch on `SMOOTH` is decided: its dead arm's constants are not in the PTX (they
    // are where rustc decides it, for ptxas to fold).
    let dead = |ptx: &str| ptx.contains("0f40500000") && ptx.contains("0f3E000000");
    assert!(!dead(read) && dead(unread), "{read}\n{unread}");
    // No test of the pieces for the passes, which `tiled_unread` needs.
    assert!(guards(read) == 0 && guards(unread) > 0, "{read}\n{unread}");
    let x: Vec<f32> = (0..AREA).map(|k| k as f32 * 0.5 - 7.0).collect();
    let want: Vec<f32> = (0..AREA).map(|k| x[(k % TILE) * TILE + k / TILE] + (-4 - 3 - 2 - 1) as f32 * (k % TILE) as f32).collect();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let launches: [(&str, Launch); 2] = [("tiled", |s, c, x, o| tiled::launch(s, c, x, o)), ("tiled_unread", |s, c, x, o| tiled_unread::launch(s, c, x, o))];
    for (name, launch) in launches {
        let mut ob = DeviceBuffer::<f32>::zeroed(&stream, AREA).unwrap();
        launch(&stream, LaunchConfig::new(1, (16, 16)), &xb, &mut ob).unwrap();
        assert_eq!(ob.to_vec().unwrap(), want, "{name}");
        // One element short: the first read of `x` fails, on its line.
        let short = DeviceBuffer::from_slice(&stream, &x[..AREA - 1]).unwrap();
        match launch(&stream, LaunchConfig::new(1, (16, 16)), &short, &mut ob) {
            Err(ptx_runtime::Error::Assert { message, line, .. }) => {
                assert_eq!(message, "index out of bounds", "{name}");
                let marker = if name == "tiled" { "x[ty * TILE + tx]; // x" } else { "// x unread" };
                let at = include_str!("body_source_const.rs").lines().position(|l| l.contains(marker)).unwrap() as u32 + 1;
                assert_eq!(line, at, "{name}");
            }
            other => panic!("{name}: expected a failed bounds check, got {other:?}"),
        }
    }
    assert_eq!(on_host(&x), want, "the host's run, with rustc's values");
}

type Launch = fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> ptx_runtime::Result<()>;

/// The corpus kernels that read module-level constants (`TILE`, `T`): no guard of pieces.
#[test]
fn the_corpus_tiles_are_sized_by_numbers() {
    for (name, ptx) in [("matmul", crate::corpus::matmul::matmul::PTX), ("transpose", crate::corpus::transpose::transpose::PTX)] {
        assert!(assemble(name, ptx), "{name}");
        assert_eq!(guards(ptx), 0, "{name}: {ptx}");
    }
}
