//! Assertions and panics in device code: a failing check surfaces as `Error::Assert` with
//! Rust's panic message, the file and line of the macro or the indexing, and the function's
//! path; the message is the one the same body panics with on the host. A failure reports
//! through the function's slot (`ptx_abi::report`: a store, a fence, `trap`; no call), and
//! under `debug` through nvcc's `__assertfail` call (guide §3), whose shape is nvcc's.

use crate::cpu_harness::{arg, Harness};
use crate::tools::{assemble, nvcc_ptx};
use ptx_runtime::device::*;
use ptx_runtime::{device_fn, kernel, DeviceBuffer, Error, LaunchConfig};

const SOURCE: &str = include_str!("sys_assert.rs");

/// The 1-based line of this file that contains `marker` (once).
fn line_of(marker: &str) -> u32 {
    let lines: Vec<usize> = SOURCE.lines().enumerate().filter(|(_, l)| l.contains(marker) && !l.contains("line_of(")).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "marker `{marker}`");
    lines[0] as u32
}

/// The message of the panic `f` raises on the host.
fn host_panic(f: impl FnOnce()) -> String {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(prev);
    let e = r.expect_err("the body panics on the host");
    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).expect("a text payload")
}

/// The `Error::Assert` of a launch, as (message, file, line, function).
fn assert_error(r: Result<(), Error>) -> (String, String, u32, String) {
    match r {
        Err(Error::Assert { message, file, line, function, .. }) => (message, file, line, function),
        other => panic!("expected Error::Assert, got {other:?}"),
    }
}

#[kernel]
pub fn checks(v: &[i32], n: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < n as usize {
        assert!(v[i] >= 0); // MARK: assert
    }
}

#[test]
fn a_failing_assert_is_an_error_with_message_file_and_line() {
    assemble("checks", checks::PTX);
    let mut v: Vec<i32> = (0..128).collect();
    let stream = crate::body_exec::cpu_stream();
    let buf = DeviceBuffer::from_slice(&stream, &v).unwrap();
    checks::launch(&stream, LaunchConfig::new(2, 64), &buf, 128).unwrap();
    v[77] = -1;
    let buf = DeviceBuffer::from_slice(&stream, &v).unwrap();
    let (message, file, line, function) = assert_error(checks::launch(&stream, LaunchConfig::new(2, 64), &buf, 128));
    assert_eq!(message, "assertion failed: v[i] >= 0");
    assert!(file.ends_with("tests/suite/sys_assert.rs"), "{file}");
    assert_eq!(line, line_of("MARK: assert"));
    assert_eq!(function, "suite::sys_assert::checks");
    // The host panics with the same message.
    assert_eq!(host_panic(|| checks(&[-1], 1)), message);
    // Thread 13 of block 1 failed: the error says so, with the check's column.
    let mut k = Harness::new(checks::PTX);
    let d = k.upload(&v);
    match k.launch(checks::ENTRY, [2, 1, 1], [64, 1, 1], 0, &[d.slice(), arg(128u32)]) {
        Err(Error::Assert { site: Some(s), .. }) => {
            assert_eq!((s.block, s.thread), ([1, 0, 0], [13, 0, 0]));
            let src = s.source.expect("the site's location");
            assert_eq!((src.line, src.column), (line_of("MARK: assert"), 9));
        }
        other => panic!("expected Error::Assert, got {other:?}"),
    }
}

#[kernel]
pub fn compare(a: &[i32], b: &[i32]) {
    let i = thread_idx_x() as usize;
    assert_eq!(a[i], b[i]);
}

#[kernel]
pub fn differ(a: u64, b: u64, x: f32) {
    assert_ne!(a, b, "must differ");
    assert_eq!(x, 0.5f32);
    assert_eq!(a > 100, b > 100);
}

