//! Bounds checks in a row on one line combined into one branch (`ptx-macros/src/ir/combine.rs`):
//! the PTX branches to a failure once where it did per index (ptxas accepts it), results are
//! the host's, and any one index out of bounds stops the kernel with its line. A check whose
//! index is loaded in between stays where it was. Checks on different lines combine too, and
//! report the first that fails in the source's order, as Rust does.

use crate::body_exec::cpu_stream;
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::{kernel, DeviceBuffer, Error, LaunchConfig};

/// Five neighbours and the output, all on one line: one failure branch.
#[kernel]
pub fn cross(input: &[f32], output: &mut [f32], w: usize) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize + w;
    output[i - w] = input[i] + input[i - 1] + input[i + 1] + input[i - w] + input[i + w];
}

/// `x[idx[i]]`: the second index is loaded after the first check, so it is checked there; the
/// check on the next line (`i`, known there) joins it.
#[kernel]
pub fn gather(x: &[u32], idx: &[u32], out: &mut [u32]) {
    let i = thread_idx_x() as usize;
    let v = x[idx[i] as usize];
    out[i] = v;
}

/// Softmax's loop body: a load checked on one line, a store on the next.
#[kernel]
pub fn two_lines(x: &[f32], y: &mut [f32]) {
    let j = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let e = x[j] * 2.0;
    y[j] = e + 1.0;
}

/// Three lines, the middle one's check not a bounds check (`/` by a zero divisor): `combine`
/// leaves it, so neither is the next line's check combined with the first. `ir/raise.rs` then
/// joins all three (the code between them has no effect), reporting them in the source's order.
#[kernel]
pub fn with_division(x: &[u32], d: u32, y: &mut [u32]) {
    let j = thread_idx_x() as usize;
    let v = x[j];
    let q = v / d;
    y[j] = q;
}

/// The failure branches: `@%p bra` to a label that sets a line (`mov.u32 ..., <line>`; the
/// line info's `.loc`s between them aside).
fn failure_branches(ptx: &str) -> usize {
    let lines: Vec<&str> = ptx.lines().map(str::trim).filter(|l| !l.starts_with(".loc")).collect();
    let stubs: Vec<String> = lines
        .windows(2)
        .filter(|w| w[0].ends_with(':') && w[1].starts_with("mov.u32") && w[1].split(", ").nth(1).is_some_and(|n| n.trim_end_matches(';').parse::<u32>().is_ok()))
        .map(|w| w[0].trim_end_matches(':').to_owned())
        .collect();
    lines.iter().filter(|l| l.starts_with('@') && l.contains(" bra") && stubs.iter().any(|s| l.ends_with(&format!("{s};")))).count()
}

fn line_of(text: &str) -> u32 {
    include_str!("body_combine.rs").lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

fn expect_bounds_failure(r: ptx_runtime::Result<()>, at: &str) {
    match r {
        Err(Error::Assert { message, file, line, .. }) => {
            assert_eq!(message, "index out of bounds");
            assert!(file.ends_with("body_combine.rs"), "{file}");
            assert_eq!(line, line_of(at));
        }
        other => panic!("expected a failed bounds check at `{at}`, got {other:?}"),
    }
}

#[test]
fn checks_in_a_row_on_one_line_branch_once() {
    assert!(assemble("cross", cross::PTX));
    assert_eq!(failure_branches(cross::PTX), 1, "{}", cross::PTX);
    let stream = cpu_stream();
    let (w, n) = (8usize, 64usize);
    let input: Vec<f32> = (0..n + 2 * w).map(|k| (k * k % 17) as f32).collect();
    let ib = DeviceBuffer::from_slice(&stream, &input).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    cross::launch(&stream, LaunchConfig::new(1, n as u32), &ib, &mut ob, w).unwrap();
    let want: Vec<f32> = (w..n + w).map(|i| input[i] + input[i - 1] + input[i + 1] + input[i - w] + input[i + w]).collect();
    assert_eq!(ob.to_vec().unwrap(), want);
    let at = "output[i - w] = input[i] + input[i - 1] + input[i + 1] + input[i - w] + input[i + w];";
    // The last thread's `input[i + w]` is one past the end.
    let short = DeviceBuffer::from_slice(&stream, &input[..n + 2 * w - 1]).unwrap();
    expect_bounds_failure(cross::launch(&stream, LaunchConfig::new(1, n as u32), &short, &mut ob, w), at);
    // `w = 0`: the first thread's `input[i - 1]` wraps; every other index is in bounds.
    let mut ob = DeviceBuffer::<f32>::zeroed(&stream, n).unwrap();
    expect_bounds_failure(cross::launch(&stream, LaunchConfig::new(1, n as u32), &ib, &mut ob, 0usize), at);
    // `output` one short.
    let mut small = DeviceBuffer::<f32>::zeroed(&stream, n - 1).unwrap();
    expect_bounds_failure(cross::launch(&stream, LaunchConfig::new(1, n as u32), &ib, &mut small, w), at);
}

#[test]
fn a_check_of_a_loaded_index_stays() {
    assert!(assemble("gather", gather::PTX));
    // `idx[i]`'s, and `x[..]`'s joined by `out[i]`'s: two.
    assert_eq!(failure_branches(gather::PTX), 2, "{}", gather::PTX);
    let stream = cpu_stream();
    let x: Vec<u32> = (0..10u32).map(|k| 100 + k).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let ib = DeviceBuffer::from_slice(&stream, &[3u32, 1, 4, 1, 5, 9, 2, 6]).unwrap();
    let mut ob = DeviceBuffer::<u32>::zeroed(&stream, 8).unwrap();
    gather::launch(&stream, LaunchConfig::new(1, 8), &xb, &ib, &mut ob).unwrap();
    assert_eq!(ob.to_vec().unwrap(), [103, 101, 104, 101, 105, 109, 102, 106]);
    let bad = DeviceBuffer::from_slice(&stream, &[3u32, 1, 4, 1, 5, 10, 2, 6]).unwrap();
    expect_bounds_failure(gather::launch(&stream, LaunchConfig::new(1, 8), &xb, &bad, &mut ob), "let v = x[idx[i] as usize];");
    let mut small = DeviceBuffer::<u32>::zeroed(&stream, 7).unwrap();
    expect_bounds_failure(gather::launch(&stream, LaunchConfig::new(1, 8), &xb, &ib, &mut small), "out[i] = v;");
}

/// The lines of the kernel's body between the first `ld.global` and the first `st.global`.
fn between_load_and_store(ptx: &str) -> Vec<&str> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let ld = lines.iter().position(|l| l.starts_with("ld.global")).expect("a load");
    let st = lines.iter().position(|l| l.starts_with("st.global")).expect("a store");
    lines[ld..st].to_vec()
}

