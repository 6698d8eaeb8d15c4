//! 64-bit compares made 32-bit under a test of the module-level `const`s they involve
//! (`ptx-macros/src/ir/const_range.rs`, `narrow_cmp.rs`): the transpose's tile index
//! `(ty + j) * (T + 1) + tx` is below 2^32 when `T` is small, which rustc decides, not the
//! macro. The results are the host's for small constants, for a constant that makes the tile
//! index's check fail (the trap at its line) and for huge constants, where the index's low 32
//! bits would be in bounds and only the 64-bit compare (the other version) is right; ptxas
//! keeps one version.

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

pub const T32: usize = unread(32);
pub const T4: usize = unread(4);
pub const T33: usize = unread(33);
pub const T0: usize = unread(0);
pub const HUGE: usize = unread(1 << 40);

// Each kernel: the threads of a 32 × `ty` block walk `j` over `0..T` by `S` and write the
// tile at `(ty + j) * (T + 1) + tx`, as the corpus transpose does; each sums the indices it
// wrote, so that a store skipped or made shows.

/// The index tested before the store: no bounds check fails.
macro_rules! guarded {
    ($($name:ident: $t:ident, $s:expr);*) => {$(
        #[kernel]
        pub fn $name(out: &mut [f32]) {
            let mut tile = unsafe { shared_array::<f32, 1056>() };
            let tx = thread_idx_x() as usize;
            let ty = thread_idx_y() as usize;
            let mut acc = 0.0f32;
            for j in (0..$t).step_by($s) {
                let k = (ty + j) * ($t + 1) + tx;
                if k < 1056 {
                    tile[k] = k as f32;
                    acc += k as f32 + 1.0;
                }
            }
            out[ty * 32 + tx] = acc;
        }
    )*};
}

guarded!(guarded32: T32, 8; guarded4: T4, 1; guarded33: T33, 8; guarded0: T0, 1; guarded_huge: HUGE, HUGE);

/// Rows `ty..ty + min(reps, 4)` of a tile of rows of `T + 1`, tested before the store (the
/// loop's end is a parameter: the lowering does not unroll it, and its counter is below 4).
macro_rules! rows {
    ($($name:ident: $t:ident);*) => {$(
        #[kernel]
        pub fn $name(out: &mut [f32], reps: usize) {
            let mut tile = unsafe { shared_array::<f32, 1056>() };
            let tx = thread_idx_x() as usize;
            let ty = thread_idx_y() as usize;
            let mut acc = 0.0f32;
            for r in 0..reps.min(4) {
                let k = (ty + r) * ($t + 1) + tx;
                if k < 1056 {
                    tile[k] = k as f32;
                    acc += k as f32 + 1.0;
                }
            }
            out[ty * 32 + tx] = acc;
        }
    )*};
}

rows!(rows32: T32; rows_huge: HUGE);

/// The rows checked by the store itself: with `T = 2^40`, row 1 is out of bounds.
#[kernel]
pub fn checked_rows_huge(out: &mut [f32], reps: usize) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    for r in 0..reps.min(4) {
        tile[(ty + r) * (HUGE + 1) + tx] = 1.0;
    }
    out[ty * 32 + tx] = 1.0;
}

/// The index checked by the store itself.
macro_rules! checked {
    ($($name:ident: $t:ident, $s:expr);*) => {$(
        #[kernel]
        pub fn $name(out: &mut [f32]) {
            let mut tile = unsafe { shared_array::<f32, 1056>() };
            let tx = thread_idx_x() as usize;
            let ty = thread_idx_y() as usize;
            let mut acc = 0.0f32;
            for j in (0..$t).step_by($s) {
                let k = (ty + j) * ($t + 1) + tx;
                tile[(ty + j) * ($t + 1) + tx] = k as f32;
                acc += k as f32 + 1.0;
            }
            out[ty * 32 + tx] = acc;
        }
    )*};
}

checked!(checked32: T32, 8);

// The two that fail, written out: the line a failure reports is the line in this file.

#[kernel]
pub fn checked33(out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let mut acc = 0.0f32;
    for j in (0..T33).step_by(8) {
        let k = (ty + j) * (T33 + 1) + tx;
        tile[(ty + j) * (T33 + 1) + tx] = k as f32;
        acc += k as f32 + 1.0;
    }
    out[ty * 32 + tx] = acc;
}

#[kernel]
pub fn checked_huge(out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let mut acc = 0.0f32;
    for j in (0..HUGE).step_by(HUGE) {
        let k = (ty + j) * (HUGE + 1) + tx;
        tile[(ty + j) * (HUGE + 1) + tx] = k as f32;
        acc += k as f32 + 1.0;
    }
    out[ty * 32 + tx] = acc;
}

