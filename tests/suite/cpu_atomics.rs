//! Atomics (guide §4) on the CPU backend: truly atomic while blocks run in parallel on host
//! threads; acquire/release ordering; a spin lock; every integer and float operation.

use crate::cpu_harness::{arg, nvcc, nvcc_archs, Harness};

const SRC: &str = include_str!("../cuda/atomics.cu");

/// nvcc's default (sm_75) output and its -O3 output for sm_90.
fn modules() -> Vec<Harness> {
    let mut v: Vec<Harness> = nvcc("cpu_atomics", SRC).iter().map(|p| Harness::new(p)).collect();
    v.extend(nvcc_archs("cpu_atomics", SRC, &["sm_90"]).iter().map(|p| Harness::new(p)));
    v
}

#[test]
fn histogram_matches_the_host_count() {
    for mut k in modules() {
        let n = 100_000usize;
        let data: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761) >> 7)
            .collect();
        let nbins = 37usize;
        let (dd, db) = (k.upload(&data), k.zeroed::<u32>(nbins));
        k.launch(
            "histogram",
            [64, 1, 1],
            [128, 1, 1],
            0,
            &[dd.ptr(), arg(n as i32), db.ptr(), arg(nbins as i32)],
        )
        .unwrap();
        let mut want = vec![0u32; nbins];
        for v in &data {
            want[*v as usize % nbins] += 1;
        }
        assert_eq!(k.download::<u32>(db), want);
    }
}

#[test]
fn every_atomic_operation() {
    for mut k in modules() {
        let (blocks, threads) = (4u32, 64u32);
        let total = (blocks * threads) as i64;
        let mut g0 = vec![0i32; 12];
        g0[3] = i32::MAX;
        g0[4] = -1;
        g0[8] = 0;
        let (g, g64, gf, gd, r) = (
            k.upload(&g0),
            k.zeroed::<u64>(3),
            k.zeroed::<f32>(1),
            k.zeroed::<f64>(1),
            k.zeroed::<i32>(8),
        );
        k.launch(
            "all_ops",
            [blocks, 1, 1],
            [threads, 1, 1],
            0,
            &[g.ptr(), g64.ptr(), gf.ptr(), gd.ptr(), r.ptr()],
        )
        .unwrap();
        let got: Vec<i32> = k.download(g);
        let ts = 0..total;
        assert_eq!(got[0] as i64, ts.clone().sum::<i64>());
        assert_eq!(got[1] as i64, -ts.clone().sum::<i64>());
        assert_eq!(
            got[2] as i64,
            ts.clone().map(|t| t * 7 % 1000).max().unwrap()
        );
        assert_eq!(got[3] as i64, ts.clone().map(|t| 500 - t).min().unwrap());
        assert_eq!(got[4], ts.clone().fold(-1i32, |a, t| a & !(1 << (t % 31))));
        assert_eq!(got[5], ts.clone().fold(0i32, |a, t| a | 1 << (t % 31)));
        assert_eq!(got[6] as i64, ts.clone().fold(0i64, |a, t| a ^ t));
        // inc wraps to 0 past 100; dec from 0 wraps to 1000: order-independent counts.
        assert_eq!(got[7] as i64, total % 101);
        assert_eq!(got[8] as i64, (1001 - total % 1001) % 1001);
        // The CAS chain advances exactly as far as the threads happened to run in order; g[9]
        // is some t with every CAS before it successful, so at least 0 and at most total-1.
        assert!((0..total).contains(&(got[9] as i64)));
        assert_eq!(got[10], 42);
        assert_eq!(
            got[11] as u32,
            ts.clone()
                .map(|t| (t as u32).wrapping_mul(2654435761))
                .max()
                .unwrap()
        );
        let g64v: Vec<u64> = k.download(g64);
        assert_eq!(
            g64v[0],
            ts.clone()
                .map(|t| (t as u64) << 33)
                .fold(0u64, u64::wrapping_add)
        );
        assert_eq!(g64v[1] as i64, total - 1 - 100);
        assert_eq!(g64v[2], 0x123456789abcdef);
        assert_eq!(k.download::<f32>(gf), [0.25 * total as f32]);
        assert_eq!(k.download::<f64>(gd), [0.125 * total as f64]);
        // Shared memory, per block, summed over blocks.
        let per_block = |b: i64| b * threads as i64..(b + 1) * threads as i64;
        let sh: Vec<i32> = k.download(r);
        assert_eq!(sh[0] as i64, ts.clone().sum::<i64>());
        assert_eq!(
            sh[1] as i64,
            (0..blocks as i64)
                .map(|b| per_block(b).max().unwrap())
                .sum::<i64>()
        );
        assert_eq!(
            sh[3] as i64,
            (0..blocks as i64)
                .map(|b| per_block(b).min().unwrap())
                .sum::<i64>()
        );
        let or_block = |b: i64| per_block(b).fold(0i32, |a, t| a | 1 << (t % 31));
        assert_eq!(
            sh[4],
            (0..blocks as i64)
                .map(or_block)
                .fold(0i32, i32::wrapping_add)
        );
        assert_eq!(sh[5] as i64, blocks as i64 * (threads as i64 % 8));
        let and_block = |b: i64| per_block(b).fold(-1i32, |a, t| a & !(1 << (t % 31)));
        assert_eq!(
            sh[6],
            (0..blocks as i64)
                .map(and_block)
                .fold(0i32, i32::wrapping_add)
        );
    }
}