#[test]
fn checks_on_two_lines_branch_once_and_report_the_first_failure() {
    assert!(assemble("two_lines", two_lines::PTX));
    let ptx = two_lines::PTX;
    assert!(!between_load_and_store(ptx).iter().any(|l| l.starts_with('@') && l.contains("bra")), "the store's check is made with the load's:\n{ptx}");
    let stream = cpu_stream();
    let x: Vec<f32> = (0..64).map(|k| k as f32 * 0.5).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    two_lines::launch(&stream, LaunchConfig::new(1, 64), &xb, &mut yb).unwrap();
    assert_eq!(yb.to_vec().unwrap(), x.iter().map(|v| v * 2.0 + 1.0).collect::<Vec<_>>());
    let (load, store) = ("let e = x[j] * 2.0;", "y[j] = e + 1.0;");
    let short_x = DeviceBuffer::from_slice(&stream, &x[..63]).unwrap();
    let mut short_y = DeviceBuffer::<f32>::zeroed(&stream, 63).unwrap();
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 64), &short_x, &mut yb), load);
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 64), &xb, &mut short_y), store);
    // Both out of bounds: Rust fails at the load, the first.
    expect_bounds_failure(two_lines::launch(&stream, LaunchConfig::new(1, 64), &short_x, &mut short_y), load);
}

#[test]
fn a_check_of_another_kind_between_two_lines_is_reported_in_its_order() {
    assert!(assemble("with_division", with_division::PTX));
    let ptx = with_division::PTX;
    // One branch to the failures, before the load; the chain behind it tests them in order.
    assert!(!between_load_and_store(ptx).iter().any(|l| l.starts_with('@') && l.contains("bra")), "{ptx}");
    let stream = cpu_stream();
    let x: Vec<u32> = (0..32).map(|k| k * 7).collect();
    let xb = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut yb = DeviceBuffer::<u32>::zeroed(&stream, 32).unwrap();
    with_division::launch(&stream, LaunchConfig::new(1, 32), &xb, 3, &mut yb).unwrap();
    assert_eq!(yb.to_vec().unwrap(), x.iter().map(|v| v / 3).collect::<Vec<_>>());
    // A zero divisor and a short `y`: Rust panics at the division, before the store's check.
    let mut short_y = DeviceBuffer::<u32>::zeroed(&stream, 31).unwrap();
    match with_division::launch(&stream, LaunchConfig::new(1, 32), &xb, 0, &mut short_y) {
        Err(Error::Assert { line, .. }) => assert_eq!(line, line_of("let q = v / d;")),
        other => panic!("expected the division's failure, got {other:?}"),
    }
    expect_bounds_failure(with_division::launch(&stream, LaunchConfig::new(1, 32), &xb, 3, &mut short_y), "y[j] = q;");
}