#[test]
fn assert_eq_and_assert_ne_print_both_values() {
    assemble("compare", compare::PTX);
    assemble("differ", differ::PTX);
    let a = [1, 2, 3, 4];
    let b = [1, 2, -5, 4];
    let mut k = Harness::new(compare::PTX);
    let (da, db) = (k.upload(&a), k.upload(&b));
    let (message, _, line, _) = assert_error(k.launch(compare::ENTRY, [1, 1, 1], [4, 1, 1], 0, &[da.slice(), db.slice()]));
    assert_eq!(message, "assertion `left == right` failed");
    assert_eq!(line, line_of("assert_eq!(a[i], b[i]);"));
    let printed = k.printf();
    assert!(printed.starts_with("  left: 3\n right: -5\n"), "{printed}");
    // Rust's message on the host is the device's message and the printed values.
    let host = host_panic(|| compare(&a[2..], &b[2..]));
    assert_eq!(host, format!("{message}\n  left: 3\n right: -5"));

    let k = Harness::new(differ::PTX);
    let (message, ..) = assert_error(k.launch(differ::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(7u64), arg(7u64), arg(0.5f32)]));
    assert_eq!(message, "assertion `left != right` failed: must differ");
    assert!(k.printf().starts_with("  left: 7\n right: 7\n"));
    assert_eq!(host_panic(|| differ(7, 7, 0.5)), format!("{message}\n  left: 7\n right: 7"));
    let (message, ..) = assert_error(k.launch(differ::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(7u64), arg(8u64), arg(0.25f32)]));
    assert_eq!(message, "assertion `left == right` failed");
    assert!(k.printf().starts_with("  left: 0.25\n right: 0.5\n"));
    k.launch(differ::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(7u64), arg(8u64), arg(0.5f32)]).unwrap();
    // `bool`s print as Rust prints them.
    let (message, ..) = assert_error(k.launch(differ::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(7u64), arg(800u64), arg(0.5f32)]));
    assert!(k.printf().starts_with("  left: false\n right: true\n"));
    assert_eq!(host_panic(|| differ(7, 800, 0.5)), format!("{message}\n  left: false\n right: true"));
}

#[kernel]
pub fn explicit(which: u32) {
    match which {
        0 => panic!("boom {{braces}}"),
        1 => unreachable!(),
        2 => todo!(),
        3 => unimplemented!("later"),
        4 => panic!(),
        5 => unreachable!("never {{here}}"),
        _ => {}
    }
}

#[test]
fn panic_macros_report_rust_s_messages() {
    assemble("explicit", explicit::PTX);
    let k = Harness::new(explicit::PTX);
    for which in 0..6u32 {
        let (message, _, line, _) = assert_error(k.launch(explicit::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(which)]));
        assert_eq!(message, host_panic(|| explicit(which)), "which = {which}");
        assert_eq!(line, line_of("fn explicit(which: u32)") + 2 + which, "which = {which}");
    }
    k.launch(explicit::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(6u32)]).unwrap();
}

#[kernel]
pub fn debug_only(x: u32) {
    debug_assert!(x < 10, "x is small");
}

#[test]
fn debug_assert_follows_the_crate_s_debug_assertions() {
    assemble("debug_only", debug_only::PTX);
    // `cfg!(debug_assertions)`, evaluated by rustc for this crate, guards the check: this test
    // crate has debug assertions, so the check runs.
    let guard = if cfg!(debug_assertions) { "setp.ne.u64 \t%p1, 1, 0;" } else { "setp.ne.u64 \t%p1, 0, 0;" };
    assert!(debug_only::PTX.contains(guard), "{}", debug_only::PTX);
    let k = Harness::new(debug_only::PTX);
    k.launch(debug_only::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(3u32)]).unwrap();
    let r = k.launch(debug_only::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(30u32)]);
    if cfg!(debug_assertions) {
        assert_eq!(assert_error(r).0, "x is small");
    } else {
        r.unwrap();
    }
}

#[kernel]
pub fn two_sites(v: &[u32], i: u32, j: u32, out: &mut [u32]) {
    let a = v[i as usize]; // MARK: site a
    let b = v[j as usize]; // MARK: site b
    out[0] = a / b; // MARK: divide
    assert!(out[0] != 7, "seven"); // MARK: seven
    if a == 9 {
        panic!("nine"); // MARK: nine
    }
}

