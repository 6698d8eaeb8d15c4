//! The sm_90 bulk copy from shared to global memory (`memcpy_async_bulk_store`,
//! `bulk_commit`, `bulk_wait_prior`, `fence_proxy_async`):
//! - a block-tile store runs on the CPU backend and on the host with the same result;
//! - on the CPU backend the copy lands at the wait that covers its group: a read of the
//!   destination between the commit and the wait sees the old contents, one after sees the
//!   copy;
//! - misuse faults at the copy: a size that is not a multiple of 16, a destination past the
//!   end of its allocation;
//! - the CUDA C twin (`tests/cuda/async_bulk_store.cu`, CCCL's `cuda::ptx`) compiled by nvcc
//!   runs on the CPU backend against the same reference, and our `cp.async.bulk` lines are
//!   nvcc's.

use crate::body_async_copy::shapes;
use crate::cpu_harness::{fault, nvcc_archs_cccl, Harness};
use crate::tools::assemble;
use ptx_runtime::device::*;
use ptx_runtime::vector::f32x4;
use ptx_runtime::device::host;
use ptx_runtime::{kernel, DeviceBuffer, FaultKind, LaunchConfig};

const CUDA: &str = include_str!("../cuda/async_bulk_store.cu");

mod k {
    use super::*;

    /// Each block of 32 threads writes `3 * x[i] + t` to a shared tile; thread 0 stores the
    /// tile to `y` in one bulk copy and waits for it.
    #[kernel(sm = 90)]
    pub fn bulk_store(x: &[f32x4], y: &mut [f32x4]) {
        let mut tile = unsafe { shared_array::<f32x4, 32>() };
        let t = thread_idx_x() as usize;
        let base = block_idx_x() as usize * 32;
        let v = x[base + t];
        tile[t] = f32x4::new(3.0 * v.x + t as f32, 3.0 * v.y, 3.0 * v.z, 3.0 * v.w);
        fence_proxy_async();
        sync_threads();
        if t == 0 {
            unsafe { memcpy_async_bulk_store(&mut y[base..base + 32], &tile[0]) };
            bulk_commit();
            bulk_wait_prior(0);
        }
    }

    /// Thread 0 stores 16 floats to `y[0..16]`, reads `y[0]` before and after the wait.
    #[kernel(sm = 90)]
    pub fn read_before_wait(y: &mut [f32], seen: &mut [f32]) {
        let mut tile = unsafe { shared_array::<f32, 16>() };
        let t = thread_idx_x() as usize;
        tile[t] = 7.0 + t as f32;
        fence_proxy_async();
        sync_threads();
        if t == 0 {
            unsafe { memcpy_async_bulk_store(&mut y[0..16], &tile[0]) };
            bulk_commit();
            seen[0] = y[0];
            bulk_wait_prior(0);
            seen[1] = y[0];
        }
    }

    /// A bulk store of `n` floats (a multiple of 4 is a multiple of 16 bytes).
    #[kernel(sm = 90)]
    pub fn store_n(y: &mut [f32], n: u32) {
        let tile = unsafe { shared_array::<f32, 64>() };
        if thread_idx_x() == 0 {
            unsafe { memcpy_async_bulk_store(&mut y[0..n as usize], &tile[0]) };
            bulk_commit();
            bulk_wait_prior(0);
        }
    }

    /// Each operation once, in the order of `store_oracle` in the CUDA C twin.
    #[kernel(sm = 90)]
    pub fn store_oracle(y: &mut [f32], n: u32) {
        let mut tile = unsafe { shared_array::<f32, 64>() };
        let t = thread_idx_x() as usize;
        tile[t] = t as f32;
        fence_proxy_async();
        sync_threads();
        unsafe { memcpy_async_bulk_store(&mut y[0..n as usize / 4], &tile[0]) };
        bulk_commit();
        bulk_wait_prior(1);
        bulk_wait_prior(0);
    }
}

fn input(blocks: usize) -> Vec<f32x4> {
    (0..blocks * 32).map(|i| f32x4::new(i as f32, 0.5 - i as f32, 1.0 / (i + 1) as f32, -2.0)).collect()
}

fn reference(x: &[f32x4]) -> Vec<u32> {
    let y: Vec<f32x4> = x.iter().enumerate().map(|(i, v)| f32x4::new(3.0 * v.x + (i % 32) as f32, 3.0 * v.y, 3.0 * v.z, 3.0 * v.w)).collect();
    bits(&y)
}

fn bits(v: &[f32x4]) -> Vec<u32> {
    v.iter().flat_map(|q| [q.x, q.y, q.z, q.w]).map(f32::to_bits).collect()
}

