//! Asynchronous copies and mbarriers (`ptx_runtime::device::memcpy_async`, `pipeline_commit`,
//! `pipeline_wait_prior`, `mbarrier_*`, `memcpy_async_bulk`):
//!
//! - Rust kernels (a double-buffered tile sum, 16/8-byte and zero-filled copies, an mbarrier
//!   producer/consumer over several phases, an sm_90 bulk copy) run on the CPU backend and
//!   must equal the same bodies run on the host (`host::run`) and a plain host reference;
//! - the same kernels written in CUDA C (`tests/cuda/async_copy.cu`, `async_bulk.cu`), compiled
//!   by nvcc, run on the CPU backend against the same reference;
//! - PTX-line oracle: `oracle80` / `oracle90` emit each operation once, and their `cp.async` /
//!   `mbarrier` lines must be nvcc's for the CUDA C twins (opcode with every modifier, operand
//!   structure with registers reduced to their kind), in the same order;
//! - the CPU backend's model (copies land at the wait) makes a missing wait observable.
//!
//! Every module goes through ptxas.

use crate::cpu_harness::{nvcc_archs, nvcc_archs_cccl, Harness};
use crate::tools::assemble;
use ptx_runtime::device::host;
use ptx_runtime::vector::f32x4;
use ptx_runtime::{DeviceBuffer, LaunchConfig};

const CUDA: &str = include_str!("../cuda/async_copy.cu");
const CUDA_BULK: &str = include_str!("../cuda/async_bulk.cu");

mod k {
    use ptx_runtime::device::*;
    use ptx_runtime::kernel;
    use ptx_runtime::vector::f32x4;

    /// Double-buffered: tile k + 1 is copied while tile k is summed; thread t adds
    /// `2 * tile[t] + tile[63 - t]` of each of the block's `tiles` tiles of 64.
    #[kernel(sm = 80)]
    pub fn tile_sum(x: &[f32], y: &mut [f32], tiles: u32) {
        let mut buf = unsafe { shared_array::<f32, 128>() };
        let t = thread_idx_x() as usize;
        let tiles = tiles as usize;
        let base = block_idx_x() as usize * 64 * tiles;
        unsafe { memcpy_async(&mut buf[t], &x[base + t]) };
        pipeline_commit();
        let mut acc = 0.0f32;
        for k in 0..tiles {
            if k + 1 < tiles {
                let nb = (k + 1) % 2 * 64;
                unsafe { memcpy_async(&mut buf[nb + t], &x[base + (k + 1) * 64 + t]) };
            }
            pipeline_commit();
            pipeline_wait_prior(1);
            sync_threads();
            let cb = k % 2 * 64;
            acc += buf[cb + t] * 2.0 + buf[cb + 63 - t];
            sync_threads();
        }
        y[block_idx_x() as usize * 64 + t] = acc;
    }

    /// The same without the wait: on the CPU backend the copies never land.
    #[kernel(sm = 80)]
    pub fn no_wait(x: &[f32], y: &mut [f32]) {
        let mut buf = unsafe { shared_array::<f32, 32>() };
        let t = thread_idx_x() as usize;
        buf[t] = -1.0;
        unsafe { memcpy_async(&mut buf[t], &x[t]) };
        pipeline_commit();
        sync_threads();
        y[t] = buf[t];
    }

