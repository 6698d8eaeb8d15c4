//! The atomics ABI (guide chapter 4) through `ptx_runtime::device::atomic`: every row of the
//! guide's five mapping tables for every scope, compared with what nvcc emits for the same
//! `__nv_atomic_*` operation and assembled by ptxas for sm_75 and sm_90; and the operations
//! running on the CPU backend and on the host against a sequential model, a histogram, message
//! passing and a spin lock.

// Kernels write `i % 10 == 0`: `is_multiple_of` is not in the device subset.
#![allow(clippy::manual_is_multiple_of)]

use crate::cpu_harness::{arg, nvcc_archs, Harness};
use crate::tools::assemble;
use core::sync::atomic::Ordering;
use ptx_runtime::abi::atomic::{fence_sem, lower, Access, Order, Step};
use ptx_runtime::abi::{Isa, Target};
use ptx_runtime::device::atomic::{self, Scope};
use ptx_runtime::device::*;
use ptx_runtime::kernel;

/// One row of the tables through our API: the operation, in a kernel of its own.
struct Row {
    name: &'static str,
    ptx: &'static str,
    access: Access,
    order: Order,
    scope: Scope,
    sm: u32,
}

macro_rules! row {
    ($name:ident Fence $order:ident $scope:ident $sm:tt) => {
        #[kernel(sm = $sm)]
        pub fn $name(_p: *mut u32, _out: *mut u32) {
            atomic::fence(Ordering::$order, Scope::$scope);
        }
    };
    ($name:ident Load $order:ident $scope:ident $sm:tt) => {
        #[kernel(sm = $sm)]
        pub fn $name(p: *mut u32, out: *mut u32) {
            unsafe { *out = atomic::load(p, Ordering::$order, Scope::$scope) };
        }
    };
    ($name:ident Store $order:ident $scope:ident $sm:tt) => {
        #[kernel(sm = $sm)]
        pub fn $name(p: *mut u32, _out: *mut u32) {
            unsafe { atomic::store(p, 7, Ordering::$order, Scope::$scope) };
        }
    };
    ($name:ident Rmw $order:ident $scope:ident $sm:tt) => {
        #[kernel(sm = $sm)]
        pub fn $name(p: *mut u32, out: *mut u32) {
            unsafe { *out = atomic::fetch_add(p, 1, Ordering::$order, Scope::$scope) };
        }
    };
}

macro_rules! rows {
    ($($name:ident $access:ident $order:ident $scope:ident $sm:tt;)*) => {
        $(row!($name $access $order $scope $sm);)*
        const ROWS: &[Row] = &[$(Row { name: stringify!($name), ptx: $name::PTX, access: Access::$access, order: Order::$order, scope: Scope::$scope, sm: $sm }),*];
    };
}

rows! {
    fence_acquire_block Fence Acquire Block 75;
    fence_acquire_device Fence Acquire Device 75;
    fence_acquire_system Fence Acquire System 75;
    fence_release_block Fence Release Block 75;
    fence_release_device Fence Release Device 75;
    fence_release_system Fence Release System 75;
    fence_acq_rel_block Fence AcqRel Block 75;
    fence_acq_rel_device Fence AcqRel Device 75;
    fence_acq_rel_system Fence AcqRel System 75;
    fence_seq_cst_block Fence SeqCst Block 75;
    fence_seq_cst_device Fence SeqCst Device 75;
    fence_seq_cst_system Fence SeqCst System 75;
    load_relaxed_block Load Relaxed Block 75;
    load_relaxed_device Load Relaxed Device 75;
    load_relaxed_system Load Relaxed System 75;
    load_acquire_block Load Acquire Block 75;
    load_acquire_device Load Acquire Device 75;
    load_acquire_system Load Acquire System 75;
    load_seq_cst_block Load SeqCst Block 75;
    load_seq_cst_device Load SeqCst Device 75;
    load_seq_cst_system Load SeqCst System 75;
    store_relaxed_block Store Relaxed Block 75;
    store_relaxed_device Store Relaxed Device 75;
    store_relaxed_system Store Relaxed System 75;
    store_release_block Store Release Block 75;
    store_release_device Store Release Device 75;
    store_release_system Store Release System 75;
    store_seq_cst_block Store SeqCst Block 75;
    store_seq_cst_device Store SeqCst Device 75;
    store_seq_cst_system Store SeqCst System 75;
    rmw_relaxed_block Rmw Relaxed Block 75;
    rmw_relaxed_device Rmw Relaxed Device 75;
    rmw_relaxed_system Rmw Relaxed System 75;
    rmw_acquire_block Rmw Acquire Block 75;
    rmw_acquire_device Rmw Acquire Device 75;
    rmw_acquire_system Rmw Acquire System 75;
    rmw_release_block Rmw Release Block 75;
    rmw_release_device Rmw Release Device 75;
    rmw_release_system Rmw Release System 75;
    rmw_acq_rel_block Rmw AcqRel Block 75;
    rmw_acq_rel_device Rmw AcqRel Device 75;
    rmw_acq_rel_system Rmw AcqRel System 75;
    rmw_seq_cst_block Rmw SeqCst Block 75;
    rmw_seq_cst_device Rmw SeqCst Device 75;
    rmw_seq_cst_system Rmw SeqCst System 75;
    fence_acquire_block_sm90 Fence Acquire Block 90;
    fence_acquire_device_sm90 Fence Acquire Device 90;
    fence_acquire_system_sm90 Fence Acquire System 90;
    fence_release_block_sm90 Fence Release Block 90;
    fence_release_device_sm90 Fence Release Device 90;
    fence_release_system_sm90 Fence Release System 90;
    fence_acq_rel_block_sm90 Fence AcqRel Block 90;
    fence_acq_rel_device_sm90 Fence AcqRel Device 90;
    fence_acq_rel_system_sm90 Fence AcqRel System 90;
    fence_seq_cst_block_sm90 Fence SeqCst Block 90;
    fence_seq_cst_device_sm90 Fence SeqCst Device 90;
    fence_seq_cst_system_sm90 Fence SeqCst System 90;
}

