//! Memcheck: planted bugs of every kind end the launch with an `Err` that names the kernel,
//! block and thread, the address and the PTX line; nothing crashes or corrupts the host.

use crate::cpu_harness::{arg, fault, nvcc, Harness};
use ptx_runtime::{Error, FaultKind};
use std::time::Duration;

const SRC: &str = include_str!("../cuda/memcheck.cu");

fn module() -> Option<(Harness, String)> {
    nvcc("cpu_memcheck", SRC).map(|p| (Harness::new(&p), p))
}

/// The 1-based PTX line of the first line after the `.entry kernel` line that contains all of
/// `needles`.
fn line_of(ptx: &str, kernel: &str, needles: &[&str]) -> usize {
    let start = ptx.lines().position(|l| l.contains(&format!(".entry {kernel}("))).expect("kernel");
    start + 1 + ptx.lines().skip(start).position(|l| needles.iter().all(|n| l.contains(n))).expect("instruction")
}

#[test]
fn out_of_bounds_global_store() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(100);
    let f = fault(k.launch("past_the_end", [4, 1, 1], [32, 1, 1], 0, &[out.ptr(), arg(100i32)]));
    assert_eq!(f.kind, FaultKind::OutOfBounds, "{f}");
    assert_eq!(f.kernel, "past_the_end");
    assert_eq!((f.block, f.thread), ([3, 0, 0], [4, 0, 0]), "element 100 is block 3, thread 4: {f}");
    assert_eq!(f.address, Some(out.addr + 400));
    assert_eq!(f.line, Some(line_of(&ptx, "past_the_end", &["st.global.u32"])));
    assert!(f.detail.contains("past the end of the 400-byte allocation"), "{f}");
    // Elements before the fault were written; nothing past the allocation was.
    assert!(k.download::<i32>(out).iter().take(96).all(|v| *v == 100));
}

#[test]
fn null_pointer_read() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let f = fault(k.launch("null_read", [1, 1, 1], [32, 1, 1], 0, &[arg(0u64), out.ptr()]));
    assert_eq!(f.kind, FaultKind::OutOfBounds);
    assert_eq!((f.thread, f.address), ([0, 0, 0], Some(0)));
    assert_eq!(f.line, Some(line_of(&ptx, "null_read", &["ld.global"])));
    assert!(f.detail.contains("null"), "{f}");
}

#[test]
fn out_of_bounds_shared_read() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(64);
    k.launch("shared_overflow", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(0i32)]).unwrap();
    let f = fault(k.launch("shared_overflow", [2, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(1i32)]));
    assert_eq!(f.kind, FaultKind::OutOfBounds, "{f}");
    assert_eq!((f.block, f.thread), ([0, 0, 0], [63, 0, 0]));
    assert_eq!(f.line, Some(line_of(&ptx, "shared_overflow", &["ld.shared"])));
    // Only this kernel's 256-byte array is laid out (not the module's other shared arrays).
    assert!(f.detail.contains("256 bytes of shared memory") && f.detail.contains("at 0x0..0x100"), "{f}");
}

#[test]
fn out_of_bounds_local_read() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let f = fault(k.launch("local_overflow", [1, 1, 1], [32, 1, 1], 0, &[out.ptr(), arg(0i32)]));
    assert_eq!(f.kind, FaultKind::OutOfBounds, "{f}");
    assert_eq!(f.thread, [8, 0, 0], "a[8] is the first index past the array: {f}");
    // The load from the local array: nvcc 13.5 writes `ld.volatile.local.u32` for the
    // `volatile int a[8]`, nvcc 13.0 (13.0.88) `ld.local.u32`, without `.volatile`; either is
    // the kernel's one load from local memory.
    assert_eq!(f.line, Some(line_of(&ptx, "local_overflow", &["ld.", ".local"])));
}

#[test]
fn misaligned_access() {
    let Some((mut k, ptx)) = module() else { return };
    let (p, out) = (k.zeroed::<u8>(256), k.zeroed::<i32>(32));
    let f = fault(k.launch("misaligned", [1, 1, 1], [32, 1, 1], 0, &[p.ptr(), out.ptr()]));
    assert_eq!(f.kind, FaultKind::Misaligned, "{f}");
    assert_eq!((f.thread, f.address), ([0, 0, 0], Some(p.addr + 1)));
    assert_eq!(f.line, Some(line_of(&ptx, "misaligned", &["ld.global.u32"])));
}

#[test]
fn barrier_reached_at_different_instructions() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(64);
    let f = fault(k.launch("split_barrier", [1, 1, 1], [64, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::BarrierDivergence, "{f}");
    let bars: Vec<usize> = ptx.lines().enumerate().filter(|(_, l)| l.contains("bar.sync")).map(|(i, _)| i + 1).collect();
    assert!(f.line.is_some_and(|l| bars.contains(&l)), "{f}");
    assert!(f.detail.contains("different barrier instructions"), "{f}");
}

#[test]
fn threads_that_exit_before_a_barrier() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(64);
    // As on a GPU, exited threads do not hold the barrier up.
    k.launch("early_return", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(40i32)]).unwrap();
    assert_eq!(&k.download::<i32>(out)[..40], &(0..40).rev().collect::<Vec<i32>>()[..]);
    // Strict mode reports what CUDA calls undefined behaviour.
    k.dev.set_strict_barriers(true);
    let f = fault(k.launch("early_return", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(40i32)]));
    assert_eq!(f.kind, FaultKind::BarrierDivergence, "{f}");
    assert!(f.detail.contains("24 of the block's 64 threads exited"), "{f}");
    k.launch("early_return", [1, 1, 1], [64, 1, 1], 0, &[out.ptr(), arg(64i32)]).unwrap();
}