    /// 16-byte copies (`.cg` and `.ca`), an 8-byte one and a zero-filled tail: `n` floats are
    /// valid in `x`.
    #[kernel(sm = 80)]
    pub fn copy_wide(x: &[f32x4], z: &[f64], y: &mut [f32x4], u: &mut [f32x4], w: &mut [f64], n: u32) {
        let mut s = unsafe { shared_array::<f32x4, 32>() };
        let mut c = unsafe { shared_array::<f32x4, 32>() };
        let mut e = unsafe { shared_array::<f32x4, 32>() };
        let mut d = unsafe { shared_array::<f64, 32>() };
        let t = thread_idx_x() as usize;
        let left = if n > t as u32 * 4 { n - t as u32 * 4 } else { 0 };
        let bytes = if left >= 4 { 16 } else { left * 4 };
        unsafe {
            memcpy_async(&mut s[t], &x[t]);
            memcpy_async_ca(&mut c[t], &x[31 - t]);
            memcpy_async(&mut d[t], &z[t]);
            memcpy_async_zfill(&mut e[t], &x[t], bytes);
        }
        pipeline_wait_all();
        sync_threads();
        let (a, b) = (s[t], c[t]);
        y[t] = f32x4::new(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
        u[t] = e[t];
        w[t] = d[31 - t];
    }

    /// Producer/consumer through a split barrier: warp 0 writes a slot per round, warp 1
    /// reads it once the round's phase completes (all 64 threads arrive each round).
    #[kernel(sm = 80)]
    pub fn mbar_rounds(y: &mut [f32], rounds: u32) {
        let mut bar = unsafe { shared_array::<u64, 1>() };
        let mut slot = unsafe { shared_array::<f32, 128>() };
        let t = thread_idx_x() as usize;
        if t == 0 {
            unsafe { mbarrier_init(&mut bar[0], block_dim_x()) };
        }
        sync_threads();
        let mut acc = 0.0f32;
        for r in 0..rounds as usize {
            if t < 32 {
                slot[r * 32 + t] = (r * 100 + t) as f32;
            }
            let tok = unsafe { mbarrier_arrive(&mut bar[0]) };
            while !unsafe { mbarrier_test_wait(&mut bar[0], tok) } {}
            if t >= 32 {
                acc += slot[r * 32 + (63 - t)];
            }
        }
        y[t] = acc;
        sync_threads();
        if t == 0 {
            unsafe { mbarrier_inval(&mut bar[0]) };
        }
    }

    /// sm_90: each block of 32 threads brings its 32 `f32x4` to shared memory in one bulk
    /// copy completing on an mbarrier; thread t writes `3 * tile[31 - t]`.
    #[kernel(sm = 90)]
    pub fn bulk_scale(x: &[f32x4], y: &mut [f32x4]) {
        let mut tile = unsafe { shared_array::<f32x4, 32>() };
        let mut bar = unsafe { shared_array::<u64, 1>() };
        let t = thread_idx_x() as usize;
        let base = block_idx_x() as usize * 32;
        if t == 0 {
            unsafe { mbarrier_init(&mut bar[0], 1) };
        }
        sync_threads();
        if t == 0 {
            unsafe {
                mbarrier_arrive_expect_tx(&mut bar[0], 512);
                memcpy_async_bulk(&mut tile[0], &x[base..base + 32], &mut bar[0]);
            }
        }
        while !unsafe { mbarrier_try_wait_parity(&mut bar[0], 0) } {}
        let v = tile[31 - t];
        y[base + t] = f32x4::new(3.0 * v.x, 3.0 * v.y, 3.0 * v.z, 3.0 * v.w);
    }

    /// Each sm_80 operation once, in the order of `oracle80` in `tests/cuda/async_copy.cu`.
    #[kernel(sm = 80)]
    pub fn oracle80(x: &[f32], v: &[f32x4], z: &[f64], y: &mut [f32], n: u32) {
        let mut s = unsafe { shared_array::<f32, 64>() };
        let mut s4 = unsafe { shared_array::<f32x4, 32>() };
        let mut c4 = unsafe { shared_array::<f32x4, 32>() };
        let mut s8 = unsafe { shared_array::<f64, 32>() };
        let mut bar = unsafe { shared_array::<u64, 1>() };
        let t = thread_idx_x() as usize;
        unsafe {
            memcpy_async(&mut s[t], &x[t]);
            memcpy_async(&mut s8[t], &z[t]);
            memcpy_async(&mut s4[t], &v[t]);
            memcpy_async_ca(&mut c4[t], &v[t]);
            memcpy_async_zfill(&mut c4[t], &v[t], n);
            memcpy_async_zfill(&mut s[t + 32], &x[t], n);
        }
        pipeline_commit();
        pipeline_wait_prior(2);
        pipeline_wait_all();
        if t == 0 {
            unsafe { mbarrier_init(&mut bar[0], n) };
        }
        sync_threads();
        let tok = unsafe { mbarrier_arrive(&mut bar[0]) };
        let done = unsafe { mbarrier_test_wait(&mut bar[0], tok) };
        let tok2 = unsafe { mbarrier_arrive_drop(&mut bar[0]) };
        if t == 0 {
            unsafe { mbarrier_inval(&mut bar[0]) };
        }
        y[t] = s[t] + s4[t].x + c4[t].y + s8[t] as f32 + tok.wrapping_add(tok2) as f32 + if done { 1.0 } else { 0.0 };
    }

    /// Each sm_90 operation once, in the order of `oracle90` in `tests/cuda/async_bulk.cu`.
    #[kernel(sm = 90)]
    pub fn oracle90(x: &[f32x4], y: &mut [f32], n: u32) {
        let mut tile = unsafe { shared_array::<f32x4, 16>() };
        let mut bar = unsafe { shared_array::<u64, 1>() };
        if thread_idx_x() == 0 {
            unsafe { mbarrier_init(&mut bar[0], 1) };
        }
        sync_threads();
        let tok = unsafe { mbarrier_arrive_expect_tx(&mut bar[0], n) };
        unsafe { memcpy_async_bulk(&mut tile[0], &x[0..n as usize / 16], &mut bar[0]) };
        unsafe { mbarrier_expect_tx(&mut bar[0], n) };
        let a = unsafe { mbarrier_try_wait(&mut bar[0], tok) };
        let b = unsafe { mbarrier_try_wait_parity(&mut bar[0], n) };
        let t = thread_idx_x() as usize;
        y[t] = tile[t / 4].x + if a { 1.0 } else { 0.0 } + if b { 1.0 } else { 0.0 };
    }
}

/// The reference: `tile_sum` computed plainly.
fn tile_sum_ref(x: &[f32], blocks: usize, tiles: usize) -> Vec<f32> {
    let mut y = vec![0.0f32; blocks * 64];
    for b in 0..blocks {
        for t in 0..64 {
            let mut acc = 0.0f32;
            for k in 0..tiles {
                let tile = &x[(b * tiles + k) * 64..][..64];
                acc += tile[t] * 2.0 + tile[63 - t];
            }
            y[b * 64 + t] = acc;
        }
    }
    y
}

fn input(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.25).collect()
}

