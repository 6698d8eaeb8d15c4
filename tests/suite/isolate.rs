//! Tests whose kernel traps on a CUDA device run in a process of their own.
//!
//! A kernel fault (a `trap`, an illegal address, a failed device assertion) is sticky for the
//! CUDA context: every later call on that device in the process fails with it, and every test
//! of the suite shares the device's one primary context, so a trap in one test fails the
//! tests running beside it and after it. Such a test wraps its body in [`alone`]: on a CUDA
//! device the test re-runs this binary with that one test (`--exact`) and `PTX_ISOLATED=1`,
//! and passes when the child passes; in the child, and on the CPU backend (whose faults are the
//! `Err` of one launch and leave nothing behind), the body runs in place.
//!
//! The suite's tests that trap on a CUDA device: `runtime_coop::grid_sync_outside_a_cooperative_launch_traps`,
//! `sys_assert::a_failed_check_reports_its_location_on_the_device`.

use ptx_runtime::BackendKind;
use std::process::Command;

/// Set in the child process that runs one isolated test.
const ENV: &str = "PTX_ISOLATED";

/// Runs `body` in a process of its own when `kind` is CUDA (see the module's comment).
/// `module` is the test's `module_path!()`, `name` its function's name.
pub fn alone(module: &str, name: &str, kind: BackendKind, body: impl FnOnce()) {
    if kind != BackendKind::Cuda || std::env::var_os(ENV).is_some() {
        body();
        return;
    }
    in_child(module, name);
}

/// Runs test `module::name` of this binary alone in a child process; panics unless it passed.
fn in_child(module: &str, name: &str) {
    // libtest names a test by its path without the crate's name.
    let path = module.split_once("::").map_or("", |(_, rest)| rest);
    let test = if path.is_empty() { name.to_owned() } else { format!("{path}::{name}") };
    let exe = std::env::current_exe().expect("the test binary's own path");
    let out = Command::new(&exe)
        .args([test.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(ENV, "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot re-run {} for {test}: {e}", exe.display()));
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{test}, run in a process of its own, failed ({}):\n{text}", out.status);
    assert!(text.contains("test result: ok. 1 passed"), "the child process ran no test named {test}:\n{text}");
}

/// The mechanism itself, on any backend: `alone` with a CUDA kind re-runs this test in a
/// child, where the body runs (it sees the variable only the child is given); a body that
/// fails in the child fails the parent.
#[test]
fn a_test_alone_runs_in_a_child_process() {
    alone(module_path!(), "a_test_alone_runs_in_a_child_process", BackendKind::Cuda, || {
        assert!(std::env::var_os(ENV).is_some(), "the body runs only in the child");
    });
}

#[test]
fn a_failure_in_the_child_fails_the_parent() {
    if std::env::var_os(ENV).is_some() {
        panic!("the child's planted failure");
    }
    let r = std::panic::catch_unwind(|| in_child(module_path!(), "a_failure_in_the_child_fails_the_parent"));
    let msg = r.expect_err("the parent must fail").downcast::<String>().map(|s| *s).unwrap_or_default();
    assert!(msg.contains("the child's planted failure"), "{msg}");
}