/// nvcc's spelling of each order and scope, as `atomics_oracle` writes them.
fn c_order(o: Order) -> &'static str {
    match o {
        Order::Relaxed => "__NV_ATOMIC_RELAXED",
        Order::Acquire => "__NV_ATOMIC_ACQUIRE",
        Order::Release => "__NV_ATOMIC_RELEASE",
        Order::AcqRel => "__NV_ATOMIC_ACQ_REL",
        Order::SeqCst => "__NV_ATOMIC_SEQ_CST",
    }
}

fn c_scope(s: Scope) -> &'static str {
    match s {
        Scope::Block => "__NV_THREAD_SCOPE_BLOCK",
        Scope::Device => "__NV_THREAD_SCOPE_DEVICE",
        Scope::System => "__NV_THREAD_SCOPE_SYSTEM",
    }
}

/// The same operation in CUDA C.
fn c_body(r: &Row) -> String {
    let (o, s) = (c_order(r.order), c_scope(r.scope));
    match r.access {
        Access::Fence => format!("__nv_atomic_thread_fence({o}, {s});"),
        Access::Load => format!("*out = __nv_atomic_load_n(p, {o}, {s});"),
        Access::Store => format!("__nv_atomic_store_n(p, 7, {o}, {s});"),
        Access::Rmw => format!("*out = __nv_atomic_fetch_add(p, 1, {o}, {s});"),
    }
}

/// The body of `.entry name` (ours are mangled: the entry whose symbol ends in the name).
fn entry<'a>(ptx: &'a str, name: &str) -> &'a str {
    let at = ptx
        .match_indices(".entry ")
        .map(|(i, _)| i)
        .find(|&i| {
            let sym = ptx[i + 7..].split('(').next().unwrap_or_default();
            sym == name || sym.ends_with(&format!("{}{name}E", name.len()))
        })
        .unwrap_or_else(|| panic!("no entry {name}"));
    let body = &ptx[at..];
    &body[..body.find("\n}").unwrap_or(body.len())]
}

/// The memory-model instructions of a body, as (opcode, semantics, scope): nvcc puts the
/// qualifiers in its own order, so they are compared as a set of words.
fn model_ops(body: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for l in body.lines() {
        let word = l.trim().split([' ', '\t', ';']).next().unwrap_or_default();
        let mut parts = word.split('.');
        let op = parts.next().unwrap_or_default();
        if !["fence", "ld", "st", "atom"].contains(&op) {
            continue;
        }
        let quals: Vec<&str> = parts.collect();
        let Some(sem) = quals.iter().find(|q| ["sc", "acquire", "release", "acq_rel", "relaxed"].contains(q)) else { continue };
        let Some(scope) = quals.iter().find(|q| ["cta", "gpu", "sys"].contains(q)) else { continue };
        out.push((op.to_owned(), sem.to_string(), scope.to_string()));
    }
    out
}

/// What the table says, spelled as we spell it (`atom.<sem>.<scope>.<space>.<op>.<type>`).
fn expected_lines(r: &Row) -> Vec<String> {
    let target = Target { sm: r.sm, suffix: None };
    let steps = lower(r.access, r.order).expect("an allowed row");
    steps
        .iter()
        .map(|s| match *s {
            Step::Fence(sem) => format!("fence{}{};", fence_sem(sem, target, Isa::new(8, 6)).ptx(), r.scope.ptx()),
            Step::Access(sem) => {
                let q = format!("{}{}.global", sem.ptx(), r.scope.ptx());
                match r.access {
                    Access::Load => format!("ld{q}.u32"),
                    Access::Store => format!("st{q}.u32"),
                    _ => format!("atom{q}.add.u32"),
                }
            }
        })
        .collect()
}

