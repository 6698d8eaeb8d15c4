//! Cooperative launches and `grid_sync()`: the kernel's result against the same body run by
//! `host::run_cooperative` and against a plain host computation, the PTX against ptxas and
//! against the instructions nvcc emits for cooperative groups' `this_grid().sync()`
//! (`tests/cuda/coop_groups.cu`, whose own PTX runs in `cpu_cg.rs`), and the errors: a grid
//! that cannot be resident, a grid barrier outside a cooperative launch.

use crate::cpu_cg::grid_rounds_reference;
use ptx_runtime::device::*;
use ptx_runtime::{Device, DeviceBuffer, Error, FaultKind, LaunchConfig};

/// `cpu_cg.rs`'s `grid_rounds` (nvcc), written in Rust: each round every element becomes
/// `3 · a[(i + block + 1) mod n] + i`, all read before any is written.
#[ptx_runtime::kernel]
pub fn grid_rounds(a: &mut [i32], rounds: i32) {
    let n = a.len();
    let block = block_dim_x() as usize;
    let i = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let mut r = 0;
    while r < rounds {
        let v = a[(i + block + 1) % n].wrapping_mul(3).wrapping_add(i as i32);
        grid_sync();
        a[i] = v;
        grid_sync();
        r += 1;
    }
}

fn device() -> Device {
    Device::select().unwrap_or_else(|_| Device::cpu())
}

fn input(n: usize) -> Vec<i32> {
    (0..n).map(|i| ((i as i64 * 7919 + 13) % 201 - 100) as i32).collect()
}

#[test]
fn grid_sync_is_cooperative_groups_barrier_and_assembles() {
    let ptx = grid_rounds::PTX;
    crate::tools::assemble("grid_rounds", ptx);
    // nvcc's lowering of `this_grid().sync()`: the workspace from %envreg1:2, a trap without
    // one, release add and acquire polling of the barrier word, block barriers around them.
    for needle in ["%envreg1", "%envreg2", "atom.add.release.gpu.u32", "ld.acquire.gpu.u32", "trap;", "bar.sync"] {
        assert!(ptx.contains(needle), "`{needle}` missing from\n{ptx}");
    }
    if let Some(nvcc) = crate::cpu_harness::nvcc_archs_cccl("coop_grid", include_str!("../cuda/coop_groups.cu"), &["sm_80"]).first() {
        for needle in ["%envreg1", "%envreg2", "atom.add.release.gpu.u32", "ld.acquire.gpu.u32"] {
            assert!(nvcc.contains(needle), "nvcc no longer emits `{needle}` for this_grid().sync()");
        }
    }
}

#[test]
fn a_cooperative_grid_meets_at_every_grid_sync() {
    let device = device();
    let stream = device.stream();
    let (threads, rounds) = (64u32, 4);
    // More blocks than the CPU backend has workers: they must run interleaved.
    let blocks = device.max_cooperative_grid(&grid_rounds::KERNEL, threads, 0).unwrap().min(8);
    assert!(blocks >= 2);
    let n = (blocks * threads) as usize;
    let x = input(n);
    let mut a = DeviceBuffer::from_slice(&stream, &x).unwrap();
    grid_rounds::launch(&stream, LaunchConfig::new(blocks, threads).cooperative(), &mut a, rounds).unwrap();
    let got = a.to_vec().unwrap();
    assert_eq!(got, grid_rounds_reference(&x, threads as usize, rounds as usize));
    // The same body on the host, every thread of the grid at once.
    let mut h = x.clone();
    let out = host::Disjoint::new(&mut h);
    // SAFETY: between grid barriers each thread writes only its own element.
    host::run_cooperative([blocks, 1, 1], [threads, 1, 1], 0, || grid_rounds(unsafe { out.get() }, rounds));
    assert_eq!(got, h, "device and host runs of the same body");
}

#[test]
fn a_cooperative_grid_that_cannot_be_resident_is_an_err() {
    let device = device();
    let stream = device.stream();
    let most = device.max_cooperative_grid(&grid_rounds::KERNEL, 64, 0).unwrap();
    let n = (most as usize + 1) * 64;
    let x = input(n);
    let mut a = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let r = grid_rounds::launch(&stream, LaunchConfig::new(most + 1, 64).cooperative(), &mut a, 1);
    match r {
        Err(Error::InvalidConfig { reason }) => assert!(reason.contains("resident") && reason.contains(&format!("{}", most + 1)), "{reason}"),
        other => panic!("expected InvalidConfig, got {other:?}"),
    }
    assert_eq!(a.to_vec().unwrap(), x, "nothing ran");
    // Blocks per SM come from the occupancy calculator: more shared memory, fewer blocks.
    let fewer = device.max_cooperative_grid(&grid_rounds::KERNEL, 64, 40 << 10).unwrap();
    assert!(fewer < most, "{fewer} < {most}");
}

/// On a GPU the trap is sticky for the context, so the test runs in a process of its own
/// (`isolate.rs`), where it also checks what a user sees afterwards: every later call on the
/// device is an `Err` that says so, not a panic.
#[test]
fn grid_sync_outside_a_cooperative_launch_traps() {
    let device = device();
    crate::isolate::alone(module_path!(), "grid_sync_outside_a_cooperative_launch_traps", device.kind(), || {
        let stream = device.stream();
        let mut a = DeviceBuffer::<i32>::zeroed(&stream, 128).unwrap();
        let r = grid_rounds::launch(&stream, LaunchConfig::new(2, 64), &mut a, 1);
        if device.kind() == ptx_runtime::BackendKind::Cpu {
            assert!(matches!(r, Err(Error::Fault(ref f)) if f.kind == FaultKind::Trap), "{r:?}");
        } else {
            let e = r.err().or_else(|| stream.synchronize().err()).expect("a trap on the GPU is an Err");
            assert!(e.to_string().contains("unusable"), "the error says the context is lost: {e}");
            let later = DeviceBuffer::from_slice(&stream, &[1i32, 2]).and_then(|b| b.to_vec());
            match later {
                Err(e) => assert!(e.to_string().contains("unusable"), "a later call: {e}"),
                Ok(v) => panic!("a call after the trap succeeded: {v:?}"),
            }
            assert!(device.new_stream().and_then(|s| s.synchronize()).is_err(), "a new stream after the trap");
        }
        // On the host, outside host::run_cooperative, the body panics as the device traps.
        let mut h = vec![0i32; 64];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| grid_rounds(&mut h, 1)));
        assert!(caught.is_err());
    });
}