#[test]
fn failed_checks_report_their_own_location() {
    assemble("two_sites", two_sites::PTX);
    // No call: each place sets its site's number and jumps to the function's one report
    // block; the module lists the five sites.
    let ptx = two_sites::PTX;
    assert!(!ptx.contains("call") && ptx.matches("trap;").count() == 1, "{ptx}");
    assert_eq!(ptx.lines().filter(|l| l.starts_with(ptx_runtime::abi::report::SITE_PREFIX)).count(), 6, "{ptx}");
    let v = [4u32, 0, 2, 14, 9];
    let mut k = Harness::new(two_sites::PTX);
    let (dv, out) = (k.upload(&v), k.zeroed::<u32>(1));
    let run = |k: &Harness, i: u32, j: u32| k.launch(two_sites::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[dv.slice(), arg(i), arg(j), out.slice()]);
    run(&k, 0, 2).unwrap();
    assert_eq!(k.download::<u32>(out), [2]);
    let mut o = [0u32];
    for (i, j, marker) in [(5, 0, "MARK: site a"), (0, 5, "MARK: site b"), (0, 1, "MARK: divide"), (3, 2, "MARK: seven"), (4, 2, "MARK: nine")] {
        let (message, file, line, function) = assert_error(run(&k, i, j));
        assert_eq!(line, line_of(&format!("// {marker}")), "{marker}");
        assert!(file.ends_with("sys_assert.rs") && function == "suite::sys_assert::two_sites", "{file} {function}");
        // Rust's panic message starts with ours (Rust adds the run-time values).
        let host = host_panic(|| two_sites(&v, i, j, &mut o));
        assert!(host.starts_with(&message), "{host:?} / {message:?}");
    }
}

/// Bounds checks only: two sites, one per line (as Rust's panic, a site is a line: the two
/// checks of the first share it).
#[kernel]
pub fn bounds_only(v: &[u32], i: u32, j: u32, out: &mut [u32]) {
    out[0] = v[i as usize] + v[j as usize]; // MARK: two loads
    out[1] = v[(i + j) as usize];
}

/// One site: its number is set in the report block, and the check branches there directly.
#[kernel]
pub fn one_site(v: &[u32], i: u32, out: &mut [u32]) {
    out[0] = v[i as usize]; // MARK: one site
}

#[test]
fn each_site_is_a_number_and_a_line_of_the_module() {
    assemble("bounds_only", bounds_only::PTX);
    let ptx = bounds_only::PTX;
    let sites = ptx_runtime::abi::report::sites(ptx);
    let two = line_of("// MARK: two loads");
    let at: Vec<(u32, u32)> = sites.iter().map(|s| (s.number, s.line)).collect();
    assert_eq!(at, [(1, two), (2, two + 1)], "{ptx}");
    assert!(sites.iter().all(|s| s.message == "index out of bounds" && s.function == "suite::sys_assert::bounds_only"), "{sites:?}");
    // No string constants, no call: the stubs set the number (`mov.u32 %r, 2`, ...).
    assert!(!ptx.contains("$str$") && !ptx.contains("call"), "{ptx}");
    for n in 1..=2 {
        assert!(ptx.lines().any(|l| l.trim_start().starts_with("mov.u32") && l.trim_end().ends_with(&format!(", {n};"))), "{n}: {ptx}");
    }
    let mut k = Harness::new(ptx);
    let (dv, out) = (k.upload(&[1u32, 2, 3]), k.zeroed::<u32>(2));
    let run = |k: &Harness, i: u32, j: u32| k.launch(bounds_only::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[dv.slice(), arg(i), arg(j), out.slice()]);
    run(&k, 0, 1).unwrap();
    assert_eq!(k.download::<u32>(out), [3, 2]);
    for (i, j, line) in [(3, 0, two), (0, 3, two), (1, 2, two + 1)] {
        let (message, _, at, _) = assert_error(run(&k, i, j));
        assert_eq!((message.as_str(), at), ("index out of bounds", line), "{i} {j}");
    }
    // One site: no stub in between.
    assemble("one_site", one_site::PTX);
    let ptx = one_site::PTX;
    assert_eq!(ptx.matches("bra").count(), 1, "{ptx}");
    let mut k = Harness::new(ptx);
    let (dv, out) = (k.upload(&[5u32]), k.zeroed::<u32>(1));
    let (message, _, at, _) = assert_error(k.launch(one_site::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[dv.slice(), arg(1u32), out.slice()]));
    assert_eq!((message.as_str(), at), ("index out of bounds", line_of("// MARK: one site")));
}