#[test]
fn every_row_of_the_tables_for_every_scope() {
    assert_eq!(ROWS.len(), 3 * (4 + 3 + 3 + 5) + 3 * 4, "every allowed row, every scope; the fences again for sm_90");
    for r in ROWS {
        assemble(r.name, r.ptx);
        // Our memory-model instructions, in order, spelled as the table and the ABI crate say.
        let body = entry(r.ptx, r.name);
        let ours: Vec<String> = body
            .lines()
            .map(|l| l.trim().split([' ', '\t', ';']).next().unwrap_or_default().to_owned())
            .filter(|w| model_ops(w).len() == 1)
            .collect();
        let want: Vec<String> = expected_lines(r).into_iter().map(|w| w.trim_end_matches(';').to_owned()).collect();
        assert_eq!(ours, want, "{}:\n{body}", r.name);
    }
    // A one-sided fence raises the module to PTX 8.6 on sm_90; below, it is `acq_rel`.
    let f90 = ROWS.iter().find(|r| r.name == "fence_acquire_device_sm90").unwrap();
    assert!(f90.ptx.contains(".version 8.6") && f90.ptx.contains("fence.acquire.gpu;"), "{}", f90.ptx);
    let f75 = ROWS.iter().find(|r| r.name == "fence_acquire_device").unwrap();
    assert!(f75.ptx.contains("fence.acq_rel.gpu;") && !f75.ptx.contains(".version 8.6"), "{}", f75.ptx);
}

#[test]
fn every_row_matches_nvcc() {
    for sm in [75u32, 90] {
        let rows: Vec<&Row> = ROWS.iter().filter(|r| r.sm == sm).collect();
        let source: String = rows.iter().map(|r| format!("extern \"C\" __global__ void {}(int *p, int *out) {{ {} }}\n", r.name, c_body(r))).collect();
        let Some(theirs) = nvcc_archs(&format!("atomic_rows_sm{sm}"), &source, &[&format!("sm_{sm}")]).pop() else { return };
        let mut mismatches = Vec::new();
        for r in rows {
            let (ours, nvcc) = (model_ops(entry(r.ptx, r.name)), model_ops(entry(&theirs, r.name)));
            assert!(!ours.is_empty(), "{}: nothing to compare", r.name);
            if !crate::nvcc_releases::same_model_ops(&ours, &nvcc, &theirs) {
                mismatches.push(format!("{}: ours {ours:?}, nvcc {nvcc:?}", r.name));
            }
        }
        assert!(mismatches.is_empty(), "sm_{sm}:\n{}", mismatches.join("\n"));
    }
}

/// Every operation on every integer type, on global and shared memory; the old values and
/// the final cells are checked against a sequential model (the operations commute, so the
/// results do not depend on the order the threads ran in).
macro_rules! int_ops {
    ($($name:ident $t:ty;)*) => {$(
        #[kernel]
        pub fn $name(g: &mut [$t], olds: &mut [$t]) {
            let t = thread_idx_x() as usize;
            let n = block_dim_x() as usize;
            let v = (t % 5 + 1) as $t;
            let w = (t as $t).wrapping_mul(37).wrapping_sub(50);
            let bit = (1 as $t) << (t % 7);
            let mut s = unsafe { shared_array::<$t, 16>() };
            if t < 16 {
                s[t] = g[t];
            }
            sync_threads();
            unsafe {
                olds[t] = atomic::fetch_add(&mut g[0], 1, Ordering::Relaxed, Scope::Device);
                olds[n + t] = atomic::fetch_add(&mut s[0], 1, Ordering::AcqRel, Scope::Block);
                atomic::fetch_add(&mut g[1], v, Ordering::SeqCst, Scope::Device);
                atomic::fetch_sub(&mut s[1], v, Ordering::Release, Scope::Block);
                atomic::fetch_and(&mut g[2], !bit, Ordering::Acquire, Scope::System);
                atomic::fetch_or(&mut s[3], bit, Ordering::Relaxed, Scope::Block);
                atomic::fetch_xor(&mut g[4], w, Ordering::AcqRel, Scope::Device);
                atomic::fetch_min(&mut s[5], w, Ordering::SeqCst, Scope::Block);
                atomic::fetch_max(&mut g[6], w, Ordering::Relaxed, Scope::Device);
                olds[2 * n + t] = atomic::swap(&mut s[7], w, Ordering::AcqRel, Scope::Block);
                olds[3 * n + t] = atomic::swap(&mut g[7], w, Ordering::Release, Scope::System);
                // An increment by compare-exchange loops, on both spaces.
                let mut done = false;
                while !done {
                    let cur = atomic::load(&mut g[8], Ordering::Relaxed, Scope::Device);
                    done = atomic::compare_exchange(&mut g[8], cur, cur.wrapping_add(1), Ordering::AcqRel, Ordering::Relaxed, Scope::Device) == cur;
                }
                done = false;
                while !done {
                    let cur = atomic::load(&mut s[8], Ordering::Acquire, Scope::Block);
                    done = atomic::compare_exchange(&mut s[8], cur, cur.wrapping_add(1), Ordering::Release, Ordering::Acquire, Scope::Block) == cur;
                }
                // A compare-exchange that fails returns the value and writes nothing.
                olds[4 * n + t] = atomic::compare_exchange(&mut g[9], 99, 5, Ordering::SeqCst, Ordering::SeqCst, Scope::Device);
                atomic::store(&mut s[10], w, Ordering::Release, Scope::Block);
                atomic::store(&mut g[10], w, Ordering::SeqCst, Scope::Device);
            }
            sync_threads();
            if t < 16 {
                g[16 + t] = s[t];
            }
        }
    )*};
}