type Body = fn(&mut [f32]);
type Launch = fn(&ptx_runtime::Stream, LaunchConfig, &mut DeviceBuffer<f32>) -> ptx_runtime::Result<()>;

/// The host's results for a 32 × `rows` block.
fn on_host(f: impl Fn(&mut [f32]) + Sync, rows: u32) -> Vec<f32> {
    let mut want = vec![0.0f32; 256];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [32, rows, 1], 0, || f(unsafe { o.get() }));
    want
}

fn on_cpu(launch: impl Fn(&ptx_runtime::Stream, LaunchConfig, &mut DeviceBuffer<f32>) -> ptx_runtime::Result<()>, rows: u32) -> ptx_runtime::Result<Vec<f32>> {
    let stream = cpu_stream();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 256)?;
    launch(&stream, LaunchConfig::new(1, (32, rows, 1)), &mut ob)?;
    ob.to_vec()
}

fn line_of(text: &str) -> u32 {
    include_str!("body_const_range.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

/// Whether the PTX has the guard `setp.ne.u32 p, <v>, 0` that rustc wrote as `v`.
fn has_guard(ptx: &str, v: u32) -> bool {
    ptx.lines().any(|l| l.contains("setp.ne.u32") && l.trim_end().ends_with(&format!(", {v}, 0;")))
}

#[test]
fn the_tile_index_gives_the_hosts_results_for_every_constant() {
    // `reps` = 2 and 4: `(ty + r) * (2^40 + 1)` has the low half `ty + r`, in bounds.
    for reps in [2usize, 4] {
        for rows in [1, 8] {
            let cpu = on_cpu(|s, c, o| rows32::launch(s, c, o, reps), rows).unwrap();
            assert_eq!(cpu, on_host(|o| rows32(o, reps), rows), "rows32, reps {reps}, 32 x {rows}");
            let cpu = on_cpu(|s, c, o| rows_huge::launch(s, c, o, reps), rows).unwrap();
            assert_eq!(cpu, on_host(|o| rows_huge(o, reps), rows), "rows_huge, reps {reps}, 32 x {rows}");
        }
    }
    assert!(assemble("rows32", rows32::PTX) && assemble("rows_huge", rows_huge::PTX));
    let cases: [(&str, &str, Launch, Body); 6] = [
        ("guarded32", guarded32::PTX, |s, c, o| guarded32::launch(s, c, o), guarded32),
        ("guarded4", guarded4::PTX, |s, c, o| guarded4::launch(s, c, o), guarded4),
        ("guarded33", guarded33::PTX, |s, c, o| guarded33::launch(s, c, o), guarded33),
        ("guarded0", guarded0::PTX, |s, c, o| guarded0::launch(s, c, o), guarded0),
        ("guarded_huge", guarded_huge::PTX, |s, c, o| guarded_huge::launch(s, c, o), guarded_huge),
        ("checked32", checked32::PTX, |s, c, o| checked32::launch(s, c, o), checked32),
    ];
    for (name, ptx, launch, body) in cases {
        assert!(assemble(name, ptx), "{name}");
        for rows in [1, 8] {
            assert_eq!(on_cpu(launch, rows).unwrap(), on_host(body, rows), "{name}, 32 x {rows}");
        }
    }
    // The tile index compared in 32 bits where the constant is small (rustc wrote the guard
    // as 1); with `T = 2^40` the guard is 0 and the 64-bit compare decides: `ty * (2^40 + 1)`
    // has the low half `ty`, in bounds, and a 32-bit compare would have stored it.
    for ptx in [guarded32::PTX, rows32::PTX] {
        assert!(has_guard(ptx, 1) && ptx.contains("setp.lt.u32"), "{ptx}");
    }
    assert!(has_guard(rows_huge::PTX, 0) && !has_guard(rows_huge::PTX, 1), "{}", rows_huge::PTX);
    assert!(has_guard(guarded_huge::PTX, 0), "{}", guarded_huge::PTX);
    assert!(!has_guard(guarded_huge::PTX, 1), "{}", guarded_huge::PTX);
    // `T = 0` is outside the assumed `1..=bound`: the other version, and no trip.
    assert!(has_guard(guarded0::PTX, 0), "{}", guarded0::PTX);
}

#[test]
fn a_tile_index_out_of_bounds_fails_at_its_line_whatever_the_constant() {
    let launches: [(&str, Launch, u32); 3] = [
        ("checked_rows_huge", |s, c, o| checked_rows_huge::launch(s, c, o, 2), line_of("tile[(ty + r) * (HUGE + 1) + tx] = 1.0;")),
        ("checked33", |s, c, o| checked33::launch(s, c, o), line_of("tile[(ty + j) * (T33 + 1) + tx] = k as f32;")),
        ("checked_huge", |s, c, o| checked_huge::launch(s, c, o), line_of("tile[(ty + j) * (HUGE + 1) + tx] = k as f32;")),
    ];
    for (name, launch, line) in launches {
        // 33: the last trip's row (ty + 32) * 34 is past the tile; 2^40: row 1 is, though its
        // index's low 32 bits are in bounds.
        match on_cpu(launch, 8) {
            Err(Error::Assert { message, file, line: l, .. }) => {
                assert_eq!(message, "index out of bounds", "{name}");
                assert!(file.ends_with("body_const_range.rs"), "{name}: {file}");
                assert_eq!(l, line, "{name}");
            }
            other => panic!("{name}: expected a failed bounds check, got {other:?}"),
        }
    }
    // One row of threads stays in bounds with 2^40: the host's results.
    assert_eq!(on_cpu(|s, c, o| checked_huge::launch(s, c, o), 1).unwrap(), on_host(checked_huge, 1));
    assert!(assemble("checked_huge", checked_huge::PTX));
}


#[test]
fn ptxas_keeps_one_version_of_the_compare() {
    for sm in [80, 90] {
        let Some(small) = sass("guarded32", guarded32::PTX, sm) else { return };
        let Some(huge) = sass("guarded_huge", guarded_huge::PTX, sm) else { return };
        // A 64-bit compare is an `ISETP` with `.EX` (the high halves). With `T = 32` the
        // only one left is `out`'s check against its length (a 64-bit parameter): the tile
        // index's 64-bit compare was folded away with the version it belonged to. With
        // `T = 2^40` that version is the one kept.
        // (Before the report block, which tests its slot, a 64-bit constant in bank 3.)
        let wide = |s: &[String]| s.iter().take_while(|i| !i.contains("c[0x3]")).filter(|i| i.starts_with("ISETP") && i.contains(".EX")).count();
        assert_eq!(wide(&small), 1, "sm_{sm}: {small:#?}");
        assert!(wide(&huge) > 1, "sm_{sm}: {huge:#?}");
    }
}

pub const TILE16: usize = unread(16);
pub const TILE17: usize = unread(17);

// Under a declared block of 16 × 16, `ty * TILE + tx` is at most `15 * TILE + 15`: below a
// tile of `TILE * TILE` exactly when `TILE >= 16`, which rustc decides; the check is gone
// for 16 and stays for 17 (where thread (15, 15) writes element 270 of 256).

#[kernel(block = (16, 16))]
pub fn tiled16(x: &[f32], out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, { TILE16 * TILE16 }>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    tile[ty * TILE16 + tx] = x[ty * 16 + tx];
    sync_threads();
    out[ty * 16 + tx] = tile[tx * TILE16 + ty];
}

#[kernel(block = (16, 16))]
pub fn tiled17(x: &[f32], out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 256>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    tile[ty * TILE17 + tx] = x[ty * 16 + tx];
    sync_threads();
    out[ty * 16 + tx] = tile[tx * 15 + ty];
}

#[test]
fn a_declared_block_and_the_constant_decide_the_tile_check() {
    let x: Vec<f32> = (0..256).map(|k| k as f32 * 0.5 - 3.0).collect();
    let stream = cpu_stream();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, 256).unwrap();
    tiled16::launch(&stream, LaunchConfig::new(1, (16, 16, 1)), &xb, &mut ob).unwrap();
    let mut want = vec![0.0f32; 256];
    let o = host::Disjoint::new(&mut want);
    // SAFETY: one element per thread.
    host::run([1, 1, 1], [16, 16, 1], 0, || tiled16(&x, unsafe { o.get() }));
    assert_eq!(ob.to_vec().unwrap(), want);
    match tiled17::launch(&stream, LaunchConfig::new(1, (16, 16, 1)), &xb, &mut ob) {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_const_range.rs"), "{file}");
            assert_eq!(line, line_of("tile[ty * TILE17 + tx] = x[ty * 16 + tx];"));
        }
        other => panic!("expected a failed bounds check, got {other:?}"),
    }
    assert!(assemble("tiled16", tiled16::PTX) && assemble("tiled17", tiled17::PTX));
    // The guard rustc wrote: 1 for 16 (`15 * 16 + 15 < 256`), 0 for 17.
    assert!(has_guard(tiled16::PTX, 1), "{}", tiled16::PTX);
    assert!(has_guard(tiled17::PTX, 0), "{}", tiled17::PTX);
    for sm in [80, 90] {
        let Some(s16) = sass("tiled16", tiled16::PTX, sm) else { return };
        let Some(s17) = sass("tiled17", tiled17::PTX, sm) else { return };
        // The tile checks compare with 256 (0x100): none left for 16, where ptxas kept the
        // version without them.
        let tile_checks = |s: &[String]| s.iter().filter(|i| i.starts_with("ISETP") && i.contains("0x100")).count();
        assert_eq!(tile_checks(&s16), 0, "sm_{sm}: {s16:#?}");
        assert!(tile_checks(&s17) > 0, "sm_{sm}: {s17:#?}");
    }
}