/// What the report block is on the GPU: the site's number stored with a system-scope store
/// (to host-mapped memory), a system fence, and the trap; no call, so none of the ABI's
/// registers (a call's sequence makes ptxas allocate at least 24).
#[test]
fn the_report_block_stores_fences_and_traps_without_a_call() {
    for sm in [75, 90] {
        let Some(sass) = crate::tools::sass("two_sites_report", two_sites::PTX, sm) else { return };
        assert!(!sass.iter().any(|i| i.contains("CALL")), "sm_{sm}: {sass:#?}");
        let at = |what: &str| sass.iter().position(|i| i.contains(what)).unwrap_or_else(|| panic!("sm_{sm}: no {what}: {sass:#?}"));
        let (store, fence, trap) = (at("STG.E.STRONG.SYS"), at("MEMBAR.SC.SYS"), at("BPT.TRAP"));
        assert!(store < fence && fence < trap, "sm_{sm}: {sass:#?}");
    }
}

/// A module another runtime loads (its slot not armed) stores into the module's own word, which
/// the slot points at from the start, and traps: the store needs no test of the slot.
#[test]
fn an_unarmed_slot_stores_into_the_modules_own_word_and_traps() {
    let ptx = one_site::PTX;
    let mut k = Harness::new(ptx);
    let slot = &ptx_runtime::abi::report::sites(ptx)[0].slot;
    let word = slot.replace(ptx_runtime::abi::report::SLOT_SUFFIX, ptx_runtime::abi::report::WORD_SUFFIX);
    let (slot_at, _) = k.module.symbol(slot).expect("the slot is a module variable");
    let (word_at, _) = k.module.symbol(&word).expect("the word is a module variable");
    // What the module's initializer says, before our runtime armed it.
    k.dev.write(slot_at, &word_at.to_le_bytes()).unwrap();
    let (dv, out) = (k.upload(&[5u32]), k.zeroed::<u32>(1));
    match k.launch(one_site::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[dv.slice(), arg(1u32), out.slice()]) {
        Err(Error::Fault(f)) => assert!(f.kind == ptx_runtime::cpu::FaultKind::Trap, "{f:?}"),
        other => panic!("expected a trap, got {other:?}"),
    }
    let mut stored = [0u8; 4];
    k.dev.read(word_at, &mut stored).unwrap();
    assert_eq!(u32::from_le_bytes(stored), 1, "the site's number, in the module's word");
    // The initializer is the word's address: no null to test in the report block.
    let declaration = ptx.lines().find(|l| l.starts_with(".const") && l.contains(slot.as_str())).expect("the slot's declaration");
    assert!(declaration.trim_end().ends_with(&format!(" = {word};")), "{declaration}");
    assert!(!crate::tools::report_block(ptx).contains("setp"), "{ptx}");
}

#[device_fn]
pub fn positive(x: i32) -> i32 {
    assert!(x > 0, "not positive");
    x
}

#[kernel]
pub fn calls_positive(x: i32, out: &mut [i32]) {
    out[0] = positive(x);
}

#[test]
fn a_device_function_reports_its_own_path() {
    assemble("calls_positive", calls_positive::PTX);
    assert!(!calls_positive::PTX.contains("__assertfail"), "{}", calls_positive::PTX);
    let mut k = Harness::new(calls_positive::PTX);
    let out = k.zeroed::<i32>(1);
    k.launch(calls_positive::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(5i32), out.slice()]).unwrap();
    let (message, _, line, function) = assert_error(k.launch(calls_positive::ENTRY, [1, 1, 1], [1, 1, 1], 0, &[arg(-5i32), out.slice()]));
    assert_eq!((message.as_str(), line, function.as_str()), ("not positive", line_of("assert!(x > 0,"), "suite::sys_assert::positive"));
}

/// Under `debug` (nvcc's `-G`), a failure calls `__assertfail` as nvcc's `assert` does.
#[kernel(debug)]
pub fn checks_debug(v: &[i32], n: u32) {
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    if i < n as usize {
        assert!(v[i] >= 0); // MARK: debug assert
    }
}