int_ops! {
    ops_i8 i8;
    ops_u8 u8;
    ops_i16 i16;
    ops_u16 u16;
    ops_i32 i32;
    ops_u32 u32;
    ops_i64 i64;
    ops_u64 u64;
}

const N: usize = 64;

/// Checks one integer type's results (cells `g`, old values `olds`) against the model.
macro_rules! check_ints {
    ($t:ty, $init:expr, $g:expr, $olds:expr) => {{
        let init: [$t; 16] = $init;
        let (g, olds): (&[$t], &[$t]) = ($g, $olds);
        let s = &g[16..32];
        let ts = 0..N;
        let v = |t: usize| (t % 5 + 1) as $t;
        let w = |t: usize| (t as $t).wrapping_mul(37).wrapping_sub(50);
        let bit = |t: usize| (1 as $t) << (t % 7);
        let sorted = |x: &[$t]| {
            let mut x = x.to_vec();
            x.sort();
            x
        };
        let seq: Vec<$t> = (0..N).map(|k| init[0].wrapping_add(k as $t)).collect();
        assert_eq!(sorted(&olds[..N]), sorted(&seq), "fetch_add returns every count once (global)");
        assert_eq!(sorted(&olds[N..2 * N]), sorted(&seq), "fetch_add returns every count once (shared)");
        assert_eq!((g[0], s[0]), (init[0].wrapping_add(N as $t), init[0].wrapping_add(N as $t)));
        assert_eq!(g[1], ts.clone().fold(init[1], |a, t| a.wrapping_add(v(t))));
        assert_eq!(s[1], ts.clone().fold(init[1], |a, t| a.wrapping_sub(v(t))));
        assert_eq!(g[2], ts.clone().fold(init[2], |a, t| a & !bit(t)));
        assert_eq!(s[3], ts.clone().fold(init[3], |a, t| a | bit(t)));
        assert_eq!(g[4], ts.clone().fold(init[4], |a, t| a ^ w(t)));
        assert_eq!(s[5], ts.clone().fold(init[5], |a, t| a.min(w(t))));
        assert_eq!(g[6], ts.clone().fold(init[6], |a, t| a.max(w(t))));
        // Swaps: the old values and the final one are the initial value and every thread's.
        let every: Vec<$t> = std::iter::once(init[7]).chain(ts.clone().map(w)).collect();
        let mut got: Vec<$t> = olds[2 * N..3 * N].to_vec();
        got.push(s[7]);
        assert_eq!(sorted(&got), sorted(&every), "swap (shared)");
        let mut got: Vec<$t> = olds[3 * N..4 * N].to_vec();
        got.push(g[7]);
        assert_eq!(sorted(&got), sorted(&every), "swap (global)");
        assert_eq!((g[8], s[8]), (init[8].wrapping_add(N as $t), init[8].wrapping_add(N as $t)), "compare-exchange loops");
        assert!(olds[4 * N..5 * N].iter().all(|&o| o == init[9]) && g[9] == init[9], "a failing compare-exchange");
        assert!(ts.clone().any(|t| w(t) == g[10]) && ts.clone().any(|t| w(t) == s[10]), "stores");
    }};
}

macro_rules! int_cases {
    ($($test:ident $name:ident $t:ty;)*) => {$(
        #[test]
        fn $test() {
            assemble(stringify!($name), $name::PTX);
            let init: [$t; 16] = [0, 100, !0, 0, 0x55, <$t>::MAX, <$t>::MIN, 3, 0, 7, 0, 0, 0, 0, 0, 0];
            // The CPU backend.
            let mut k = Harness::new($name::PTX);
            let mut cells = init.to_vec();
            cells.extend([0 as $t; 16]);
            let g = k.upload(&cells);
            let olds = k.zeroed::<$t>(5 * N);
            k.launch($name::ENTRY, [1, 1, 1], [N as u32, 1, 1], 0, &[g.slice(), olds.slice()]).unwrap();
            let (dg, dolds): (Vec<$t>, Vec<$t>) = (k.download(g), k.download(olds));
            check_ints!($t, init, &dg, &dolds);
            // The host definitions: the host's atomics.
            let mut hg = cells.clone();
            let mut holds = vec![0 as $t; 5 * N];
            let (og, oo) = (host::Disjoint::new(&mut hg), host::Disjoint::new(&mut holds));
            // SAFETY: the cells are accessed atomically (or by one thread between barriers);
            // each thread writes its own old values.
            host::run([1, 1, 1], [N as u32, 1, 1], 0, || $name(unsafe { og.get() }, unsafe { oo.get() }));
            check_ints!($t, init, &hg, &holds);
        }
    )*};
}

