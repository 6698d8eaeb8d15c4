//! No launch hangs: a block whose running threads provably loop forever is a `Deadlock` fault
//! at once, with its location; anything else that never ends meets the watchdog.

use crate::cpu_harness::{arg, fault, nvcc, Harness};
use ptx_runtime::{Error, FaultKind};
use std::time::{Duration, Instant};

const SRC: &str = include_str!("../cuda/hangs.cu");

/// nvcc's PTX on a fresh device with the watchdog off: only the hang detector can end a launch
/// (each test that needs the watchdog sets one).
fn module() -> Option<(Harness, String)> {
    let ptx = nvcc("cpu_hang", SRC)?;
    let k = Harness::new(&ptx);
    k.dev.set_watchdog(None);
    Some((k, ptx))
}

/// The 1-based PTX lines of kernel `kernel`'s instructions containing `needle`.
fn lines_of(ptx: &str, kernel: &str, needle: &str) -> Vec<usize> {
    let start = ptx.lines().position(|l| l.contains(&format!(".entry {kernel}("))).expect("kernel");
    let end = start + ptx.lines().skip(start + 1).position(|l| l.contains(".entry ")).map_or(usize::MAX / 2, |e| e + 1);
    ptx.lines().enumerate().filter(|(i, l)| *i >= start && *i < end && l.contains(needle)).map(|(i, _)| i + 1).collect()
}

/// Runs `f` on another thread and fails the test (instead of hanging it) if it takes longer
/// than `limit`.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("the launch did not return within {limit:?}"))
}

fn deadlock(r: Result<(), Error>) -> ptx_runtime::Fault {
    let f = fault(r);
    assert_eq!(f.kind, FaultKind::Deadlock, "{f}");
    assert!(!f.detail.contains("watchdog"), "found by the detector, not the watchdog: {f}");
    f
}

#[test]
fn warp_spinning_on_a_flag_set_after_a_barrier_it_never_reaches() {
    let Some((mut k, ptx)) = module() else { return };
    let flag = k.zeroed::<i32>(1);
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("barrier_vs_spin", [1, 1, 1], [64, 1, 1], 0, &[flag.ptr()])));
    assert_eq!(f.kernel, "barrier_vs_spin");
    assert!(f.thread[0] < 32, "the spinning warp is named: {f}");
    let loads = lines_of(&ptx, "barrier_vs_spin", "ld.volatile.global");
    let loop_lines: Vec<usize> = (loads[0] - 2..=loads[0] + 3).collect();
    assert!(f.line.is_some_and(|l| loop_lines.contains(&l)), "the spin loop's line {loads:?}: {f}");
    let bar = lines_of(&ptx, "barrier_vs_spin", "bar.sync")[0];
    assert!(f.detail.contains(&format!("barrier 0 on PTX line {bar}")), "the waiting warp is named: {f}");
}

#[test]
fn warp_spinning_on_shared_memory_behind_a_barrier() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(64);
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("barrier_vs_spin_shared", [1, 1, 1], [64, 1, 1], 0, &[out.ptr()])));
    assert!(f.thread[0] < 32, "{f}");
}

#[test]
fn thread_spinning_on_a_flag_no_thread_writes() {
    let Some((mut k, ptx)) = module() else { return };
    let flag = k.zeroed::<i32>(1);
    let start = Instant::now();
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("spin_alone", [1, 1, 1], [32, 1, 1], 0, &[flag.ptr()])));
    assert_eq!(f.thread, [5, 0, 0], "{f}");
    let loads = lines_of(&ptx, "spin_alone", "ld.volatile.global");
    assert!(f.line.is_some_and(|l| l.abs_diff(loads[0]) <= 3), "{loads:?}: {f}");
    assert!(start.elapsed() < Duration::from_secs(30), "found promptly: {:?}", start.elapsed());
}

#[test]
fn infinite_loop() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("forever", [2, 1, 1], [32, 1, 1], 0, &[out.ptr()])));
    assert_eq!(f.kernel, "forever");
}

#[test]
fn spin_lock_held_by_a_warp_at_a_barrier() {
    let Some((mut k, _)) = module() else { return };
    let (lock, out) = (k.zeroed::<i32>(1), k.zeroed::<i32>(64));
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("lock_vs_barrier", [1, 1, 1], [64, 1, 1], 0, &[lock.ptr(), out.ptr()])));
    assert!(f.thread[0] < 32, "a spinner is named: {f}");
}

