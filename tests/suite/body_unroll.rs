//! Short `for` loops unrolled by 4 and their adjacent shared loads made one `ld.shared.v4`
//! (`ptx-macros/src/ir/unroll.rs`, `vectorize.rs`): the unrolled loop is a second version,
//! entered under a test of the trip count (and of the alignment the vector load needs) that
//! rustc evaluates, so ptxas keeps one version. The results are the host's whatever the trip
//! count (16, 15, 0, 1 and 7 trips of a module-level `const`, 16 and 15 of a literal), an index
//! out of bounds still stops the kernel at its line, and ptxas accepts the PTX; the corpus
//! matmul's row of the `A` tile is read as `LDS.128`.

use crate::body_exec::cpu_stream;
use crate::tools::{assemble, sass};
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// A `const fn`'s value, which the macro does not read from the source (`front::source_const`
/// evaluates literals and operators only): rustc writes the number into the PTX, as it does
/// for a constant of another crate, and the passes for such constants are what runs.
const fn unread<V>(v: V) -> V {
    v
}

pub const N16: usize = unread(16);
pub const N15: usize = unread(15);
pub const N0: usize = unread(0);
pub const N1: usize = unread(1);
pub const N7: usize = unread(7);

// Each kernel: 16 threads load a row of 16 each into the tile, then each sums `n` elements of
// row `t + off` (of `n`-element rows), weighted by their position, so that an element read
// twice or in the wrong place shows.

#[kernel]
pub fn rows16(x: &[f32], out: &mut [f32], off: usize) {
    let mut tile = unsafe { shared_array::<f32, 256>() };
    let t = thread_idx_x() as usize;
    for j in 0..16 {
        tile[t * 16 + j] = x[t * 16 + j];
    }
    sync_threads();
    let mut acc = 0.0f32;
    for k in 0..N16 {
        acc += tile[(t + off) * N16 + k] * (k as f32 + 1.0);
    }
    out[t] = acc;
}

/// `rows16` with another trip count: a module-level `const` or a literal (`$n:tt` keeps a
/// literal a literal token, so the macro sees it).
macro_rules! rows_of {
    ($($name:ident: $n:tt),*) => {$(
        #[kernel]
        pub fn $name(x: &[f32], out: &mut [f32], off: usize) {
            let mut tile = unsafe { shared_array::<f32, 256>() };
            let t = thread_idx_x() as usize;
            for j in 0..16 {
                tile[t * 16 + j] = x[t * 16 + j];
            }
            sync_threads();
            let mut acc = 0.0f32;
            for k in 0..$n {
                acc += tile[(t + off) * $n + k] * (k as f32 + 1.0);
            }
            out[t] = acc;
        }
    )*};
}

rows_of!(rows15: N15, rows0: N0, rows1: N1, rows7: N7);
// A literal trip count is known to the macro: no test is left for ptxas; 15 (not a multiple
// of 4) is left as it is.
rows_of!(rows_literal: 16, rows_literal15: 15);

type Rows = fn(&[f32], &mut [f32], usize);

/// The host's results for 16 threads.
fn on_host(f: Rows, x: &[f32], off: usize) -> Vec<f32> {
    let mut want = vec![0.0f32; 16];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [16, 1, 1], 0, || f(x, unsafe { o.get() }, off));
    want
}

fn input() -> Vec<f32> {
    (0..256).map(|k| ((k * 37) % 101) as f32 / 8.0 - 6.0).collect()
}

fn line_of(text: &str) -> u32 {
    include_str!("body_unroll.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

#[test]
fn unrolled_rows_are_the_hosts_for_every_trip_count() {
    type Launch = fn(&ptx_runtime::Stream, LaunchConfig, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>, usize) -> ptx_runtime::Result<()>;
    let cases: [(&str, usize, &str, Launch, Rows); 7] = [
        ("rows16", 16, rows16::PTX, |s, c, x, o, off| rows16::launch(s, c, x, o, off), rows16),
        ("rows15", 15, rows15::PTX, |s, c, x, o, off| rows15::launch(s, c, x, o, off), rows15),
        ("rows0", 0, rows0::PTX, |s, c, x, o, off| rows0::launch(s, c, x, o, off), rows0),
        ("rows1", 1, rows1::PTX, |s, c, x, o, off| rows1::launch(s, c, x, o, off), rows1),
        ("rows7", 7, rows7::PTX, |s, c, x, o, off| rows7::launch(s, c, x, o, off), rows7),
        ("rows_literal", 16, rows_literal::PTX, |s, c, x, o, off| rows_literal::launch(s, c, x, o, off), rows_literal),
        ("rows_literal15", 15, rows_literal15::PTX, |s, c, x, o, off| rows_literal15::launch(s, c, x, o, off), rows_literal15),
    ];
    let x = input();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    for (name, n, ptx, launch, host_fn) in cases {
        assert!(assemble(name, ptx), "{name}");
        // The unrolled version reads the row four words at a time (a literal 15 trips are
        // not unrolled: the macro knows they do not divide by 4).
        assert_eq!(ptx.contains("ld.shared.v4.f32"), name != "rows_literal15", "{name}: {ptx}");
        if ptx.contains("ld.shared.v4.f32") {
            assert!(ptx.contains(".shared .align 16 .b8"), "{name}: {ptx}");
        }
        // Rows 0..16, and 1..17 where they fit in the tile.
        for off in [0usize, 1].into_iter().filter(|off| (15 + off) * n + n <= 256) {
            let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 16).unwrap();
            launch(&stream, LaunchConfig::new(1, 16), &xb, &mut ob, off).unwrap();
            assert_eq!(ob.to_vec().unwrap(), on_host(host_fn, &x, off), "{name}");
        }
    }
}

#[test]
fn an_index_out_of_bounds_in_the_unrolled_loop_fails_at_its_line() {
    let x = input();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 16).unwrap();
    // Row `t + 1` of the last thread is the 17th of a 16-row tile.
    match rows16::launch(&stream, LaunchConfig::new(1, 16), &xb, &mut ob, 1) {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_unroll.rs"), "{file}");
            assert_eq!(line, line_of("acc += tile[(t + off) * N16 + k]"));
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
    // No trip: nothing read, nothing fails.
    rows0::launch(&stream, LaunchConfig::new(1, 16), &xb, &mut ob, 1000).unwrap();
    assert_eq!(ob.to_vec().unwrap(), vec![0.0; 16]);
}


#[test]
fn the_matmul_reads_a_row_of_its_a_tile_with_lds_128() {
    let ptx = crate::corpus::matmul::matmul::PTX;
    assert!(assemble("matmul", ptx));
    assert!(ptx.contains("ld.shared.v4.f32"), "{ptx}");
    for sm in [80, 90] {
        let Some(sass) = sass("matmul", ptx, sm) else { return };
        // 16 steps of `k` in the tile loop's unchecked copy (`ir/version.rs`): four 16-byte
        // loads of the `A` tile's row, 16 of the `B` tile's column; ptxas keeps one version
        // of the inner loop, unrolled (no second set of loads in that copy).
        let unrolled = crate::tools::sass_loops(&sass).into_iter().any(|l| {
            let body = &sass[l];
            let count = |op: &str| body.iter().filter(|i| i.starts_with(op)).count();
            body.iter().any(|i| i.contains("LDG")) && count("LDS.128") == 4 && count("LDS ") == 16
        });
        assert!(unrolled, "sm_{sm}: {sass:#?}");
    }
}