int_cases! {
    int_ops_i8 ops_i8 i8;
    int_ops_u8 ops_u8 u8;
    int_ops_i16 ops_i16 i16;
    int_ops_u16 ops_u16 u16;
    int_ops_i32 ops_i32 i32;
    int_ops_u32 ops_u32 u32;
    int_ops_i64 ops_i64 i64;
    int_ops_u64 ops_u64 u64;
}

#[test]
fn sub_word_operations_are_compare_and_swap_loops() {
    for ptx in [ops_i8::PTX, ops_u16::PTX] {
        let body = &ptx[ptx.find(".entry").unwrap()..];
        assert!(body.contains("atom.acq_rel.gpu.global.cas.b32") && body.contains("atom.acq_rel.cta.shared.cas.b32"), "{body}");
        assert!(!body.lines().any(|l| l.trim_start().starts_with("atom.") && !l.contains(".cas.b32")), "{body}");
    }
    let body = &ops_i32::PTX[ops_i32::PTX.find(".entry").unwrap()..];
    for want in ["atom.relaxed.gpu.global.add.s32", "atom.acq_rel.cta.shared.add.s32", "atom.release.cta.shared.add.s32", "atom.acquire.sys.global.and.b32", "atom.relaxed.cta.shared.or.b32", "atom.acq_rel.gpu.global.xor.b32", "atom.acquire.cta.shared.min.s32", "atom.relaxed.gpu.global.max.s32", "atom.acq_rel.cta.shared.exch.b32", "atom.release.sys.global.exch.b32", "atom.acq_rel.gpu.global.cas.b32", "atom.acquire.gpu.global.cas.b32", "st.release.cta.shared.s32", "st.relaxed.gpu.global.s32", "ld.acquire.cta.shared.s32", "ld.relaxed.gpu.global.s32"] {
        assert!(body.contains(want), "{want}:\n{body}");
    }
    // `fetch_sub` is an `atom.add` of the negated operand; SeqCst puts `fence.sc` first.
    assert!(body.contains("neg.s32") && body.contains("fence.sc.gpu;\n\tatom.acquire.gpu.global.add.s32") && body.contains("fence.sc.cta;\n\tatom.acquire.cta.shared.min.s32"), "{body}");
    let body = &ops_u64::PTX[ops_u64::PTX.find(".entry").unwrap()..];
    assert!(body.contains("atom.relaxed.gpu.global.add.u64") && body.contains("atom.relaxed.gpu.global.max.u64") && body.contains("atom.acq_rel.gpu.global.cas.b64"), "{body}");
}

/// Float addition and subtraction (exact here: multiples of 1/4), swaps, loads and stores.
macro_rules! float_ops {
    ($($name:ident $t:ty;)*) => {$(
        #[kernel]
        pub fn $name(g: &mut [$t], olds: &mut [$t]) {
            let t = thread_idx_x() as usize;
            let n = block_dim_x() as usize;
            let v = (t % 5) as $t * 0.25 + 0.5;
            let mut s = unsafe { shared_array::<$t, 4>() };
            if t < 4 {
                s[t] = g[t];
            }
            sync_threads();
            unsafe {
                olds[t] = atomic::fetch_add(&mut g[0], 1.0, Ordering::Relaxed, Scope::Device);
                olds[n + t] = atomic::fetch_add(&mut s[0], 1.0, Ordering::AcqRel, Scope::Block);
                atomic::fetch_add(&mut g[1], v, Ordering::SeqCst, Scope::Device);
                atomic::fetch_sub(&mut s[1], v, Ordering::Release, Scope::Block);
                olds[2 * n + t] = atomic::swap(&mut g[2], v, Ordering::Acquire, Scope::System);
                atomic::store(&mut s[3], v, Ordering::Release, Scope::Block);
                olds[3 * n + t] = atomic::load(&mut s[3], Ordering::Acquire, Scope::Block);
            }
            sync_threads();
            if t < 4 {
                g[4 + t] = s[t];
            }
        }
    )*};
}

float_ops! {
    fops_f32 f32;
    fops_f64 f64;
}

macro_rules! check_floats {
    ($t:ty, $g:expr, $olds:expr) => {{
        let (g, olds): (&[$t], &[$t]) = ($g, $olds);
        let v = |t: usize| (t % 5) as $t * 0.25 + 0.5;
        let sorted = |x: &[$t]| {
            let mut x = x.to_vec();
            x.sort_by(|a, b| a.partial_cmp(b).unwrap());
            x
        };
        let counts: Vec<$t> = (0..N).map(|k| k as $t).collect();
        assert_eq!((sorted(&olds[..N]), sorted(&olds[N..2 * N])), (counts.clone(), counts));
        assert_eq!((g[0], g[4]), (N as $t, N as $t));
        let total: $t = (0..N).map(v).sum();
        assert_eq!((g[1], g[5]), (10.0 + total, 10.0 - total));
        let mut got = olds[2 * N..3 * N].to_vec();
        got.push(g[2]);
        let mut every: Vec<$t> = (0..N).map(v).collect();
        every.push(-2.0);
        assert_eq!(sorted(&got), sorted(&every));
        assert!(olds[3 * N..4 * N].iter().all(|o| (0..N).any(|t| v(t) == *o)) && (0..N).any(|t| v(t) == g[7]));
    }};
}