#[test]
fn double_buffered_tile_sum_matches_the_host() {
    assemble("async_tile_sum", k::tile_sum::PTX);
    let (blocks, tiles) = (3usize, 5usize);
    let x = input(blocks * tiles * 64);
    let want = tile_sum_ref(&x, blocks, tiles);
    let mut host_y = vec![0.0f32; blocks * 64];
    let out = host::Disjoint::new(&mut host_y);
    // SAFETY: each thread writes its own element.
    host::run([blocks as u32, 1, 1], [64, 1, 1], 0, || k::tile_sum(&x, unsafe { out.get() }, tiles as u32));
    assert_eq!(host_y, want, "host run");
    let stream = crate::body_exec::cpu_stream();
    let xs = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ys = DeviceBuffer::<f32>::zeroed(&stream, blocks * 64).unwrap();
    k::tile_sum::launch(&stream, LaunchConfig::new(blocks as u32, 64), &xs, &mut ys, tiles as u32).unwrap();
    assert_eq!(ys.to_vec().unwrap(), want, "CPU backend");
}

/// The CPU backend lands a copy at the wait that covers it, so a kernel without one reads
/// what shared memory held before (a GPU may do the same).
#[test]
fn a_missing_wait_is_observable_on_the_cpu_backend() {
    assemble("async_no_wait", k::no_wait::PTX);
    let stream = crate::body_exec::cpu_stream();
    let x: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let xs = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ys = DeviceBuffer::<f32>::zeroed(&stream, 32).unwrap();
    k::no_wait::launch(&stream, LaunchConfig::new(1, 32), &xs, &mut ys).unwrap();
    assert_eq!(ys.to_vec().unwrap(), vec![-1.0; 32]);
}