#[test]
fn a_loop_whose_state_never_repeats_meets_the_watchdog() {
    let Some((mut k, _)) = module() else { return };
    let (flag, out) = (k.zeroed::<i32>(1), k.zeroed::<u32>(1));
    k.dev.set_watchdog(Some(Duration::from_millis(300)));
    let start = Instant::now();
    let f = within(Duration::from_secs(60), move || fault(k.launch("count_forever", [1, 1, 1], [32, 1, 1], 0, &[flag.ptr(), out.ptr()])));
    assert_eq!(f.kind, FaultKind::Deadlock, "{f}");
    assert!(f.detail.contains("watchdog") && f.detail.contains("PTX_CPU_WATCHDOG"), "{f}");
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
}

#[test]
fn every_block_spinning_on_a_flag_nobody_writes() {
    let Some((mut k, _)) = module() else { return };
    let flag = k.zeroed::<i32>(1);
    k.dev.set_parallelism(2);
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("spin_alone", [6, 1, 1], [32, 1, 1], 0, &[flag.ptr()])));
    assert!(f.detail.contains("4 block(s) never started"), "{f}");
}

#[test]
fn a_block_waiting_for_a_later_block() {
    let Some((mut k, _)) = module() else { return };
    // Every block has a host thread: block 0 sees block 1's flag and both finish.
    let flags = k.zeroed::<i32>(2);
    k.dev.set_parallelism(2);
    k.launch("wait_for_next_block", [2, 1, 1], [32, 1, 1], 0, &[flags.ptr()]).unwrap();
    assert_eq!(k.download::<i32>(flags), [1, 1]);
    // One host thread: block 1 never starts while block 0 waits for it.
    let flags = k.zeroed::<i32>(2);
    k.dev.set_parallelism(1);
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("wait_for_next_block", [2, 1, 1], [32, 1, 1], 0, &[flags.ptr()])));
    assert_eq!((f.block, f.thread), ([0, 0, 0], [0, 0, 0]), "{f}");
    assert!(f.detail.contains("1 block(s) never started") && f.detail.contains("set_parallelism"), "{f}");
}

#[test]
fn a_block_waiting_for_the_slow_work_of_all_others() {
    let Some((mut k, _)) = module() else { return };
    let rounds = 30_000u32;
    let want: Vec<i32> = (0..8u32)
        .map(|b| if b == 0 { 1 } else { ((0..rounds).fold(b, |x, _| x.wrapping_mul(1664525).wrapping_add(1013904223)) & 0xffff) as i32 })
        .collect();
    // Block 0 spins (and is watched) on one host thread while the other seven run in turn on
    // the second: a legitimate wait, however long.
    let (count, out) = (k.zeroed::<i32>(1), k.zeroed::<i32>(8));
    k.dev.set_parallelism(2);
    k.launch("wait_for_all", [8, 1, 1], [32, 1, 1], 0, &[count.ptr(), out.ptr(), arg(rounds as i32)]).unwrap();
    assert_eq!(k.download::<i32>(out), want);
    // With one host thread the others never start.
    let (count, out) = (k.zeroed::<i32>(1), k.zeroed::<i32>(8));
    k.dev.set_parallelism(1);
    let f = within(Duration::from_secs(60), move || deadlock(k.launch("wait_for_all", [8, 1, 1], [32, 1, 1], 0, &[count.ptr(), out.ptr(), arg(1)])));
    assert!(f.detail.contains("7 block(s) never started"), "{f}");
}

#[test]
fn a_slow_but_correct_handoff_is_not_a_hang() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(1);
    // Long enough that the spinning warp is watched for many rounds while the other computes.
    let rounds = 300_000u32;
    k.launch("slow_handoff", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(rounds as i32)]).unwrap();
    let x = (0..rounds).fold(1u32, |x, _| x.wrapping_mul(1664525).wrapping_add(1013904223));
    assert_eq!(k.download::<i32>(out), [(x & 0xffff) as i32]);
}

#[test]
fn the_watchdog_is_on_by_default() {
    if std::env::var_os(ptx_runtime::cpu::WATCHDOG_ENV).is_some() {
        return;
    }
    let d = ptx_runtime::cpu::CpuDevice::new();
    assert_eq!(d.watchdog(), Some(ptx_runtime::cpu::DEFAULT_WATCHDOG));
    d.set_watchdog(None);
    assert_eq!(d.watchdog(), None);
}