macro_rules! float_cases {
    ($($test:ident $name:ident $t:ty;)*) => {$(
        #[test]
        fn $test() {
            assemble(stringify!($name), $name::PTX);
            let cells: Vec<$t> = vec![0.0, 10.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            let mut k = Harness::new($name::PTX);
            let g = k.upload(&cells);
            let olds = k.zeroed::<$t>(4 * N);
            k.launch($name::ENTRY, [1, 1, 1], [N as u32, 1, 1], 0, &[g.slice(), olds.slice()]).unwrap();
            let (dg, dolds): (Vec<$t>, Vec<$t>) = (k.download(g), k.download(olds));
            check_floats!($t, &dg, &dolds);
            let mut hg = cells.clone();
            let mut holds = vec![0.0 as $t; 4 * N];
            let (og, oo) = (host::Disjoint::new(&mut hg), host::Disjoint::new(&mut holds));
            // SAFETY: as for the integer operations.
            host::run([1, 1, 1], [N as u32, 1, 1], 0, || $name(unsafe { og.get() }, unsafe { oo.get() }));
            check_floats!($t, &hg, &holds);
        }
    )*};
}

float_cases! {
    float_ops_f32 fops_f32 f32;
    float_ops_f64 fops_f64 f64;
}

/// `atom.inc` / `atom.dec`: wrapping counters with a bound.
#[kernel]
pub fn wrapping_counters(g: &mut [u32], olds: &mut [u32]) {
    let t = thread_idx_x() as usize;
    let n = block_dim_x() as usize;
    let mut s = unsafe { shared_array::<u32, 2>() };
    if t < 2 {
        s[t] = g[t];
    }
    sync_threads();
    unsafe {
        olds[t] = atomic::fetch_inc(&mut g[0], 9, Ordering::Relaxed, Scope::Device);
        olds[n + t] = atomic::fetch_dec(&mut s[1], 9, Ordering::AcqRel, Scope::Block);
    }
    sync_threads();
    if t < 2 {
        g[2 + t] = s[t];
    }
}

#[test]
fn inc_and_dec_wrap_as_ptx_says() {
    assemble("wrapping_counters", wrapping_counters::PTX);
    let body = &wrapping_counters::PTX[wrapping_counters::PTX.find(".entry").unwrap()..];
    assert!(body.contains("atom.relaxed.gpu.global.inc.u32") && body.contains("atom.acq_rel.cta.shared.dec.u32"), "{body}");
    // The sequential model: `inc` counts 0..=9 and wraps; `dec` counts down from 0 to 9 first.
    let (mut inc, mut dec) = (0u32, 0u32);
    let (mut inc_olds, mut dec_olds) = (Vec::new(), Vec::new());
    for _ in 0..N {
        inc_olds.push(inc);
        inc = if inc >= 9 { 0 } else { inc + 1 };
        dec_olds.push(dec);
        dec = if dec == 0 || dec > 9 { 9 } else { dec - 1 };
    }
    inc_olds.sort();
    dec_olds.sort();
    let mut k = Harness::new(wrapping_counters::PTX);
    let g = k.upload(&[0u32, 0, 0, 0]);
    let olds = k.zeroed::<u32>(2 * N);
    k.launch(wrapping_counters::ENTRY, [1, 1, 1], [N as u32, 1, 1], 0, &[g.slice(), olds.slice()]).unwrap();
    let (g, o): (Vec<u32>, Vec<u32>) = (k.download(g), k.download(olds));
    let (mut a, mut b) = (o[..N].to_vec(), o[N..].to_vec());
    a.sort();
    b.sort();
    assert_eq!((g[0], g[3], a, b), (inc, dec, inc_olds.clone(), dec_olds.clone()));
    let (mut hg, mut ho) = (vec![0u32; 4], vec![0u32; 2 * N]);
    let (og, oo) = (host::Disjoint::new(&mut hg), host::Disjoint::new(&mut ho));
    // SAFETY: as for the integer operations.
    host::run([1, 1, 1], [N as u32, 1, 1], 0, || wrapping_counters(unsafe { og.get() }, unsafe { oo.get() }));
    let (mut a, mut b) = (ho[..N].to_vec(), ho[N..].to_vec());
    a.sort();
    b.sort();
    assert_eq!((hg[0], hg[3], a, b), (inc, dec, inc_olds, dec_olds));
}

/// A histogram from many blocks: each block counts into shared bins (block scope), then adds
/// its counts to the global bins (device scope).
#[kernel]
pub fn histogram(data: &[u32], bins: &mut [u32]) {
    let t = thread_idx_x() as usize;
    let mut local = unsafe { shared_array::<u32, 64>() };
    if t < 64 {
        local[t] = 0;
    }
    sync_threads();
    let stride = (grid_dim_x() * block_dim_x()) as usize;
    let mut i = (block_idx_x() * block_dim_x()) as usize + t;
    while i < data.len() {
        let b = (data[i] % 64) as usize;
        unsafe { atomic::fetch_add(&mut local[b], 1, Ordering::Relaxed, Scope::Block) };
        // Every tenth element also straight into global memory, to contend there too.
        if i % 10 == 0 {
            unsafe { atomic::fetch_add(&mut bins[64 + b], 1, Ordering::Relaxed, Scope::Device) };
        }
        i += stride;
    }
    sync_threads();
    if t < 64 {
        unsafe { atomic::fetch_add(&mut bins[t], local[t], Ordering::Relaxed, Scope::Device) };
    }
}

#[test]
fn a_histogram_from_many_blocks_matches_the_host_count() {
    assemble("histogram", histogram::PTX);
    let data: Vec<u32> = (0..50_000u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let mut want = vec![0u32; 128];
    for (i, d) in data.iter().enumerate() {
        want[(d % 64) as usize] += 1;
        if i % 10 == 0 {
            want[64 + (d % 64) as usize] += 1;
        }
    }
    let stream = crate::body_exec::cpu_stream();
    let db = ptx_runtime::DeviceBuffer::from_slice(&stream, &data).unwrap();
    let mut bins = ptx_runtime::DeviceBuffer::<u32>::zeroed(&stream, 128).unwrap();
    histogram::launch(&stream, ptx_runtime::LaunchConfig::new(48, 128), &db, &mut bins).unwrap();
    assert_eq!(bins.to_vec().unwrap(), want);
    let mut host_bins = vec![0u32; 128];
    let o = host::Disjoint::new(&mut host_bins);
    // SAFETY: the bins are only updated atomically.
    host::run([4, 1, 1], [128, 1, 1], 0, || histogram(&data, unsafe { o.get() }));
    assert_eq!(host_bins, want);
}

/// Message passing: thread 0 of block 0 writes each round's data with plain stores, then
/// publishes it with a Release store of the round's flag; every other thread waits for its
/// round's flag with Acquire loads and reads the data. `fenced` does the same with relaxed
/// accesses and fences (`fence(Release)` before the flag, `fence(Acquire)` after it).
#[kernel]
pub fn message_passing(data: &mut [u32], flags: &mut [u32], seen: &mut [u32], fenced: u32) {
    let b = block_idx_x() as usize;
    let t = thread_idx_x() as usize;
    let rounds = flags.len();
    if b == 0 && t == 0 {
        for r in 0..rounds {
            data[2 * r] = (r * 7 + 3) as u32;
            data[2 * r + 1] = (r * 11 + 5) as u32;
            unsafe {
                if fenced == 0 {
                    atomic::store(&mut flags[r], 1, Ordering::Release, Scope::Device);
                } else {
                    atomic::fence(Ordering::Release, Scope::Device);
                    atomic::store(&mut flags[r], 1, Ordering::Relaxed, Scope::Device);
                }
            }
        }
    } else {
        let me = b * block_dim_x() as usize + t;
        let r = me % rounds;
        unsafe {
            if fenced == 0 {
                while atomic::load(&flags[r], Ordering::Acquire, Scope::Device) == 0 {}
            } else {
                while atomic::load(&flags[r], Ordering::Relaxed, Scope::Device) == 0 {}
                atomic::fence(Ordering::Acquire, Scope::Device);
            }
        }
        seen[2 * me] = data[2 * r];
        seen[2 * me + 1] = data[2 * r + 1];
    }
}

#[test]
fn message_passing_never_sees_stale_data() {
    assemble("message_passing", message_passing::PTX);
    let body = &message_passing::PTX[message_passing::PTX.find(".entry").unwrap()..];
    for want in ["st.release.gpu.global.u32", "ld.acquire.gpu.global.u32", "fence.acq_rel.gpu;", "st.relaxed.gpu.global.u32", "ld.relaxed.gpu.global.u32"] {
        assert!(body.contains(want), "{want}:\n{body}");
    }
    let (blocks, threads, rounds) = (8usize, 64usize, 200usize);
    for fenced in [0u32, 1] {
        for _ in 0..3 {
            let mut k = Harness::new(message_passing::PTX);
            let data = k.zeroed::<u32>(2 * rounds);
            let flags = k.zeroed::<u32>(rounds);
            let seen = k.zeroed::<u32>(2 * blocks * threads);
            k.launch(message_passing::ENTRY, [blocks as u32, 1, 1], [threads as u32, 1, 1], 0, &[data.slice(), flags.slice(), seen.slice(), arg(fenced)]).unwrap();
            let seen: Vec<u32> = k.download(seen);
            for me in 1..blocks * threads {
                let r = me % rounds;
                assert_eq!((seen[2 * me], seen[2 * me + 1]), ((r * 7 + 3) as u32, (r * 11 + 5) as u32), "thread {me} (fenced: {fenced})");
            }
        }
        let (mut data, mut flags, mut seen) = (vec![0u32; 2 * rounds], vec![0u32; rounds], vec![0u32; 2 * 2 * threads]);
        let (d, f, s) = (host::Disjoint::new(&mut data), host::Disjoint::new(&mut flags), host::Disjoint::new(&mut seen));
        // SAFETY: data is written before the flag that publishes it and read after it.
        host::run([2, 1, 1], [threads as u32, 1, 1], 0, || message_passing(unsafe { d.get() }, unsafe { f.get() }, unsafe { s.get() }, fenced));
        for me in 1..2 * threads {
            let r = me % rounds;
            assert_eq!((seen[2 * me], seen[2 * me + 1]), ((r * 7 + 3) as u32, (r * 11 + 5) as u32));
        }
    }
}

/// A spin lock made of compare-exchange (Acquire) and a Release store protects a counter
/// updated with plain loads and stores.
#[kernel]
pub fn locked_counter(lock: &mut [u32], counter: &mut [u64], iterations: u32) {
    for _ in 0..iterations {
        unsafe {
            while atomic::compare_exchange(&mut lock[0], 0, 1, Ordering::Acquire, Ordering::Relaxed, Scope::Device) != 0 {}
        }
        counter[0] += 1;
        counter[1] = counter[1].wrapping_mul(3).wrapping_add(1);
        unsafe { atomic::store(&mut lock[0], 0, Ordering::Release, Scope::Device) };
    }
}

#[test]
fn a_compare_exchange_spin_lock_protects_a_counter() {
    assemble("locked_counter", locked_counter::PTX);
    let body = &locked_counter::PTX[locked_counter::PTX.find(".entry").unwrap()..];
    assert!(body.contains("atom.acquire.gpu.global.cas.b32") && body.contains("st.release.gpu.global.u32"), "{body}");
    let (blocks, threads, iterations) = (6u32, 64u32, 5u32);
    let total = (blocks * threads * iterations) as u64;
    // The second counter's value after `total` protected updates (any order gives the same).
    let chained = (0..total).fold(0u64, |c, _| c.wrapping_mul(3).wrapping_add(1));
    let mut k = Harness::new(locked_counter::PTX);
    let lock = k.zeroed::<u32>(1);
    let counter = k.zeroed::<u64>(2);
    k.launch(locked_counter::ENTRY, [blocks, 1, 1], [threads, 1, 1], 0, &[lock.slice(), counter.slice(), arg(iterations)]).unwrap();
    assert_eq!(k.download::<u64>(counter), [total, chained]);
    let (mut l, mut c) = (vec![0u32], vec![0u64; 2]);
    let (ol, oc) = (host::Disjoint::new(&mut l), host::Disjoint::new(&mut c));
    // SAFETY: the counter is only touched while holding the lock.
    host::run([2, 1, 1], [32, 1, 1], 0, || locked_counter(unsafe { ol.get() }, unsafe { oc.get() }, iterations));
    let host_total = 2 * 32 * iterations as u64;
    assert_eq!(c, [host_total, (0..host_total).fold(0u64, |c, _| c.wrapping_mul(3).wrapping_add(1))]);
}

/// A device function's pointer parameter is a generic address: its atomics name no state
/// space (`atom.<sem>.<scope>.<op>.<type>`), and work on global and shared memory alike.
#[ptx_runtime::device_fn]
pub fn bump(p: *mut u32, by: u32) -> u32 {
    unsafe { atomic::fetch_add(p, by, Ordering::AcqRel, Scope::Device) }
}

#[kernel]
pub fn bumps(c: &mut [u32], olds: &mut [u32]) {
    let t = thread_idx_x() as usize;
    let mut s = unsafe { shared_array::<u32, 1>() };
    if t == 0 {
        s[0] = 0;
    }
    sync_threads();
    olds[t] = bump(&mut c[0], 1);
    bump(s.as_mut_ptr(), 2);
    sync_threads();
    if t == 0 {
        c[1] = s[0];
    }
}

#[test]
fn generic_addresses_take_the_generic_form() {
    assemble("bump", bump::PTX);
    assemble("bumps", bumps::PTX);
    let f = &bump::PTX[bump::PTX.find(".func").unwrap()..];
    assert!(f.contains("atom.acq_rel.gpu.add.u32"), "{f}");
    let mut k = Harness::new(bumps::PTX);
    let c = k.zeroed::<u32>(2);
    let olds = k.zeroed::<u32>(N);
    k.launch(bumps::ENTRY, [1, 1, 1], [N as u32, 1, 1], 0, &[c.slice(), olds.slice()]).unwrap();
    let mut o: Vec<u32> = k.download(olds);
    o.sort();
    assert_eq!((k.download::<u32>(c), o), (vec![N as u32, 2 * N as u32], (0..N as u32).collect::<Vec<_>>()));
}