fn wide_inputs() -> (Vec<f32x4>, Vec<f64>) {
    let x: Vec<f32x4> = (0..32).map(|i| f32x4::new(i as f32, i as f32 + 0.5, -(i as f32), 100.0 + i as f32)).collect();
    let z: Vec<f64> = (0..32).map(|i| i as f64 * 1.25 - 3.0).collect();
    (x, z)
}

/// What `copy_wide` computes, for `n` valid floats.
fn wide_ref(x: &[f32x4], z: &[f64], n: u32) -> (Vec<f32x4>, Vec<f32x4>, Vec<f64>) {
    let y = (0..32).map(|t| {
        let (a, b) = (x[t], x[31 - t]);
        f32x4::new(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w)
    });
    let u = (0..32).map(|t| {
        let keep = (n as i64 - t as i64 * 4).clamp(0, 4);
        let v = x[t];
        let l = [v.x, v.y, v.z, v.w].map(|_| 0.0);
        let mut l = l;
        for (i, e) in [v.x, v.y, v.z, v.w].into_iter().enumerate().take(keep as usize) {
            l[i] = e;
        }
        f32x4::new(l[0], l[1], l[2], l[3])
    });
    (y.collect(), u.collect(), (0..32).map(|t| z[31 - t]).collect())
}

fn bits4(v: &[f32x4]) -> Vec<u32> {
    v.iter().flat_map(|a| [a.x.to_bits(), a.y.to_bits(), a.z.to_bits(), a.w.to_bits()]).collect()
}

/// Downloaded `f32x4` elements as the bits of their floats.
fn bits_of(v: Vec<f32>) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn wide_and_zero_filled_copies_match_the_host() {
    assemble("async_copy_wide", k::copy_wide::PTX);
    let (x, z) = wide_inputs();
    let n = 4 * 20 + 3;
    let (wy, wu, ww) = wide_ref(&x, &z, n);
    let (mut hy, mut hu, mut hw) = (vec![f32x4::default(); 32], vec![f32x4::default(); 32], vec![0.0f64; 32]);
    let (oy, ou, ow) = (host::Disjoint::new(&mut hy), host::Disjoint::new(&mut hu), host::Disjoint::new(&mut hw));
    // SAFETY: each thread writes its own elements.
    host::run([1, 1, 1], [32, 1, 1], 0, || k::copy_wide(&x, &z, unsafe { oy.get() }, unsafe { ou.get() }, unsafe { ow.get() }, n));
    assert_eq!((bits4(&hy), bits4(&hu), &hw), (bits4(&wy), bits4(&wu), &ww), "host run");
    let stream = crate::body_exec::cpu_stream();
    let (xs, zs) = (DeviceBuffer::from_slice(&stream, &x).unwrap(), DeviceBuffer::from_slice(&stream, &z).unwrap());
    let mut ys = DeviceBuffer::<f32x4>::zeroed(&stream, 32).unwrap();
    let mut us = DeviceBuffer::<f32x4>::zeroed(&stream, 32).unwrap();
    let mut ws = DeviceBuffer::<f64>::zeroed(&stream, 32).unwrap();
    k::copy_wide::launch(&stream, LaunchConfig::new(1, 32), &xs, &zs, &mut ys, &mut us, &mut ws, n).unwrap();
    assert_eq!((bits4(&ys.to_vec().unwrap()), bits4(&us.to_vec().unwrap()), ws.to_vec().unwrap()), (bits4(&wy), bits4(&wu), ww), "CPU backend");
}