#[test]
fn release_acquire_message_passing_between_blocks() {
    for mut k in modules() {
        let pairs = 32usize;
        for round in 0..4 {
            let (data, flags, seen) = (
                k.zeroed::<i32>(pairs * 16),
                k.zeroed::<i32>(pairs),
                k.zeroed::<i32>(pairs * 16),
            );
            k.launch(
                "message",
                [2 * pairs as u32, 1, 1],
                [32, 1, 1],
                0,
                &[data.ptr(), flags.ptr(), seen.ptr()],
            )
            .unwrap();
            let s: Vec<i32> = k.download(seen);
            for p in 0..pairs {
                for j in 0..16 {
                    assert_eq!(
                        s[p * 16 + j],
                        (p * 1000 + j) as i32,
                        "round {round} pair {p}"
                    );
                }
            }
        }
    }
}

#[test]
fn message_passing_between_warps_of_a_block() {
    for mut k in modules() {
        let out = k.zeroed::<i32>(32);
        k.launch("message_in_block", [1, 1, 1], [64, 1, 1], 0, &[out.ptr()])
            .unwrap();
        assert_eq!(
            k.download::<i32>(out),
            (0..32).map(|i| i * 3).collect::<Vec<i32>>()
        );
    }
}

#[test]
fn spin_lock_protects_a_counter() {
    for mut k in modules() {
        let (m, c) = (k.zeroed::<i32>(1), k.zeroed::<i32>(1));
        k.launch(
            "locked_count",
            [8, 1, 1],
            [96, 1, 1],
            0,
            &[m.ptr(), c.ptr()],
        )
        .unwrap();
        assert_eq!(k.download::<i32>(c), [8 * 96]);
        assert_eq!(k.download::<i32>(m), [0]);
    }
}

#[test]
fn ordered_and_scoped_atomics() {
    for mut k in modules() {
        let (x, out) = (k.upload(&[0i32, 1, 0, 0, 9, 0]), k.zeroed::<i32>(64));
        k.launch("ordered", [1, 1, 1], [64, 1, 1], 0, &[x.ptr(), out.ptr()])
            .unwrap();
        let xv: Vec<i32> = k.download(x);
        assert_eq!(&xv[..5], &[64, 257, 128, 5, 9]);
        assert_eq!(xv[5] & 0xffff, 7);
        assert_eq!(k.download::<i32>(out), vec![10; 64]);
    }
}