// Under a declared 32 × 8 block the transpose's `j` of `(0..T).step_by(8)` is, on its trips,
// one of 0, 8, 16, 24 (`ir/trips.rs`): the tile index `(ty + j) * (T + 1) + tx` is at most
// `31 * 33 + 31 = 1054` for `T = 32`, and the check goes. Below the end alone (`j <= 31`) it
// would be 1285. With `T = 33` the trip `j = 32` exists, and starting at 1 the trips are
// 1, 9, 17, 25: both write past the tile from the last row of threads, and keep their check.

#[kernel(block = (32, 8))]
pub fn stepped32(out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let mut acc = 0.0f32;
    for j in (0..T32).step_by(8) {
        let k = (ty + j) * (T32 + 1) + tx;
        tile[(ty + j) * (T32 + 1) + tx] = k as f32;
        acc += k as f32 + 1.0;
    }
    out[ty * 32 + tx] = acc;
}

#[kernel(block = (32, 8))]
pub fn stepped33(out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    for j in (0..T33).step_by(8) {
        tile[(ty + j) * (T33 + 1) + tx] = 1.0;
    }
    out[ty * 32 + tx] = 1.0;
}

#[kernel(block = (32, 8))]
pub fn stepped_from1(out: &mut [f32]) {
    let mut tile = unsafe { shared_array::<f32, 1056>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    for j in (1..T32).step_by(8) {
        tile[(ty + j) * (T32 + 1) + tx] = 2.0;
    }
    out[ty * 32 + tx] = 1.0;
}

#[test]
fn a_step_by_counter_stays_on_its_trips_values() {
    assert_eq!(on_cpu(|s, c, o| stepped32::launch(s, c, o), 8).unwrap(), on_host(stepped32, 8));
    let failing: [(&str, Launch, u32); 2] = [
        ("stepped33", |s, c, o| stepped33::launch(s, c, o), line_of("tile[(ty + j) * (T33 + 1) + tx] = 1.0;")),
        ("stepped_from1", |s, c, o| stepped_from1::launch(s, c, o), line_of("tile[(ty + j) * (T32 + 1) + tx] = 2.0;")),
    ];
    for (name, launch, line) in failing {
        match on_cpu(launch, 8) {
            Err(Error::Assert { message, file, line: l, .. }) => {
                assert_eq!(message, "index out of bounds", "{name}");
                assert!(file.ends_with("body_const_range.rs"), "{name}: {file}");
                assert_eq!(l, line, "{name}");
            }
            other => panic!("{name}: expected a failed bounds check, got {other:?}"),
        }
    }
    for (name, ptx) in [("stepped32", stepped32::PTX), ("stepped33", stepped33::PTX), ("stepped_from1", stepped_from1::PTX)] {
        assert!(assemble(name, ptx), "{name}");
    }
    // The test rustc wrote: 1 for `T = 32` from 0, none that holds for the other two.
    assert!(has_guard(stepped32::PTX, 1), "{}", stepped32::PTX);
    for sm in [80, 90] {
        let Some(s32) = sass("stepped32", stepped32::PTX, sm) else { return };
        let Some(s1) = sass("stepped_from1", stepped_from1::PTX, sm) else { return };
        // The tile check compares with 1056 (0x420): none left where the trips prove it.
        let tile_checks = |s: &[String]| s.iter().filter(|i| i.starts_with("ISETP") && i.contains("0x420")).count();
        assert_eq!(tile_checks(&s32), 0, "sm_{sm}: {s32:#?}");
        assert!(tile_checks(&s1) > 0, "sm_{sm}: {s1:#?}");
    }
}