#[test]
fn a_debug_kernel_calls_assertfail() {
    assemble("checks_debug", checks_debug::PTX);
    let v: Vec<i32> = (0..64).map(|i| if i == 9 { -1 } else { i }).collect();
    let stream = crate::body_exec::cpu_stream();
    let buf = DeviceBuffer::from_slice(&stream, &v).unwrap();
    let (message, _, line, function) = assert_error(checks_debug::launch(&stream, LaunchConfig::new(1, 64), &buf, 64));
    assert_eq!((message.as_str(), line, function.as_str()), ("assertion failed: v[i] >= 0", line_of("MARK: debug assert"), "suite::sys_assert::checks_debug"));
}

const NVCC_ASSERT: &str = r#"
#include <cassert>
extern "C" __global__ void checks(const int *v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(v[i] >= 0);
    }
}
"#;

/// For each `__assertfail` call: the `st.param` types of its arguments, and the call itself
/// with whitespace removed.
fn call_shapes(ptx: &str) -> Vec<(Vec<String>, String)> {
    let body = &ptx[ptx.find(".entry").expect("an entry")..];
    let mut out = Vec::new();
    let mut stores = Vec::new();
    let mut call = String::new();
    for l in body.lines().map(str::trim) {
        if l.starts_with('{') {
            stores.clear();
            call.clear();
        } else if l.starts_with("st.param") {
            stores.push(l.split_whitespace().next().unwrap().to_owned());
        } else if l.starts_with("call.uni") || !call.is_empty() {
            call.extend(l.chars().filter(|c| !c.is_whitespace()));
            if call.ends_with(';') {
                if call.contains("__assertfail") {
                    out.push((std::mem::take(&mut stores), call.trim_end_matches(';').to_owned()));
                }
                call.clear();
            }
        }
    }
    out
}

#[test]
fn the_call_is_nvccs() {
    let Some(theirs) = nvcc_ptx("assert_shape", NVCC_ASSERT) else { return };
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    assert!(squeeze(&theirs).contains(&squeeze(ptx_runtime::abi::syscall::ASSERTFAIL)), "{theirs}");
    assert!(checks_debug::PTX.contains(ptx_runtime::abi::syscall::ASSERTFAIL));
    let (ours, theirs_calls) = (call_shapes(checks_debug::PTX), call_shapes(&theirs));
    assert_eq!(theirs_calls.len(), 1, "{theirs}");
    // Ours has one, which the `assert!` and the bounds check of `v[i]` (the CUDA indexes
    // unchecked) both reach.
    assert_eq!(ours.len(), 1, "{}", checks_debug::PTX);
    for c in &ours {
        assert_eq!(c, &theirs_calls[0]);
    }
    // charSize 1, as nvcc passes.
    for p in [checks_debug::PTX, theirs.as_str()] {
        assert!(squeeze(p).contains("st.param.b64[param4+0],1;") || squeeze(p).contains("st.param.b64[param4],1;"), "{p}");
    }
}

/// On the device the suite runs on (a GPU under `PTX_DEVICE=cuda`, else the CPU backend), a
/// failed check is `Error::Assert` with Rust's message, file and line: on CUDA through the
/// host-mapped word the runtime pointed the slot at, read after the trap. The trap is sticky
/// for a CUDA context, so the test runs alone there (`isolate.rs`).
#[test]
fn a_failed_check_reports_its_location_on_the_device() {
    let device = ptx_runtime::Device::select().unwrap_or_else(|_| ptx_runtime::Device::cpu());
    crate::isolate::alone(module_path!(), "a_failed_check_reports_its_location_on_the_device", device.kind(), || {
        let stream = device.stream();
        let v = DeviceBuffer::from_slice(&stream, &[1u32, 2, 3]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(&stream, 1).unwrap();
        one_site::launch(&stream, LaunchConfig::new(1, 1), &v, 2, &mut out).and_then(|_| stream.synchronize()).unwrap();
        assert_eq!(out.to_vec().unwrap(), [3]);
        let r = one_site::launch(&stream, LaunchConfig::new(1, 1), &v, 3, &mut out).and_then(|_| stream.synchronize());
        let (message, file, line, function) = assert_error(r);
        assert_eq!((line, function.as_str()), (line_of("// MARK: one site"), "suite::sys_assert::one_site"));
        // On CUDA the message goes on to say that the trap left the context unusable.
        assert!(message.starts_with("index out of bounds") && file.ends_with("sys_assert.rs"), "{message} {file}");
    });
}