fn rounds_ref(rounds: usize) -> Vec<f32> {
    (0..64).map(|t| if t < 32 { 0.0 } else { (0..rounds).map(|r| (r * 100 + 63 - t) as f32).sum() }).collect()
}

#[test]
fn mbarrier_producer_consumer_matches_the_host() {
    assemble("async_mbar_rounds", k::mbar_rounds::PTX);
    let rounds = 4;
    let want = rounds_ref(rounds);
    let mut hy = vec![0.0f32; 64];
    let out = host::Disjoint::new(&mut hy);
    // SAFETY: each thread writes its own element.
    host::run([1, 1, 1], [64, 1, 1], 0, || k::mbar_rounds(unsafe { out.get() }, rounds as u32));
    assert_eq!(hy, want, "host run");
    let stream = crate::body_exec::cpu_stream();
    let mut ys = DeviceBuffer::<f32>::zeroed(&stream, 64).unwrap();
    k::mbar_rounds::launch(&stream, LaunchConfig::new(1, 64), &mut ys, rounds as u32).unwrap();
    assert_eq!(ys.to_vec().unwrap(), want, "CPU backend");
}

fn bulk_ref(x: &[f32x4], blocks: usize) -> Vec<f32x4> {
    (0..blocks * 32)
        .map(|i| {
            let v = x[i / 32 * 32 + 31 - i % 32];
            f32x4::new(3.0 * v.x, 3.0 * v.y, 3.0 * v.z, 3.0 * v.w)
        })
        .collect()
}

#[test]
fn bulk_copy_matches_the_host() {
    assemble("async_bulk_scale", k::bulk_scale::PTX);
    let blocks = 3;
    let x: Vec<f32x4> = (0..blocks * 32).map(|i| f32x4::new(i as f32, -(i as f32), 0.5 * i as f32, 7.0)).collect();
    let want = bulk_ref(&x, blocks);
    let mut hy = vec![f32x4::default(); blocks * 32];
    let out = host::Disjoint::new(&mut hy);
    // SAFETY: each thread writes its own element.
    host::run([blocks as u32, 1, 1], [32, 1, 1], 0, || k::bulk_scale(&x, unsafe { out.get() }));
    assert_eq!(bits4(&hy), bits4(&want), "host run");
    let stream = crate::body_exec::cpu_stream();
    let xs = DeviceBuffer::from_slice(&stream, &x).unwrap();
    let mut ys = DeviceBuffer::<f32x4>::zeroed(&stream, blocks * 32).unwrap();
    k::bulk_scale::launch(&stream, LaunchConfig::new(blocks as u32, 32), &xs, &mut ys).unwrap();
    assert_eq!(bits4(&ys.to_vec().unwrap()), bits4(&want), "CPU backend");
}