#[test]
fn bulk_store_matches_the_host() {
    assemble("bulk_store", k::bulk_store::PTX);
    let blocks = 5;
    let x = input(blocks);
    let mut host_y = vec![f32x4::default(); blocks * 32];
    let o = host::Disjoint::new(&mut host_y);
    // SAFETY: each block writes its own 32 elements (thread 0 of the block).
    host::run([blocks as u32, 1, 1], [32, 1, 1], 0, || k::bulk_store(&x, unsafe { o.get() }));
    assert_eq!(bits(&host_y), reference(&x));
    let stream = crate::body_exec::cpu_stream();
    let xs = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ys = DeviceBuffer::<f32x4>::zeroed(&stream, blocks * 32).unwrap();
    k::bulk_store::launch(&stream, LaunchConfig::new(blocks as u32, 32), &xs, &mut ys).unwrap();
    assert_eq!(bits(&ys.to_vec().unwrap()), reference(&x));
}

#[test]
fn a_bulk_store_lands_at_its_wait_on_the_cpu_backend() {
    assemble("read_before_wait", k::read_before_wait::PTX);
    let stream = crate::body_exec::cpu_stream();
    let mut y = DeviceBuffer::from_slice(&stream, &[-1.0f32; 16]).unwrap();
    let mut seen = DeviceBuffer::<f32>::zeroed(&stream, 2).unwrap();
    k::read_before_wait::launch(&stream, LaunchConfig::new(1, 16), &mut y, &mut seen).unwrap();
    assert_eq!(seen.to_vec().unwrap(), [-1.0, 7.0], "before the wait the old value, after it the copy's");
    assert_eq!(y.to_vec().unwrap(), (0..16).map(|t| 7.0 + t as f32).collect::<Vec<_>>());
}

#[test]
fn bulk_store_misuse_faults_at_the_copy() {
    assemble("store_n", k::store_n::PTX);
    let stream = crate::body_exec::cpu_stream();
    let mut y = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    let f = fault(k::store_n::launch(&stream, LaunchConfig::new(1, 32), &mut y, 3));
    assert_eq!((f.kind, f.thread), (FaultKind::Misaligned, [0, 0, 0]), "12 bytes: {f}");
    k::store_n::launch(&stream, LaunchConfig::new(1, 32), &mut y, 8).unwrap();
    // Past the end of `y`'s allocation: the slice is checked first on the host; here, with
    // the bounds check out of the way, the copy itself faults on the CPU backend.
    let mut h = Harness::new(k::bulk_store::PTX);
    let x = h.upload(&input(2));
    let short = h.zeroed::<f32x4>(40);
    let mut lie = short.ptr();
    lie.extend(64u64.to_le_bytes());
    let r = h.launch(k::bulk_store::ENTRY, [2, 1, 1], [32, 1, 1], 0, &[x.slice(), lie]);
    let f = fault(r);
    assert_eq!((f.kind, f.thread), (FaultKind::OutOfBounds, [0, 0, 0]), "{f}");
    assert!(k::bulk_store::PTX.lines().nth(f.line.unwrap() - 1).unwrap().contains("cp.async.bulk.global"), "{f:?}");
}

#[test]
fn nvcc_compiled_bulk_store_runs_on_the_cpu_backend_and_matches_our_lines() {
    assemble("store_oracle", k::store_oracle::PTX);
    let ours = shapes(k::store_oracle::PTX, None);
    assert_eq!(
        ours,
        [
            "cp.async.bulk.global.shared::cta.bulk_group [%rd], [%r], %r",
            "cp.async.bulk.commit_group",
            "cp.async.bulk.wait_group 1",
            "cp.async.bulk.wait_group 0",
        ]
    );
    assert!(k::store_oracle::PTX.contains("fence.proxy.async.shared::cta"));
    for ptx in nvcc_archs_cccl("async_bulk_store", CUDA, &["sm_90"]) {
        assert_eq!(ours, shapes(&ptx, Some("store_oracle")), "ours (left) against nvcc's (right)\n{}", k::store_oracle::PTX);
        let blocks = 3;
        let x = input(blocks);
        let mut h = Harness::new(&ptx);
        let (dx, dy) = (h.upload(&x), h.zeroed::<f32x4>(blocks * 32));
        h.launch("bulk_store", [blocks as u32, 1, 1], [32, 1, 1], 0, &[dx.ptr(), dy.ptr()]).unwrap();
        assert_eq!(h.download::<u32>(dy), reference(&x), "nvcc's bulk_store");
    }
}