#[test]
fn barrier_never_reached_by_enough_threads() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(64);
    let f = fault(k.launch("short_barrier", [1, 1, 1], [64, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::BarrierDivergence, "{f}");
    assert!(f.thread[0] < 32, "{f}");
    assert!(f.detail.contains("32 of the 64 threads"), "{f}");
}

#[test]
fn warp_shuffle_deadlock() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let f = fault(k.launch("shuffle_deadlock", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::Deadlock, "{f}");
    let shfls: Vec<usize> = ptx.lines().enumerate().filter(|(_, l)| l.contains("shfl.sync")).map(|(i, _)| i + 1).collect();
    assert!(f.line.is_some_and(|l| shfls.contains(&l)), "{f}");
}

#[test]
fn double_free() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let f = fault(k.launch("double_free", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::InvalidFree, "{f}");
    assert_eq!(f.thread, [3, 0, 0]);
}

#[test]
fn store_to_constant_memory() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let (table, size) = k.module.symbol("table").expect("the __constant__ variable");
    assert_eq!(size, 16);
    let f = fault(k.launch("write_through", [1, 1, 1], [32, 1, 1], 0, &[arg(table), out.ptr()]));
    assert_eq!(f.kind, FaultKind::OutOfBounds, "{f}");
    assert_eq!((f.thread, f.address), ([2, 0, 0], Some(table)));
    assert!(f.detail.contains("read-only"), "{f}");
    assert_eq!(&k.download::<i32>(out)[..4], &[1, 2, 3, 4]);
}

#[test]
fn trap_and_stack_overflow() {
    let Some((mut k, ptx)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let f = fault(k.launch("traps", [1, 1, 1], [32, 1, 1], 0, &[out.ptr()]));
    assert_eq!((f.kind, f.thread), (FaultKind::Trap, [5, 0, 0]), "{f}");
    assert_eq!(f.line, Some(line_of(&ptx, "traps", &["trap;"])));
    k.dev.set_stack_size(4096);
    let f = fault(k.launch("overflow_stack", [1, 1, 1], [2, 1, 1], 0, &[out.ptr()]));
    assert_eq!(f.kind, FaultKind::OutOfBounds, "{f}");
    assert!(f.detail.contains("stack overflow"), "{f}");
}

#[test]
fn a_spinning_kernel_is_a_deadlock() {
    let Some((mut k, _)) = module() else { return };
    let flag = k.zeroed::<i32>(1);
    // The hang detector finds it long before the watchdog (more in cpu_hang.rs).
    k.dev.set_watchdog(Some(Duration::from_secs(120)));
    let f = fault(k.launch("spin", [1, 1, 1], [32, 1, 1], 0, &[flag.ptr()]));
    assert_eq!(f.kind, FaultKind::Deadlock, "{f}");
    assert!(f.detail.contains("this loop never ends"), "{f}");
}

#[test]
fn bad_launches_are_errors() {
    let Some((mut k, _)) = module() else { return };
    let out = k.zeroed::<i32>(32);
    let cfg = |r: Result<(), Error>| matches!(r, Err(Error::InvalidConfig { .. }));
    assert!(cfg(k.launch("traps", [1, 1, 1], [2048, 1, 1], 0, &[out.ptr()])));
    assert!(cfg(k.launch("traps", [0, 1, 1], [32, 1, 1], 0, &[out.ptr()])));
    assert!(cfg(k.launch("traps", [1, 1, 1], [32, 1, 1], 1 << 20, &[out.ptr()])));
    assert!(cfg(k.launch("traps", [1, 1, 1], [32, 1, 1], 0, &[])));
    assert!(cfg(k.launch("traps", [1, 1, 1], [32, 1, 1], 0, &[arg(1u32)])));
    assert!(cfg(k.launch("no_such_kernel", [1, 1, 1], [32, 1, 1], 0, &[])));
    let other = ptx_runtime::cpu::CpuDevice::new();
    assert!(cfg(other.launch(&k.module, "traps", [1, 1, 1], [1, 1, 1], 0, &[&out.ptr()]).map_err(Error::from)));
}

/// Every block fails; block 0 only after a long loop. The launch reports block 0 whatever the
/// workers' timing: a failure stops the blocks after it, and those before it run on.
const LATE_FIRST: &str = r#"
.version 7.0
.target sm_75
.address_size 64

.visible .entry late_first(.param .u64 p)
{
	.reg .pred %p<3>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %ctaid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra FAIL;
	mov.u32 %r2, 0;
LOOP:
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 200000;
	@%p2 bra LOOP;
FAIL:
	ld.global.u32 %r3, [%rd1];
	st.global.u32 [%rd1], %r3;
	ret;
}
"#;

#[test]
fn the_lowest_failing_block_is_reported() {
    crate::tools::assemble("cpu_memcheck_late_first", LATE_FIRST);
    let k = Harness::new(LATE_FIRST);
    for _ in 0..3 {
        let f = fault(k.launch("late_first", [4, 1, 1], [1, 1, 1], 0, &[arg(0u64)]));
        assert_eq!((f.kind, f.block, f.thread), (FaultKind::OutOfBounds, [0, 0, 0], [0, 0, 0]), "{f}");
    }
}