/// nvcc's PTX for the CUDA C twins runs on the CPU backend against the same references.
#[test]
fn nvcc_compiled_async_copies_run_on_the_cpu_backend() {
    for ptx in nvcc_archs("async_copy", CUDA, &["sm_80", "sm_90"]) {
        let mut h = Harness::new(&ptx);
        let (blocks, tiles) = (2usize, 3usize);
        let x = input(blocks * tiles * 64);
        let (dx, dy) = (h.upload(&x), h.zeroed::<f32>(blocks * 64));
        h.launch("tile_sum", [blocks as u32, 1, 1], [64, 1, 1], 0, &[dx.ptr(), dy.ptr(), crate::cpu_harness::arg(tiles as u32)]).unwrap();
        assert_eq!(h.download::<f32>(dy), tile_sum_ref(&x, blocks, tiles), "tile_sum");

        let (x, z) = wide_inputs();
        let n = 4 * 9 + 2;
        let (wy, wu, ww) = wide_ref(&x, &z, n);
        let (dx, dz) = (h.upload(&x), h.upload(&z));
        let (dy, du, dw) = (h.zeroed::<f32x4>(32), h.zeroed::<f32x4>(32), h.zeroed::<f64>(32));
        h.launch("copy_wide", [1, 1, 1], [32, 1, 1], 0, &[dx.ptr(), dz.ptr(), dy.ptr(), du.ptr(), dw.ptr(), crate::cpu_harness::arg(n)]).unwrap();
        assert_eq!(bits_of(h.download::<f32>(dy)), bits4(&wy), "copy_wide y");
        assert_eq!(bits_of(h.download::<f32>(du)), bits4(&wu), "copy_wide u (zero fill)");
        assert_eq!(h.download::<f64>(dw), ww, "copy_wide w");

        let dy = h.zeroed::<f32>(64);
        h.launch("mbar_rounds", [1, 1, 1], [64, 1, 1], 0, &[dy.ptr(), crate::cpu_harness::arg(3u32)]).unwrap();
        assert_eq!(h.download::<f32>(dy), rounds_ref(3), "mbar_rounds");
    }
    for ptx in nvcc_archs_cccl("async_bulk", CUDA_BULK, &["sm_90"]) {
        let mut h = Harness::new(&ptx);
        let blocks = 2;
        let x: Vec<f32x4> = (0..blocks * 32).map(|i| f32x4::new(i as f32 * 0.5, 1.0, -2.0 * i as f32, i as f32)).collect();
        let (dx, dy) = (h.upload(&x), h.zeroed::<f32x4>(blocks * 32));
        h.launch("bulk_scale", [blocks as u32, 1, 1], [32, 1, 1], 0, &[dx.ptr(), dy.ptr()]).unwrap();
        assert_eq!(bits_of(h.download::<f32>(dy)), bits4(&bulk_ref(&x, blocks)), "bulk_scale");
    }
}

