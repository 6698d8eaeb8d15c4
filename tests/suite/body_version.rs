//! Loop versioning (`ptx-macros/src/ir/version.rs`): a loop whose checks sit under an `if`
//! gets a copy without them, run when a test before the loop proves that no check can fail;
//! the checked original runs otherwise, so a failing launch reports what Rust reports. Each
//! kernel runs on the CPU backend against the host run of the same body: on inputs that take
//! the unchecked copy, on inputs that take the checked one without failing, and on inputs
//! that fail (the trap at the line Rust reports, where the host run panics too). ptxas
//! assembles each; the tiled kernel's unchecked copy is one branch-free block per trip.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

const T: usize = 8;

/// The corpus matmul's shape: two guarded loads into shared tiles, a barrier, an inner loop.
#[kernel]
pub fn tiles(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
    let mut ta = unsafe { shared_array::<f32, { T * T }>() };
    let mut tb = unsafe { shared_array::<f32, { T * T }>() };
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let row = block_idx_y() as usize * T + ty;
    let col = block_idx_x() as usize * T + tx;
    let n = n as usize;
    let mut acc = 0.0f32;
    for t in 0..(n + T - 1) / T {
        let (ac, br) = (t * T + tx, t * T + ty);
        ta[ty * T + tx] = if row < n && ac < n { a[row * n + ac] } else { 0.0 }; // tile a
        tb[ty * T + tx] = if br < n && col < n { b[br * n + col] } else { 0.0 }; // tile b
        sync_threads();
        for k in 0..T {
            acc += ta[ty * T + k] * tb[k * T + tx]; // inner
        }
        sync_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

/// Two guarded loads on two lines (so `defer` leaves them), `m` trips of a stride of 4.
#[kernel]
pub fn two_lines(x: &[u32], y: &[u32], out: &mut [u32], n: u32, m: u32) {
    let i = thread_idx_x() as usize;
    let (n, m) = (n as usize, m as usize);
    let mut s = 0u32;
    for t in 0..m {
        let j = t * 4 + i;
        if j < n {
            s = s.wrapping_mul(3).wrapping_add(x[j]); // line x
            s ^= y[j]; // line y
        }
    }
    out[i] = s;
}

/// Barriers in a loop only the first warp enters: a replay decided for the whole block, where no
/// thread of the second warp could vote. Two guarded loads on two lines, as `two_lines`.
#[kernel]
pub fn first_warp(x: &[u32], y: &[u32], out: &mut [u32], n: u32, m: u32) {
    let t = thread_idx_x() as usize;
    let mut s = 0u32;
    if t < 32 {
        for k in 0..m as usize {
            if k < n as usize {
                s = s.wrapping_mul(5).wrapping_add(x[k * 32 + t]); // first warp
                s ^= y[k * 32 + t]; // first warp y
            }
            sync_threads();
        }
    }
    out[t] = s;
}

fn line_of(text: &str) -> u32 {
    include_str!("body_version.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_version.rs"), "{file}");
            assert_eq!(line, line_of(at), "expected the failure at `{at}`");
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

fn host_panics(f: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err()
}

fn tiles_host(a: &[f32], b: &[f32], n: usize, block: [u32; 3]) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    let out = host::Disjoint::new(&mut c);
    let g = n.div_ceil(T) as u32;
    // SAFETY: each thread writes its own element.
    host::run([g, g, 1], block, 0, || tiles(a, b, unsafe { out.get() }, n as u32));
    c
}

#[test]
fn a_tile_loop_with_guarded_loads_gets_an_unchecked_copy_and_keeps_rusts_reports() {
    assert!(assemble("tiles", tiles::PTX));
    let ptx = tiles::PTX;
    // The tile loop once, with its two guarded loads; where the block's test fails (one
    // `bar.red.and`), a replay of its checks and barriers before it, without loads or stores.
    assert_eq!(ptx.matches("ld.global").count(), 2, "{ptx}");
    assert_eq!(ptx.matches("st.shared").count(), 2, "{ptx}");
    assert_eq!(ptx.matches("bar.sync").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("bar.red.and.pred").count(), 1, "{ptx}");
    if let Some(sass) = crate::tools::sass("tiles_sm80", ptx, 80) {
        // The unchecked copy: its loads predicated, no branch in a trip but the loop's own.
        let loops = crate::tools::sass_loops(&sass);
        let clean = loops.iter().any(|l| {
            let body = &sass[l.clone()];
            body.iter().any(|i| i.contains("LDG")) && body.iter().filter(|i| i.contains("BRA")).count() == 1
        });
        assert!(clean, "{sass:#?}");
    }
    let stream = cpu_stream();
    let block = [T as u32, T as u32, 1];
    let run = |a: &[f32], b: &[f32], n: usize, block: [u32; 3]| {
        let (ab, bb) = (DeviceBuffer::from_slice(&stream, a).unwrap(), DeviceBuffer::from_slice(&stream, b).unwrap());
        let mut cb = DeviceBuffer::<f32>::zeroed(&stream, n * n).unwrap();
        let g = n.div_ceil(T) as u32;
        tiles::launch(&stream, LaunchConfig::new((g, g, 1), (block[0], block[1], block[2])), &ab, &bb, &mut cb, n as u32).map(|()| cb.to_vec().unwrap())
    };
    for n in [1usize, 7, 8, 13, 20] {
        let a: Vec<f32> = (0..n * n).map(|k| (k as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..n * n).map(|k| (k as f32 * 0.11).cos()).collect();
        let want = tiles_host(&a, &b, n, block);
        // Exact sizes: the unchecked copy. Longer slices: the same.
        assert_eq!(run(&a, &b, n, block).unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "n = {n}");
        let (mut a2, mut b2) = (a.clone(), b.clone());
        a2.push(1.0);
        b2.extend([2.0; 9]);
        assert_eq!(run(&a2, &b2, n, block).unwrap(), want, "n = {n}, longer slices");
        // One element short: the checked copy, failing where the host fails.
        assert!(host_panics(|| {
            tiles_host(&a[..n * n - 1], &b, n, block);
        }));
        expect_bounds_failure(run(&a[..n * n - 1], &b, n, block).map(|_| ()), "// tile a");
        assert!(host_panics(|| {
            tiles_host(&a, &b[..n * n - 1], n, block);
        }));
        expect_bounds_failure(run(&a, &b[..n * n - 1], n, block).map(|_| ()), "// tile b");
    }
    // A block wider than the tile: the shared store's check (decided before the loop) fails
    // in the first trip, on the first load's line, before any thread reaches the barrier.
    let n = 13;
    let a: Vec<f32> = (0..n * n).map(|k| k as f32).collect();
    let wide = [T as u32 + 1, T as u32, 1];
    assert!(host_panics(|| {
        tiles_host(&a, &a, n, wide);
    }));
    expect_bounds_failure(run(&a, &a, n, wide).map(|_| ()), "// tile a");
}

#[test]
fn the_checked_copy_runs_where_the_test_fails_and_no_check_does() {
    assert!(assemble("two_lines", two_lines::PTX));
    // The loop once, and a replay of its checks decided per warp.
    assert_eq!(two_lines::PTX.matches("ld.global").count(), 2, "{}", two_lines::PTX);
    assert!(two_lines::PTX.contains("vote.sync.all.pred"), "{}", two_lines::PTX);
    let stream = cpu_stream();
    let threads = 4u32;
    let run = |x: &[u32], y: &[u32], n: u32, m: u32| {
        let (xb, yb) = (DeviceBuffer::from_slice(&stream, x).unwrap(), DeviceBuffer::from_slice(&stream, y).unwrap());
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, threads as usize).unwrap();
        two_lines::launch(&stream, LaunchConfig::new(1, threads), &xb, &yb, &mut ob, n, m).map(|()| ob.to_vec().unwrap())
    };
    let host = |x: &[u32], y: &[u32], n: u32, m: u32| {
        let mut out = vec![0u32; threads as usize];
        let o = host::Disjoint::new(&mut out);
        // SAFETY: each thread writes its own element.
        host::run([1, 1, 1], [threads, 1, 1], 0, || two_lines(x, y, unsafe { o.get() }, n, m));
        out
    };
    let x: Vec<u32> = (0..100u32).map(|k| k.wrapping_mul(2654435761)).collect();
    let y: Vec<u32> = (0..100).map(|k| k ^ 0x5a5a).collect();
    // (x's length, y's length, n, m): the test passes (slices of n); the test fails (slices
    // shorter than n) but the trips read only their first 40 elements; no trip.
    for (nx, ny, n, m) in [(100, 100, 100, 25), (100, 100, 60, 25), (40, 40, 100, 10), (100, 40, 100, 10), (1, 1, 100, 0)] {
        assert_eq!(run(&x[..nx], &y[..ny], n, m).unwrap(), host(&x[..nx], &y[..ny], n, m), "x {nx}, y {ny}, n {n}, m {m}");
    }
    // A trip reads past y's end, then past x's (and y's): Rust's line each time.
    assert!(host_panics(|| {
        host(&x, &y[..41], 100, 11);
    }));
    expect_bounds_failure(run(&x, &y[..41], 100, 11).map(|_| ()), "// line y");
    assert!(host_panics(|| {
        host(&x[..41], &y[..41], 100, 11);
    }));
    expect_bounds_failure(run(&x[..41], &y[..41], 100, 11).map(|_| ()), "// line x");
}

#[test]
fn a_replay_with_barriers_is_decided_where_every_thread_entering_the_loop_is() {
    assert!(assemble("first_warp", first_warp::PTX));
    assert!(first_warp::PTX.contains("bar.red.and.pred"), "{}", first_warp::PTX);
    let stream = cpu_stream();
    let x: Vec<u32> = (0..96u32).map(|k| k.wrapping_mul(2654435761)).collect();
    let y: Vec<u32> = (0..96u32).map(|k| k ^ 0x5a5a).collect();
    let run = |x: &[u32], threads: u32, n: u32, m: u32| {
        let (xb, yb) = (DeviceBuffer::from_slice(&stream, x).unwrap(), DeviceBuffer::from_slice(&stream, &y).unwrap());
        let mut ob = DeviceBuffer::<u32>::zeroed(&stream, threads as usize).unwrap();
        first_warp::launch(&stream, LaunchConfig::new(1, threads), &xb, &yb, &mut ob, n, m).map(|()| ob.to_vec().unwrap())
    };
    let host = |x: &[u32], threads: u32, n: u32, m: u32| {
        let mut out = vec![0u32; threads as usize];
        let o = host::Disjoint::new(&mut out);
        // SAFETY: each thread writes its own element.
        host::run([1, 1, 1], [threads, 1, 1], 0, || first_warp(x, &y, unsafe { o.get() }, n, m));
        out
    };
    // Two warps, no trip: the second warp never reaches a barrier, and neither does the first.
    assert_eq!(run(&x, 64, 3, 0).unwrap(), vec![0; 64]);
    // One warp: the test passes (3 trips of 32 within 96), or fails (n larger than the trips
    // read, so the replay runs and finds nothing); a slice one short fails at the line.
    for (len, n, m) in [(96, 3, 3), (96, 9, 3), (64, 2, 5)] {
        assert_eq!(run(&x[..len], 32, n, m).unwrap(), host(&x[..len], 32, n, m), "len {len}, n {n}, m {m}");
    }
    assert!(host_panics(|| {
        host(&x[..95], 32, 3, 3);
    }));
    expect_bounds_failure(run(&x[..95], 32, 3, 3).map(|_| ()), "// first warp");
}

/// The corpus matmul's tile loop, versioned with a replay: its copy carries the original's
/// `for` facts and the replay sets the counter back to the constant it starts from, so the
/// counter has a range on both loops and is counted in 32 bits (`ir::narrow_reg`), as nvcc
/// counts it: no 64-bit step of a counter is left.
#[test]
fn the_copy_and_the_replay_count_in_32_bits() {
    let ptx = crate::corpus::matmul::matmul::PTX;
    assert!(assemble("matmul", ptx));
    assert!(ptx.contains("bar.red.and.pred"), "{ptx}");
    let steps = |width: &str| ptx.lines().filter(|l| l.trim_start().starts_with(width) && l.trim_end().ends_with(", 1;")).filter(|l| {
        let ops: Vec<&str> = l.split_whitespace().skip(1).collect();
        ops.len() == 3 && ops[0].trim_end_matches(',') == ops[1].trim_end_matches(',')
    }).count();
    assert_eq!(steps("add.s64"), 0, "{ptx}");
    assert!(steps("add.u32") >= 2, "{ptx}");
}