/// The `cp.async` / `mbarrier` instructions of kernel `name`, registers reduced to their kind
/// (`%r7` to `%r`; CCCL's `P_OUT` predicate to `%p`), whitespace to single spaces; statements
/// inside `{ ... }` scopes are taken one by one, comments dropped.
/// `name`: the kernel (the module's one kernel when `None`).
pub(crate) fn shapes(ptx: &str, name: Option<&str>) -> Vec<String> {
    let entry = name.map_or(".entry ".to_string(), |n| format!(".entry {n}("));
    let start = ptx.find(&entry).unwrap_or_else(|| panic!("kernel {name:?} in\n{ptx}"));
    // To the next kernel: inline asm's `{ ... }` scopes close at the start of a line too.
    let body = &ptx[start..];
    let body = &body[..body[1..].find(".entry ").map_or(body.len(), |e| e + 1)];
    let mut out = Vec::new();
    for line in body.lines() {
        let line = line.split("//").next().unwrap_or("");
        for stmt in line.split([';', '{', '}']) {
            let s = stmt.trim().replace("P_OUT", "%p");
            if !(s.starts_with("cp.async") || s.starts_with("mbarrier.")) {
                continue;
            }
            let mut o = String::new();
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                if c.is_whitespace() {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                    o.push(' ');
                    continue;
                }
                o.push(c);
                if c == '%' {
                    while let Some(&d) = chars.peek() {
                        if d.is_ascii_alphabetic() {
                            o.push(d);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                }
            }
            out.push(o);
        }
    }
    out
}

#[test]
fn async_copy_and_mbarrier_instructions_match_nvcc() {
    assemble("async_oracle80", k::oracle80::PTX);
    assemble("async_oracle90", k::oracle90::PTX);
    let ours80 = shapes(k::oracle80::PTX, None);
    let ours90 = shapes(k::oracle90::PTX, None);
    for ptx in nvcc_archs("async_oracle80", CUDA, &["sm_80"]) {
        assert_eq!(ours80, shapes(&ptx, Some("oracle80")), "ours (left) against nvcc's (right)\n{}", k::oracle80::PTX);
    }
    for ptx in nvcc_archs_cccl("async_oracle90", CUDA_BULK, &["sm_90"]) {
        assert_eq!(ours90, shapes(&ptx, Some("oracle90")), "ours (left) against nvcc's (right)\n{}", k::oracle90::PTX);
    }
    // What was compared, spelled out.
    assert_eq!(
        ours80,
        [
            "cp.async.ca.shared.global [%r], [%rd], 4, 4",
            "cp.async.ca.shared.global [%r], [%rd], 8, 8",
            "cp.async.cg.shared.global [%r], [%rd], 16, 16",
            "cp.async.ca.shared.global [%r], [%rd], 16, 16",
            "cp.async.cg.shared.global [%r], [%rd], 16, %r",
            "cp.async.ca.shared.global [%r], [%rd], 4, %r",
            "cp.async.commit_group",
            "cp.async.wait_group 2",
            "cp.async.wait_all",
            "mbarrier.init.shared.b64 [%r], %r",
            "mbarrier.arrive.shared.b64 %rd, [%r]",
            "mbarrier.test_wait.shared.b64 %p, [%r], %rd",
            "mbarrier.arrive_drop.shared.b64 %rd, [%r]",
            "mbarrier.inval.shared.b64 [%r]",
        ]
    );
    assert_eq!(
        ours90,
        [
            "mbarrier.init.shared.b64 [%r], %r",
            "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd, [%r], %r",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r], [%rd], %r, [%r]",
            "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r], %r",
            "mbarrier.try_wait.shared::cta.b64 %p, [%r], %rd",
            "mbarrier.try_wait.parity.shared::cta.b64 %p, [%r], %r",
        ]
    );
}

/// Memcheck applies to both sides of a `cp.async`: a source past the end of its allocation
/// and a destination past the block's shared memory fault at the copy, in the thread that
/// issued it.
#[test]
fn cp_async_is_memchecked_on_both_sides() {
    use crate::cpu_harness::{arg, fault};
    use ptx_runtime::FaultKind;
    for ptx in nvcc_archs("async_oob", CUDA, &["sm_80"]) {
        let mut h = Harness::new(&ptx);
        let (x, y) = (h.upload(&[1.0f32; 16]), h.zeroed::<f32>(32));
        let f = fault(h.launch("oob_copy", [1, 1, 1], [32, 1, 1], 0, &[x.ptr(), y.ptr(), arg(0u32)]));
        assert_eq!((f.kind, f.thread), (FaultKind::OutOfBounds, [16, 0, 0]), "source: {f:?}");
        assert!(ptx.lines().nth(f.line.unwrap() - 1).unwrap().contains("cp.async"), "{f:?}");
        let mut h = Harness::new(&ptx);
        let (x, y) = (h.upload(&[1.0f32; 32]), h.zeroed::<f32>(32));
        let f = fault(h.launch("oob_copy", [1, 1, 1], [32, 1, 1], 0, &[x.ptr(), y.ptr(), arg(8u32)]));
        assert_eq!((f.kind, f.thread), (FaultKind::OutOfBounds, [24, 0, 0]), "destination: {f:?}");
        assert!(ptx.lines().nth(f.line.unwrap() - 1).unwrap().contains("cp.async"), "{f:?}");
        let mut h = Harness::new(&ptx);
        let (x, y) = (h.upload(&[1.0f32; 32]), h.zeroed::<f32>(32));
        h.launch("oob_copy", [1, 1, 1], [32, 1, 1], 0, &[x.ptr(), y.ptr(), arg(0u32)]).unwrap();
        assert_eq!(h.download::<f32>(y), vec![1.0; 32]);
    }
}
